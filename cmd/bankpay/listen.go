package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
)

// listenWait is how long one GET /sandbox/events of listen waits for a
// new event.
const listenWait = "10s"

// maxRetryInterval caps the doubling wait between listen's retries.
const maxRetryInterval = time.Minute

// deliveryLine is one delivery attempt as listen and events resend print
// it with -json: a stable shape, documented in the README.
type deliveryLine struct {
	At            time.Time `json:"at"`
	EventID       string    `json:"eventId"`
	EventType     string    `json:"eventType"`
	TransactionID string    `json:"transactionId"`
	To            string    `json:"to"`
	Attempt       int       `json:"attempt"`
	StatusCode    int       `json:"statusCode"`
	Error         string    `json:"error,omitempty"`
}

// runListen runs "listen -forward-to URL": the sandbox's new events,
// followed with GET /sandbox/events?after=…&wait=…, each POSTed to URL as
// the service delivers it (the recorded body, form-encoded, with its signed
// Authorization), in order, retried on anything but 200; a line per
// attempt. It ends when ctx is done (Ctrl-C) or the sandbox cannot be read.
// The sandbox still delivers each event to its notificationUrl too: an
// endpoint that is also -forward-to receives each event twice.
func runListen(ctx context.Context, e *env, args []string) error {
	fs := e.flags("listen")
	to := fs.String("forward-to", "", "the local endpoint to deliver to, such as http://localhost:8080/bankpay/events (required)")
	types := fs.String("type", "", "only these event types, comma-separated (default: all)")
	retries := fs.Int("retries", 5, "how many times a delivery not answered 200 is retried")
	interval := fs.Duration("retry-interval", time.Second, "the wait before the first retry, doubled for each next one (at most 1m)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch u, perr := url.Parse(*to); {
	case len(pos) != 0:
		return usagef("want no arguments, only flags")
	case *to == "":
		return usagef("-forward-to is required")
	case perr != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return usagef("-forward-to: want an http(s) URL")
	case *retries < 0 || *interval <= 0:
		return usagef("-retries must not be negative and -retry-interval must be positive")
	}
	want, err := parseEventTypes(*types)
	if err != nil {
		return err
	}
	ctl, err := e.sandbox("listen")
	if err != nil {
		return err
	}
	var out struct {
		Events []bankpaytest.Event `json:"events"`
	}
	// A listener's name: the sandbox waits for it to forward the events a
	// clock move fires before moving on (and forgets it 15 s after its last
	// request), so that the receiver sees each event at its time.
	name := listenerName()
	if err := ctl.call(ctx, http.MethodGet, "/events", url.Values{"listen": {name}}, &out); err != nil {
		return err
	}
	cursor := ""
	if n := len(out.Events); n > 0 {
		cursor = out.Events[n-1].EventID
	}
	defer func() {
		// Stop the listener, so that the sandbox's clock no longer waits for it.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = ctl.call(sctx, http.MethodDelete, "/listeners/"+name, nil, &struct{}{})
	}()
	fmt.Fprintf(e.stderr, "bankpay listen: forwarding the new events of %s to %s (Ctrl-C to stop)\n", ctl.base, *to)
	f := &forwarder{e: e, to: *to, retries: *retries, interval: *interval, http: &http.Client{Timeout: bankpaytest.DeliveryTimeout}}
	for {
		q := url.Values{"wait": {listenWait}, "listen": {name}}
		if cursor != "" {
			q.Set("after", cursor)
		}
		err := ctl.call(ctx, http.MethodGet, "/events", q, &out)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		for _, ev := range out.Events {
			cursor = ev.EventID
			if !want.has(ev.EventType) {
				continue
			}
			if !f.deliver(ctx, ev) {
				return nil
			}
		}
	}
}

// forwarder delivers events to the local endpoint.
type forwarder struct {
	e        *env
	to       string
	retries  int
	interval time.Duration
	http     *http.Client
}

// deliver POSTs ev until it is answered 200 or the retries run out, and
// reports false when ctx ended first.
func (f *forwarder) deliver(ctx context.Context, ev bankpaytest.Event) bool {
	wait := f.interval
	for attempt := 1; ; attempt++ {
		code, err := f.post(ctx, ev)
		if ctx.Err() != nil {
			return false
		}
		line := deliveryLine{At: time.Now().UTC(), EventID: ev.EventID, EventType: string(ev.EventType), TransactionID: ev.TransactionID,
			To: f.to, Attempt: attempt, StatusCode: code}
		if err != nil {
			line.Error = err.Error()
		}
		f.print(line)
		if code == http.StatusOK || attempt > f.retries {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, maxRetryInterval)
	}
}

// post sends ev as the service does and returns the status (0: none).
func (f *forwarder) post(ctx context.Context, ev bankpaytest.Event) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.to, strings.NewReader(ev.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", ev.Authorization)
	req.Header.Set("User-Agent", "bankpay-listen")
	resp, err := f.http.Do(req)
	if err != nil {
		return 0, redactURLError(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// print writes one delivery line: JSON with -json, else
// "TIME  EVENT_TYPE  EVENT_ID  transaction ID  -> STATUS".
func (f *forwarder) print(l deliveryLine) {
	if f.e.json {
		_ = f.e.printJSONLine(l)
		return
	}
	retry := ""
	if l.Attempt > 1 {
		retry = fmt.Sprintf(" (attempt %d)", l.Attempt)
	}
	fmt.Fprintf(f.e.stdout, "%s  %-36s  %s  transaction %s  -> %s%s\n", l.At.Format("2006-01-02T15:04:05Z07:00"), l.EventType,
		l.EventID, l.TransactionID, statusText(l.StatusCode, l.Error), retry)
}

// listenerName is a fresh name for one run of listen.
func listenerName() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
