package bankpaytest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// DeliveryTimeout is the timeout of the default delivery client: the
// service wants a 200 within 3 seconds.
const DeliveryTimeout = 3 * time.Second

// delivery is a queued attempt: the event and the clock time it is due.
type delivery struct {
	e  *event
	at time.Time
}

// enqueue queues a delivery attempt of e, due now. The caller holds s.mu.
func (s *Server) enqueue(e *event) {
	e.queued++
	s.queue = append(s.queue, delivery{e, s.st.now})
	s.pending++
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// deliverLoop is the deliverer: it POSTs queued attempts one at a time, in
// order, until Close.
func (s *Server) deliverLoop() {
	defer s.wg.Done()
	for {
		if s.ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		e, at := s.queue[0].e, s.queue[0].at
		s.queue[0] = delivery{}
		s.queue = s.queue[1:]
		target, body, auth := e.pub.URL, e.pub.Body, e.pub.Authorization
		s.mu.Unlock()

		code, err := s.post(target, body, auth)

		s.mu.Lock()
		a := Attempt{At: at, StatusCode: code}
		if err != nil {
			a.Err = err.Error()
		}
		e.pub.Attempts = append(e.pub.Attempts, a)
		if code == http.StatusOK {
			e.pub.Delivered = true
		}
		e.queued--
		s.pending--
		if s.pending == 0 && s.idle != nil {
			close(s.idle)
			s.idle = nil
		}
		s.mu.Unlock()
	}
}

// post sends one notification and returns the receiver's status: to the
// WithEventHandler handler in process, else over HTTP to a loopback address
// (any address with WithAnyEventAddress); any other address is not dialled.
func (s *Server) post(target, body, auth string) (int, error) {
	req, err := notification(s.ctx, target, body, auth)
	if err != nil {
		return 0, err
	}
	if s.handler != nil {
		req.RequestURI, req.RemoteAddr = req.URL.RequestURI(), "127.0.0.1:0"
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		return rec.Code, nil
	}
	return s.dial(req, s.anyHost)
}

// notification is the POST of one notification to target, as the service
// sends it: a form body signed in the Authorization header.
func notification(ctx context.Context, target, body, auth string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", auth)
	req.Header.Set("User-Agent", "bankpay-sandbox")
	return req, nil
}

// dial sends req over HTTP, to a loopback address unless anyHost, and
// returns the receiver's status.
func (s *Server) dial(req *http.Request, anyHost bool) (int, error) {
	if !anyHost && !isLoopbackHost(req.URL.Hostname()) {
		return 0, fmt.Errorf("not delivered: %s is not a loopback address; bankpaytest dials only loopback (WithEventHandler delivers in process, WithAnyEventAddress anywhere)", req.URL.Host)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// Flush blocks until every queued delivery attempt has been made (its
// response recorded), ctx is done, or the server is closed. It does not move
// the clock, so re-sends not yet due are not waited for. Do not call it
// from a notification receiver the sandbox is delivering to.
func (s *Server) Flush(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return s.waitIdle(ctx)
}

// waitIdle waits until no attempt is queued or in flight.
func (s *Server) waitIdle(ctx context.Context) error {
	for {
		s.mu.Lock()
		ch, closed := s.idle, s.st.closed
		s.mu.Unlock()
		if ch == nil || closed {
			return nil
		}
		select {
		case <-ch:
		case <-s.ctx.Done():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// isLoopbackHost reports whether host is a loopback IP or "localhost"; no
// name is looked up.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
