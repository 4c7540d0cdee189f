package bankpaytest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

type triggered struct {
	TransactionID string              `json:"transactionId"`
	Events        []bankpaytest.Event `json:"events"`
}

// TestControlTrigger: POST /sandbox/trigger emits each event kind by
// running its lifecycle on a new transaction, delivered signed to the
// merchant's notificationUrl, where a webhook handler accepts it.
func TestControlTrigger(t *testing.T) {
	var got atomic.Int32
	var h http.Handler
	srv := newServer(t, bankpaytest.WithEventHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })),
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: "http://127.0.0.1:1/events"}))
	h = bankpay.NewWebhookHandler(srv.Credentials(), func(context.Context, *bankpay.Event) error { got.Add(1); return nil },
		bankpay.WithWebhookClock(srv.Now))
	c := newAPI(t, srv, srv.Credentials())
	for _, typ := range bankpaytest.TriggerEvents {
		t.Run(string(typ), func(t *testing.T) {
			var out triggered
			c.control(http.MethodPost, "/trigger?event="+string(typ), nil).wantOK(t, &out)
			require.NotEmpty(t, out.Events, "%+v", out)
			for _, e := range out.Events {
				assert.Equal(t, typ, e.EventType)
				assert.Equal(t, http.StatusOK, e.LastStatus(), "%+v", e.Attempts)
			}
			_, ok := srv.Transaction(out.TransactionID)
			assert.True(t, ok, "the transaction %s exists", out.TransactionID)
		})
	}
	assert.Positive(t, got.Load())
	c.control(http.MethodPost, "/trigger?event=Nope", nil).wantError(t, 400, 200)
	c.control(http.MethodPost, "/trigger?event=Authorize&transactionId=100000000000404", nil).wantError(t, 404, 200)
}

// TestControlTriggerGivenTransaction: Deny, then Complete of a given
// deposit: the first denies it, the second cannot complete it.
func TestControlTriggerGivenTransaction(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	var first triggered
	c.control(http.MethodPost, "/trigger?event=Process", nil).wantOK(t, &first)
	var done triggered
	c.control(http.MethodPost, "/trigger?event=Complete&transactionId="+first.TransactionID, nil).wantOK(t, &done)
	assert.Equal(t, first.TransactionID, done.TransactionID)
	txn, _ := srv.Transaction(first.TransactionID)
	assert.Equal(t, models.StatusCompleted, txn.Status)
	c.control(http.MethodPost, "/trigger?event=Deny&transactionId="+first.TransactionID, nil).wantError(t, 400, 200)
	var rev triggered
	c.control(http.MethodPost, "/trigger?event=Reverse&transactionId="+first.TransactionID, nil).wantOK(t, &rev)
	require.Len(t, rev.Events, 1)
	assert.Equal(t, models.EventReverse, rev.Events[0].EventType)
}

// TestControlEventsFollowAndResend: GET /sandbox/events?after=…&wait=…
// returns only newer events (waiting for one), and POST
// /sandbox/events/{id}/resend sends an event again, as recorded, to to=URL.
func TestControlEventsFollowAndResend(t *testing.T) {
	t.Parallel() // waits 150 ms on the real clock: beside the other waiting tests (clock_test.go)
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	var first triggered
	c.control(http.MethodPost, "/trigger?event=Authorize", nil).wantOK(t, &first)
	last := first.Events[len(first.Events)-1].EventID
	var list struct{ Events []bankpaytest.Event }
	c.control(http.MethodGet, "/events?after="+last, nil).wantOK(t, &list)
	assert.Empty(t, list.Events)
	started := time.Now()
	done := make(chan triggered, 1)
	go func() {
		var d triggered
		time.Sleep(150 * time.Millisecond)
		c.control(http.MethodPost, "/trigger?event=Cancel", nil).wantOK(t, &d)
		done <- d
	}()
	c.control(http.MethodGet, "/events?wait=5s&after="+last, nil).wantOK(t, &list)
	require.NotEmpty(t, list.Events, "a new event within the wait")
	assert.GreaterOrEqual(t, time.Since(started), 100*time.Millisecond, "it waited")
	<-done
	c.control(http.MethodGet, "/events?type=Cancel", nil).wantOK(t, &list)
	require.NotEmpty(t, list.Events)
	for _, e := range list.Events {
		assert.Equal(t, models.EventCancel, e.EventType)
	}
	c.control(http.MethodGet, "/events?after=404", nil).wantError(t, 404, 200)
	c.control(http.MethodGet, "/events?wait=1h", nil).wantError(t, 400, 200)

	var mu sync.Mutex
	var seen []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusTeapot)
	}))
	defer rcv.Close()
	ev := list.Events[0]
	var rs struct {
		URL        string            `json:"url"`
		StatusCode int               `json:"statusCode"`
		Event      bankpaytest.Event `json:"event"`
	}
	c.control(http.MethodPost, "/events/"+ev.EventID+"/resend?to="+url.QueryEscape(rcv.URL), nil).wantOK(t, &rs)
	assert.Equal(t, http.StatusTeapot, rs.StatusCode)
	assert.Equal(t, rcv.URL, rs.URL)
	mu.Lock()
	assert.Equal(t, []string{ev.Authorization}, seen, "sent as recorded")
	mu.Unlock()
	assert.Len(t, rs.Event.Attempts, len(ev.Attempts)+1, "the attempt recorded")
	c.control(http.MethodPost, "/events/404/resend?to="+url.QueryEscape(rcv.URL), nil).wantError(t, 404, 200)
	c.control(http.MethodPost, "/events/"+ev.EventID+"/resend?to=ftp://x", nil).wantError(t, 400, 200)
}

// TestControlListenerHoldsTheClock: while a listener has not handled the
// events a clock move fires, the move waits (the clock reads their time),
// and goes on once it has; a stopped listener is not waited for.
func TestControlListenerHoldsTheClock(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	var list struct{ Events []bankpaytest.Event }
	c.control(http.MethodGet, "/events?listen=L", nil).wantOK(t, &list)
	done := make(chan triggered, 1)
	go func() {
		var d triggered
		c.control(http.MethodPost, "/trigger?event=Complete", nil).wantOK(t, &d)
		done <- d
	}()
	after, handled := "", 0
	for handled < 3 { // Authorize, Process, then Complete
		q := "/events?listen=L&wait=5s"
		if after != "" {
			q += "&after=" + after
		}
		c.control(http.MethodGet, q, nil).wantOK(t, &list)
		require.NotEmpty(t, list.Events)
		for _, e := range list.Events {
			var now nowResponse
			c.control(http.MethodGet, "/now", nil).wantOK(t, &now)
			assert.WithinDuration(t, e.CreatedAt, now.Now.Time(), time.Second, "%s read at its time", e.EventType)
			after = e.EventID
			handled++
		}
		select {
		case <-done:
			t.Fatalf("the clock moved on before the listener handled %d events", handled)
		default:
		}
	}
	c.control(http.MethodGet, "/events?listen=L&after="+after, nil).wantOK(t, &list)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the trigger did not end once the listener caught up")
	}
	c.control(http.MethodDelete, "/listeners/L", nil).wantOK(t, nil)
	start := time.Now()
	c.control(http.MethodPost, "/trigger?event=Complete", nil).wantOK(t, nil)
	assert.Less(t, time.Since(start), 2*time.Second, "a stopped listener is not waited for")
}

// hostRecorder is a delivery transport that records the hosts it is asked
// to dial and answers 204 without dialling.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.URL.Host)
	h.mu.Unlock()
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

func (h *hostRecorder) dialled() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.hosts...)
}

// TestControlResendOnlyToLoopback: resend?to=URL relays the merchant's
// signed event only to a loopback address by default, even where the
// sandbox delivers anywhere (as cmd/bankpay-sandbox does): another host
// answers 400 and nothing is dialled or recorded; WithResendToAnyAddress
// allows it.
func TestControlResendOnlyToLoopback(t *testing.T) {
	for _, any := range []bool{false, true} {
		rec := &hostRecorder{}
		opts := []bankpaytest.Option{bankpaytest.WithAnyEventAddress(), bankpaytest.WithDeliveryClient(&http.Client{Transport: rec})}
		if any {
			opts = append(opts, bankpaytest.WithResendToAnyAddress())
		}
		srv := newServer(t, opts...)
		c := newAPI(t, srv, srv.Credentials())
		var tr triggered
		c.control(http.MethodPost, "/trigger?event=Authorize", nil).wantOK(t, &tr)
		ev := tr.Events[len(tr.Events)-1]
		require.Empty(t, ev.URL, "no notification URL: only the resends below are dialled")
		remote := []string{"http://receiver.example/hook", "https://192.0.2.7/hook", "http://[2001:db8::1]:8080/hook",
			"http://127.0.0.1.nip.io/hook", "http://localhost.example/hook", "http://0.0.0.0/hook"}
		for _, to := range remote {
			r := c.control(http.MethodPost, "/events/"+ev.EventID+"/resend?to="+url.QueryEscape(to), nil)
			if !any {
				r.wantError(t, http.StatusBadRequest, 200)
				continue
			}
			var rs struct {
				URL        string `json:"url"`
				StatusCode int    `json:"statusCode"`
			}
			r.wantOK(t, &rs)
			assert.Equal(t, http.StatusNoContent, rs.StatusCode, to)
		}
		var list struct{ Events []bankpaytest.Event }
		c.control(http.MethodGet, "/events", nil).wantOK(t, &list)
		var attempts int
		for _, e := range list.Events {
			if e.EventID == ev.EventID {
				attempts = len(e.Attempts)
			}
		}
		dialled := rec.dialled()
		if !any {
			assert.Empty(t, dialled, "a resend to another host was dialled")
			assert.Equal(t, len(ev.Attempts), attempts, "a refused resend is no attempt")
		} else {
			assert.Len(t, dialled, len(remote), "WithResendToAnyAddress: every host dialled")
			assert.Equal(t, len(ev.Attempts)+len(remote), attempts)
		}
		for _, to := range []string{"http://127.0.0.1:1/hook", "http://localhost:1/hook", "http://[::1]:1/hook", "http://127.9.9.9/hook"} {
			var rs struct{ StatusCode int }
			c.control(http.MethodPost, "/events/"+ev.EventID+"/resend?to="+url.QueryEscape(to), nil).wantOK(t, &rs)
			assert.Equal(t, http.StatusNoContent, rs.StatusCode, "loopback %s: sent", to)
		}
	}
}
