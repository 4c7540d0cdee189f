package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
)

// runEvents runs "events list" and "events resend EVENT_ID [-to URL]" on
// the sandbox's recorded events.
func runEvents(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: list or resend")
	}
	switch args[0] {
	case "list":
		return listEvents(ctx, e, args[1:])
	case "resend":
		return resendEvent(ctx, e, args[1:])
	}
	return usagef("unknown subcommand %q: want list or resend", args[0])
}

// listEvents prints the sandbox's events, oldest first (GET /sandbox/events).
func listEvents(ctx context.Context, e *env, args []string) error {
	fs := e.flags("events list")
	txn := fs.String("transaction", "", "only the events of this transaction")
	typ := fs.String("type", "", "only the events of this type (Complete, Deny, …)")
	limit := fs.Int("limit", 0, "print only the last N (0: all)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *limit < 0 {
		return usagef("want no arguments, only flags (-limit not negative)")
	}
	ctl, err := e.sandbox("events list")
	if err != nil {
		return err
	}
	q := url.Values{}
	if *txn != "" {
		q.Set("transactionId", *txn)
	}
	if *typ != "" {
		q.Set("type", *typ)
	}
	var out struct {
		Events []bankpaytest.Event `json:"events"`
	}
	if err := ctl.call(ctx, "GET", "/events", q, &out); err != nil {
		return err
	}
	evs := out.Events
	if *limit > 0 && len(evs) > *limit {
		evs = evs[len(evs)-*limit:]
	}
	return e.printEvents(evs)
}

// resendEvent sends a recorded event again, as recorded (POST
// /sandbox/events/{id}/resend), to -to or where it was delivered; a
// response other than 200 fails the command.
func resendEvent(ctx context.Context, e *env, args []string) error {
	fs := e.flags("events resend")
	to := fs.String("to", "", "send it to this URL (default: the event's notification URL)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one event id")
	}
	ctl, err := e.sandbox("events resend")
	if err != nil {
		return err
	}
	q := url.Values{}
	if *to != "" {
		q.Set("to", *to)
	}
	var out struct {
		URL        string            `json:"url"`
		StatusCode int               `json:"statusCode"`
		Err        string            `json:"error"`
		Event      bankpaytest.Event `json:"event"`
	}
	if err := ctl.call(ctx, "POST", "/events/"+url.PathEscape(pos[0])+"/resend", q, &out); err != nil {
		return err
	}
	if e.json {
		l := deliveryLine{At: time.Now().UTC(), EventID: out.Event.EventID, EventType: string(out.Event.EventType),
			TransactionID: out.Event.TransactionID, To: out.URL, Attempt: 1, StatusCode: out.StatusCode, Error: out.Err}
		if err := e.printJSON(l); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s %s %s -> %s: %s\n", out.Event.EventID, out.Event.EventType, out.Event.TransactionID, out.URL, statusText(out.StatusCode, out.Err))
	}
	if out.StatusCode != http.StatusOK {
		return fmt.Errorf("event %s not acknowledged: %s", out.Event.EventID, statusText(out.StatusCode, out.Err))
	}
	return nil
}

// statusText is a delivery's outcome: the status code, or why there was none.
func statusText(code int, errText string) string {
	if code == 0 {
		return "no response (" + errText + ")"
	}
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}
