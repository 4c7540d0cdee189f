package bankpaytest_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
)

type received struct {
	method string
	header http.Header
	body   string
}

// receiver is a notification endpoint that responds with status(n) to its n-th
// request (1-based).
type receiver struct {
	mu     sync.Mutex
	reqs   []received
	status func(n int) int
	srv    *httptest.Server
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{status: status}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, received{req.Method, req.Header.Clone(), string(b)})
		n := len(r.reqs)
		r.mu.Unlock()
		w.WriteHeader(r.status(n))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.reqs...)
}

func always(code int) func(int) int { return func(int) int { return code } }

func flush(t *testing.T, srv *bankpaytest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// checkNotification verifies a received notification as a merchant would:
// form-encoded, Authorization Basic base64(accessId:signature) with the
// signature the Base64 HMAC-SHA1 of the URL-decoded body.
func checkNotification(t *testing.T, r received, creds bankpay.Credentials) url.Values {
	t.Helper()
	if r.method != http.MethodPost || r.header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("method %s, Content-Type %q", r.method, r.header.Get("Content-Type"))
	}
	raw, ok := strings.CutPrefix(r.header.Get("Authorization"), "Basic ")
	if !ok {
		t.Fatalf("Authorization %q", r.header.Get("Authorization"))
	}
	dec, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		t.Fatal(err)
	}
	id, sig, _ := strings.Cut(string(dec), ":")
	decoded, err := url.QueryUnescape(r.body)
	if err != nil {
		t.Fatal(err)
	}
	if id != creds.AccessID || sig != hmacSHA1(creds.AccessKey.Reveal(), decoded) {
		t.Fatalf("notification signature does not verify (accessId %q)", id)
	}
	v, err := url.ParseQuery(r.body)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEventDelivery(t *testing.T) {
	rcv := newReceiver(t, always(http.StatusOK))
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := disbursementData("ev-1", "10.00")
	d.NotificationURL = rcv.srv.URL + "/notify?merchant=1"
	d.TimeZone = "America/New_York"
	var env wire.TransactionEnvelope
	c.postJSON("/establish?createTransaction=true", c.sign(d)).wantOK(t, &env)
	auth := env.Transaction
	dep := c.mustDeposit(auth.TransactionID, "ev-dep", "10.00")
	srv.Advance(time.Minute)
	flush(t, srv)

	got := rcv.received()
	if len(got) != 2 {
		t.Fatalf("%d notifications, want 2", len(got))
	}
	v := checkNotification(t, got[0], c.creds)
	want := map[string]string{
		"merchantId": c.creds.MerchantID, "merchantReference": "ev-1", "paymentType": "4", "transactionType": "1",
		"eventType": "Authorize", "objectId": auth.TransactionID, "objectType": "Transaction",
		"timeZone": "America/New_York", "accessId": c.creds.AccessID, "status": "2", "statusMessage": "Authorized",
		"paymentProviderTransaction.status": "SW010", "paymentProviderTransaction.statusMessage": "established",
		"createdAt": "1709287200000",
	}
	for k, w := range want {
		if v.Get(k) != w {
			t.Errorf("%s = %q, want %q", k, v.Get(k), w)
		}
	}
	if v.Get("eventId") == "" || v.Get("message") == "" || v.Has("parentObjectId") {
		t.Errorf("fields %v", v)
	}
	v2 := checkNotification(t, got[1], c.creds)
	if v2.Get("eventType") != "Process" || v2.Get("objectId") != dep.TransactionID || v2.Get("parentObjectId") != auth.TransactionID ||
		v2.Get("transactionType") != "6" || v2.Get("status") != "3" || v2.Get("eventId") == v.Get("eventId") {
		t.Fatalf("process event %v", v2)
	}

	evs := srv.Events()
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	for _, e := range evs {
		if !e.Delivered || len(e.Attempts) != 1 || e.LastStatus() != 200 || e.URL != d.NotificationURL || e.MerchantID != c.creds.MerchantID {
			t.Fatalf("event %+v", e)
		}
	}
	if evs[0].Body != got[0].body || evs[0].Authorization != got[0].header.Get("Authorization") || evs[0].ID != v.Get("eventId") {
		t.Fatal("recorded event differs from what was sent")
	}
	// No re-send once delivered.
	srv.Advance(time.Hour)
	flush(t, srv)
	if n := len(rcv.received()); n != 2 {
		t.Fatalf("%d notifications after an hour", n)
	}
}

func TestEventResentOnNon200(t *testing.T) {
	// 500, 500, 202 (not 200 either), then 200.
	rcv := newReceiver(t, func(n int) int {
		switch n {
		case 1, 2:
			return http.StatusInternalServerError
		case 3:
			return http.StatusAccepted
		}
		return http.StatusOK
	})
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: rcv.srv.URL}))
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("resend", "1.00") // no notificationUrl: the merchant's is used
	flush(t, srv)
	attempts := func() []bankpaytest.Attempt {
		t.Helper()
		evs := srv.EventsFor(auth.TransactionID)
		if len(evs) != 1 {
			t.Fatalf("%d events", len(evs))
		}
		return evs[0].Attempts
	}
	if a := attempts(); len(a) != 1 || a[0].StatusCode != 500 || a[0].At != friday {
		t.Fatalf("first attempt %+v", a)
	}
	srv.Advance(5*time.Minute - time.Millisecond)
	flush(t, srv)
	if a := attempts(); len(a) != 1 {
		t.Fatalf("re-sent before 5 minutes: %+v", a)
	}
	srv.Advance(time.Millisecond)
	flush(t, srv)
	if a := attempts(); len(a) != 2 || a[1].StatusCode != 500 || a[1].At != friday.Add(5*time.Minute) {
		t.Fatalf("after 5 minutes %+v", a)
	}
	// One Advance crossing several marks re-sends at each, deciding after
	// each response, and stops at the 200.
	srv.Advance(time.Hour)
	flush(t, srv)
	a := attempts()
	if len(a) != 4 || a[2].StatusCode != 202 || a[3].StatusCode != 200 ||
		a[2].At != friday.Add(10*time.Minute) || a[3].At != friday.Add(15*time.Minute) {
		t.Fatalf("attempts %+v", a)
	}
	if len(rcv.received()) != 4 {
		t.Fatalf("%d requests", len(rcv.received()))
	}
	for _, r := range rcv.received() {
		checkNotification(t, r, c.creds) // every re-send is the same signed body
		if r.body != rcv.received()[0].body {
			t.Fatal("re-send body differs")
		}
	}
	if e := srv.EventsFor(auth.TransactionID)[0]; !e.Delivered || e.LastStatus() != 200 {
		t.Fatalf("event %+v", e)
	}
}

func TestEventResendWindow(t *testing.T) {
	rcv := newReceiver(t, always(http.StatusServiceUnavailable))
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: rcv.srv.URL}))
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("window", "1.00")
	srv.Advance(13 * time.Hour)
	flush(t, srv)
	e := srv.EventsFor(auth.TransactionID)[0]
	// The first attempt, then one every 5 minutes for 12 hours.
	if len(e.Attempts) != 1+144 || e.Delivered || e.LastStatus() != 503 {
		t.Fatalf("%d attempts, delivered %v", len(e.Attempts), e.Delivered)
	}
	if last := e.Attempts[len(e.Attempts)-1].At; last != friday.Add(12*time.Hour) {
		t.Fatalf("last attempt at %v", last)
	}
	srv.Advance(24 * time.Hour)
	flush(t, srv)
	if n := len(srv.EventsFor(auth.TransactionID)[0].Attempts); n != 145 {
		t.Fatalf("%d attempts after the window", n)
	}
}

func TestEventUnreachable(t *testing.T) {
	rcv := newReceiver(t, always(200))
	target := rcv.srv.URL
	rcv.srv.Close() // connection refused from now on
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := disbursementData("unreachable", "1.00")
	d.NotificationURL = target
	c.postJSON("/establish?createTransaction=true", c.sign(d)).wantOK(t, nil)
	srv.Advance(10 * time.Minute)
	flush(t, srv)
	e := srv.Events()[0]
	if len(e.Attempts) != 3 || e.Attempts[0].StatusCode != 0 || e.Attempts[0].Err == "" || e.Delivered {
		t.Fatalf("attempts %+v", e.Attempts)
	}
}

func TestEventWithoutURL(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	c.establish("nourl", "1.00")
	srv.Advance(time.Hour)
	flush(t, srv)
	evs := srv.Events()
	if len(evs) != 1 || evs[0].URL != "" || len(evs[0].Attempts) != 0 || evs[0].Fields.Get("eventType") != "Authorize" {
		t.Fatalf("events %+v", evs)
	}
}

func TestCloseStopsDelivery(t *testing.T) {
	release := make(chan struct{})
	hung := make(chan struct{}, 1)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hung <- struct{}{}:
		default:
		}
		<-release
	}))
	defer rcv.Close()
	defer close(release)

	srv := bankpaytest.NewServer(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: rcv.URL}))
	c := newAPI(t, srv, srv.Credentials())
	c.establish("hang-1", "1.00")
	c.establish("hang-2", "1.00")
	<-hung // the first delivery is in flight

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Flush(ctx); err != context.Canceled {
		t.Fatalf("Flush with a canceled context: %v", err)
	}
	srv.Close() // must abort the attempt in flight and return
	srv.Close() // idempotent
	if err := srv.Flush(context.Background()); err != nil {
		t.Fatalf("Flush after Close: %v", err)
	}
	srv.Advance(time.Hour) // must not wait for anything
	evs := srv.Events()
	if len(evs) != 2 || evs[0].Delivered || len(evs[1].Attempts) != 0 {
		t.Fatalf("events after Close %+v", evs)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestWithDeliveryClient(t *testing.T) {
	var mu sync.Mutex
	var urls []string
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		urls = append(urls, r.URL.String())
		mu.Unlock()
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}}, nil
	})}
	srv := newServer(t, bankpaytest.WithDeliveryClient(hc),
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: "https://merchant.example/events"}))
	newAPI(t, srv, srv.Credentials()).establish("client", "1.00")
	flush(t, srv)
	mu.Lock()
	defer mu.Unlock()
	if len(urls) != 1 || urls[0] != "https://merchant.example/events" || !srv.Events()[0].Delivered {
		t.Fatalf("delivered to %v", urls)
	}
}

func TestErrorString(t *testing.T) {
	e := &bankpaytest.Error{Status: 401, Code: 375, Message: "invalid requestSignature"}
	if got := e.Error(); !strings.Contains(got, "401") || !strings.Contains(got, "375") || !strings.Contains(got, "invalid requestSignature") {
		t.Fatalf("Error() = %q", got)
	}
}

// By default the sandbox dials only loopback addresses: an event for any
// other notificationUrl is recorded as not delivered, with why, at once and
// without a DNS look-up; WithEventHandler receives every event in process.
func TestDeliveryIsHermetic(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: "https://shop.example/bankpay/events"}))
	newAPI(t, srv, srv.Credentials()).establish("hermetic", "1.00")
	start := time.Now()
	flush(t, srv)
	srv.Advance(time.Hour) // 12 re-sends are due: none is dialled
	flush(t, srv)
	require.Less(t, time.Since(start), 2*time.Second)
	evs := srv.Events()
	require.NotEmpty(t, evs)
	for _, e := range evs {
		assert.False(t, e.Delivered)
		require.NotEmpty(t, e.Attempts)
		for _, a := range e.Attempts {
			assert.Zero(t, a.StatusCode)
			assert.Contains(t, a.Err, "shop.example is not a loopback address")
		}
	}

	var got []string
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Host+" "+r.Header.Get("Authorization")[:6]+" "+string(b)[:8])
		mu.Unlock()
	})
	srv2 := newServer(t, bankpaytest.WithEventHandler(h),
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: "https://shop.example/bankpay/events"}))
	newAPI(t, srv2, srv2.Credentials()).establish("in-process", "1.00")
	flush(t, srv2)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, len(srv2.Events()))
	assert.Equal(t, "shop.example Basic ", got[0][:len("shop.example Basic ")])
	for _, e := range srv2.Events() {
		assert.True(t, e.Delivered)
	}
}
