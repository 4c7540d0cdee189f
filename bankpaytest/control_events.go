package bankpaytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// listenerCatchUp is how long one clock move waits, at most, for the
// listeners to forward the events it fires.
const listenerCatchUp = 10 * time.Second

// listenerTTL is how long a listener counts after its last request.
const listenerTTL = 15 * time.Second

// listener is a program following merchant m's events (bankpay listen):
// it has handled every event before index next of s.st.events.
type listener struct {
	m    *merchant
	next int
	seen time.Time // the real time of its last request
}

// listen records that listener name of m has handled the events up to
// eventId after (all recorded so far when after is empty: it starts).
func (s *Server) listen(m *merchant, name, after string) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := len(s.st.events)
	if after != "" {
		next = -1
		for i, e := range s.st.events {
			if e.pub.EventID == after && e.pub.MerchantID == m.cfg.MerchantID {
				next = i + 1
			}
		}
		if next < 0 {
			return notFound("event")
		}
	}
	if s.listeners == nil {
		s.listeners = map[string]*listener{}
	}
	s.listeners[m.cfg.MerchantID+"/"+name] = &listener{m: m, next: next, seen: time.Now()}
	return nil
}

// controlUnlisten serves DELETE /sandbox/listeners/{name}: the listener
// stops (bankpay listen ending); clock moves no longer wait for it.
func (s *Server) controlUnlisten(_ *http.Request, _ []byte, m *merchant, name string) (any, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, m.cfg.MerchantID+"/"+name)
	return struct{}{}, nil
}

// awaitListeners lets the listeners forward the events recorded so far
// before the clock moves on, so that a receiver reading the clock
// (bankpay.WithWebhookClock) sees each event at its time: it waits, with
// s.mu released, while a live listener has an event of its merchant it has
// not handled, until the real time until. The caller holds s.mu.
func (s *Server) awaitListeners(until time.Time) {
	for s.listenerBehind() && time.Now().Before(until) && !s.st.closed {
		s.mu.Unlock()
		select {
		case <-s.ctx.Done():
		case <-time.After(eventsPoll):
		}
		s.mu.Lock()
	}
}

// listenerBehind reports whether a live listener has not handled an event
// of its merchant. The caller holds s.mu.
func (s *Server) listenerBehind() bool {
	for _, l := range s.listeners {
		if time.Since(l.seen) > listenerTTL {
			continue
		}
		for _, e := range s.st.events[min(l.next, len(s.st.events)):] {
			if e.pub.MerchantID == l.m.cfg.MerchantID {
				return true
			}
		}
	}
	return false
}

// maxEventsWait is the longest GET /sandbox/events?wait=… holds a request.
const maxEventsWait = 30 * time.Second

// eventsPoll is how often a waiting GET /sandbox/events looks for new events.
const eventsPoll = 20 * time.Millisecond

// controlEvents serves GET /sandbox/events: the merchant's events, oldest
// first, with filters transactionId, type (an event type), after (only the
// events recorded after the one with this eventId) and wait (a duration up
// to 30s: when nothing matches yet, wait that long for an event that does;
// how bankpay listen follows the sandbox).
func (s *Server) controlEvents(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	var wait time.Duration
	if w := q.Get("wait"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d < 0 || d > maxEventsWait {
			return nil, badRequest("wait must be a duration from 0 to 30s")
		}
		wait = d
	}
	f := eventFilter{txnID: q.Get("transactionId"), typ: models.EventType(q.Get("type")), after: q.Get("after")}
	if name := q.Get("listen"); name != "" {
		if err := s.listen(m, name, f.after); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	for {
		out, err := s.filterEvents(m, f)
		if err != nil || len(out) > 0 || wait == 0 {
			return struct {
				Events []Event `json:"events"`
			}{out}, err
		}
		select {
		case <-ctx.Done():
			return struct {
				Events []Event `json:"events"`
			}{out}, nil
		case <-s.ctx.Done():
			return nil, &Error{Status: http.StatusServiceUnavailable, Code: codeInternal, Message: "sandbox closing"}
		case <-time.After(eventsPoll):
		}
	}
}

// eventFilter selects events for GET /sandbox/events.
type eventFilter struct {
	txnID string
	typ   models.EventType
	after string // an eventId: only the events recorded after it
}

// filterEvents returns merchant m's events that f selects.
func (s *Server) filterEvents(m *merchant, f eventFilter) ([]Event, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := 0
	if f.after != "" {
		start = -1
		for i, e := range s.st.events {
			if e.pub.EventID == f.after && e.pub.MerchantID == m.cfg.MerchantID {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, notFound("event")
		}
	}
	out := []Event{}
	for _, e := range s.st.events[start:] {
		if e.pub.MerchantID == m.cfg.MerchantID && (f.txnID == "" || e.pub.TransactionID == f.txnID) &&
			(f.typ == "" || strings.EqualFold(string(e.pub.EventType), string(f.typ))) {
			out = append(out, e.snapshot())
		}
	}
	return out, nil
}

// resendResponse is the response of POST /sandbox/events/{id}/resend.
type resendResponse struct {
	// URL is where the event was sent.
	URL string `json:"url"`
	// StatusCode is the receiver's status, 0 when there was no response.
	StatusCode int `json:"statusCode"`
	// Err says why there was no response.
	Err   string `json:"error,omitempty"`
	Event Event  `json:"event"`
}

// controlResend serves POST /sandbox/events/{id}/resend[?to=URL]: the
// recorded event sent again, as it was (same body and Authorization), to
// URL or where it was delivered, at once; the attempt is recorded with the
// event's. The sandbox dials what Server dials (loopback only, unless
// WithAnyEventAddress); to= always dials, WithEventHandler or not, and only
// a loopback address unless WithResendToAnyAddress (400 otherwise, nothing
// dialled).
func (s *Server) controlResend(r *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	to := r.URL.Query().Get("to")
	if to != "" {
		u, err := url.Parse(to)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, badRequest("to must be an http or https URL")
		}
		if !s.anyResend && !isLoopbackHost(u.Hostname()) {
			return nil, badRequest("to must be a loopback address (127.0.0.1, [::1], localhost); " +
				"a sandbox started with WithResendToAnyAddress (bankpay-sandbox -resend-any-address) sends anywhere")
		}
	}
	s.mu.Lock()
	var e *event
	for _, ev := range s.st.events {
		if ev.pub.EventID == id && ev.pub.MerchantID == m.cfg.MerchantID {
			e = ev
		}
	}
	if e == nil {
		s.mu.Unlock()
		return nil, notFound("event")
	}
	target, body, auth, at := e.pub.URL, e.pub.Body, e.pub.Authorization, s.st.now
	s.mu.Unlock()
	var code int
	var err error
	switch {
	case to != "":
		target = to
		var req *http.Request
		if req, err = notification(r.Context(), to, body, auth); err == nil {
			code, err = s.dial(req, s.anyHost || s.anyResend) // bypasses WithEventHandler
		}
	case target == "":
		return nil, badRequest("the event has no notification URL: give the query parameter to=URL")
	default:
		code, err = s.post(target, body, auth)
	}
	a := Attempt{At: at, StatusCode: code}
	if err != nil {
		a.Err = err.Error()
	}
	s.mu.Lock()
	e.pub.Attempts = append(e.pub.Attempts, a)
	if code == http.StatusOK && to == "" {
		e.pub.Delivered = true
	}
	out := resendResponse{URL: target, StatusCode: code, Err: a.Err, Event: e.snapshot()}
	s.mu.Unlock()
	return out, nil
}
