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
	"sync/atomic"
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
	require.NoError(t, srv.Flush(ctx), "Flush")
}

// checkNotification verifies a received notification as a merchant would:
// form-encoded, Authorization Basic base64(accessId:signature) with the
// signature the Base64 HMAC-SHA1 of the URL-decoded body.
func checkNotification(t *testing.T, r received, creds bankpay.Credentials) url.Values {
	t.Helper()
	require.Equal(t, http.MethodPost, r.method, "method %s, Content-Type %q", r.method, r.header.Get("Content-Type"))
	require.Equal(t, "application/x-www-form-urlencoded", r.header.Get("Content-Type"), "method %s, Content-Type %q", r.method, r.header.Get("Content-Type"))
	raw, ok := strings.CutPrefix(r.header.Get("Authorization"), "Basic ")
	require.True(t, ok, "Authorization %q", r.header.Get("Authorization"))
	dec, err := base64.StdEncoding.DecodeString(raw)
	require.NoError(t, err)
	id, sig, _ := strings.Cut(string(dec), ":")
	decoded, err := url.QueryUnescape(r.body)
	require.NoError(t, err)
	require.Equal(t, creds.AccessID, id, "notification signature does not verify (accessId %q)", id)
	require.Equal(t, hmacSHA1(creds.AccessKey.Reveal(), decoded), sig, "notification signature does not verify (accessId %q)", id)
	v, err := url.ParseQuery(r.body)
	require.NoError(t, err)
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
	require.Len(t, got, 2, "%d notifications, want 2", len(got))
	v := checkNotification(t, got[0], c.creds)
	want := map[string]string{
		"merchantId": c.creds.MerchantID, "merchantReference": "ev-1", "paymentType": "4", "transactionType": "1",
		"eventType": "Authorize", "objectId": auth.TransactionID, "objectType": "Transaction",
		"timeZone": "America/New_York", "accessId": c.creds.AccessID, "status": "2", "statusMessage": "Authorized",
		"paymentProviderTransaction.status": "SW010", "paymentProviderTransaction.statusMessage": "established",
		"createdAt": "1709287200000",
	}
	for k, w := range want {
		assert.Equal(t, w, v.Get(k), "%s = %q, want %q", k, v.Get(k), w)
	}
	assert.NotEmpty(t, v.Get("eventId"), "fields %v", v)
	assert.NotEmpty(t, v.Get("message"), "fields %v", v)
	assert.False(t, v.Has("parentObjectId"), "fields %v", v)
	v2 := checkNotification(t, got[1], c.creds)
	require.Equal(t, "Process", v2.Get("eventType"), "process event %v", v2)
	require.Equal(t, dep.TransactionID, v2.Get("objectId"), "process event %v", v2)
	require.Equal(t, auth.TransactionID, v2.Get("parentObjectId"), "process event %v", v2)
	require.Equal(t, "6", v2.Get("transactionType"), "process event %v", v2)
	require.Equal(t, "3", v2.Get("status"), "process event %v", v2)
	require.NotEqual(t, v.Get("eventId"), v2.Get("eventId"), "process event %v", v2)

	evs := srv.Events()
	require.Len(t, evs, 2, "%d events", len(evs))
	for _, e := range evs {
		require.True(t, e.Delivered, "event %+v", e)
		require.Len(t, e.Attempts, 1, "event %+v", e)
		require.Equal(t, 200, e.LastStatus(), "event %+v", e)
		require.Equal(t, d.NotificationURL, e.URL, "event %+v", e)
		require.Equal(t, c.creds.MerchantID, e.MerchantID, "event %+v", e)
	}
	require.Equal(t, got[0].body, evs[0].Body, "recorded event differs from what was sent")
	require.Equal(t, got[0].header.Get("Authorization"), evs[0].Authorization, "recorded event differs from what was sent")
	require.Equal(t, v.Get("eventId"), evs[0].EventID, "recorded event differs from what was sent")
	// No re-send once delivered.
	srv.Advance(time.Hour)
	flush(t, srv)
	n := len(rcv.received())
	require.Equal(t, 2, n, "%d notifications after an hour", n)
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
		require.Len(t, evs, 1, "%d events", len(evs))
		return evs[0].Attempts
	}
	a := attempts()
	require.Len(t, a, 1, "first attempt %+v", a)
	require.Equal(t, 500, a[0].StatusCode, "first attempt %+v", a)
	require.True(t, a[0].At == friday, "first attempt %+v", a)
	srv.Advance(5*time.Minute - time.Millisecond)
	flush(t, srv)
	a = attempts()
	require.Len(t, a, 1, "re-sent before 5 minutes: %+v", a)
	srv.Advance(time.Millisecond)
	flush(t, srv)
	a = attempts()
	require.Len(t, a, 2, "after 5 minutes %+v", a)
	require.Equal(t, 500, a[1].StatusCode, "after 5 minutes %+v", a)
	require.True(t, a[1].At == friday.Add(5*time.Minute), "after 5 minutes %+v", a)
	// One Advance crossing several marks re-sends at each, deciding after
	// each response, and stops at the 200.
	srv.Advance(time.Hour)
	flush(t, srv)
	a = attempts()
	require.Len(t, a, 4, "attempts %+v", a)
	require.Equal(t, 202, a[2].StatusCode, "attempts %+v", a)
	require.Equal(t, 200, a[3].StatusCode, "attempts %+v", a)
	require.True(t, a[2].At == friday.Add(10*time.Minute), "attempts %+v", a)
	require.True(t, a[3].At == friday.Add(15*time.Minute), "attempts %+v", a)
	require.Len(t, rcv.received(), 4, "%d requests", len(rcv.received()))
	for _, r := range rcv.received() {
		checkNotification(t, r, c.creds) // every re-send is the same signed body
		require.Equal(t, rcv.received()[0].body, r.body, "re-send body differs")
	}
	e := srv.EventsFor(auth.TransactionID)[0]
	require.True(t, e.Delivered, "event %+v", e)
	require.Equal(t, 200, e.LastStatus(), "event %+v", e)
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
	require.Len(t, e.Attempts, 1+144, "%d attempts, delivered %v", len(e.Attempts), e.Delivered)
	require.False(t, e.Delivered, "%d attempts, delivered %v", len(e.Attempts), e.Delivered)
	require.Equal(t, 503, e.LastStatus(), "%d attempts, delivered %v", len(e.Attempts), e.Delivered)
	last := e.Attempts[len(e.Attempts)-1].At
	require.True(t, last == friday.Add(12*time.Hour), "last attempt at %v", last)
	srv.Advance(24 * time.Hour)
	flush(t, srv)
	n := len(srv.EventsFor(auth.TransactionID)[0].Attempts)
	require.Equal(t, 145, n, "%d attempts after the window", n)
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
	require.Len(t, e.Attempts, 3, "attempts %+v", e.Attempts)
	require.Equal(t, 0, e.Attempts[0].StatusCode, "attempts %+v", e.Attempts)
	require.NotEmpty(t, e.Attempts[0].Err, "attempts %+v", e.Attempts)
	require.False(t, e.Delivered, "attempts %+v", e.Attempts)
}

func TestEventWithoutURL(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	c.establish("nourl", "1.00")
	srv.Advance(time.Hour)
	flush(t, srv)
	evs := srv.Events()
	require.Len(t, evs, 1, "events %+v", evs)
	require.Empty(t, evs[0].URL, "events %+v", evs)
	require.Empty(t, evs[0].Attempts, "events %+v", evs)
	require.Equal(t, "Authorize", evs[0].Raw.Get("eventType"), "events %+v", evs)
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
	err := srv.Flush(ctx)
	require.True(t, err == context.Canceled, "Flush with a canceled context: %v", err)
	srv.Close() // must abort the attempt in flight and return
	srv.Close() // idempotent
	require.NoError(t, srv.Flush(context.Background()), "Flush after Close")
	srv.Advance(time.Hour) // must not wait for anything
	evs := srv.Events()
	require.Len(t, evs, 2, "events after Close %+v", evs)
	require.False(t, evs[0].Delivered, "events after Close %+v", evs)
	require.Empty(t, evs[1].Attempts, "events after Close %+v", evs)
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
	require.Len(t, urls, 1, "delivered to %v", urls)
	require.Equal(t, "https://merchant.example/events", urls[0], "delivered to %v", urls)
	require.True(t, srv.Events()[0].Delivered, "delivered to %v", urls)
}

func TestErrorString(t *testing.T) {
	e := &bankpaytest.Error{Status: 401, Code: 375, Message: "invalid requestSignature"}
	got := e.Error()
	require.Contains(t, got, "401", "Error() = %q", got)
	require.Contains(t, got, "375", "Error() = %q", got)
	require.Contains(t, got, "invalid requestSignature", "Error() = %q", got)
}

// By default the sandbox dials only loopback addresses: an event for any
// other notificationUrl is recorded as not delivered, with why, at once and
// without a DNS look-up; WithEventHandler receives in process every event
// that has a notificationUrl.
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

// WithEventHandler delivers only the events that have a notificationUrl
// (as its doc says): with none on the transaction or the merchant, the
// events are recorded and h receives none.
func TestEventHandlerNeedsNotificationURL(t *testing.T) {
	var n atomic.Int32
	srv := newServer(t, bankpaytest.WithEventHandler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { n.Add(1) })))
	newAPI(t, srv, srv.Credentials()).establish("no-url", "1.00")
	flush(t, srv)
	require.NotEmpty(t, srv.Events(), "recorded")
	assert.Zero(t, n.Load(), "delivered to the handler without a notificationUrl")
	for _, e := range srv.Events() {
		assert.False(t, e.Delivered)
		assert.Empty(t, e.URL)
	}
}
