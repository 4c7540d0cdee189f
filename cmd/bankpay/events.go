package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
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
	typ := fs.String("type", "", "only the events of these types, comma-separated, any case (Complete or Completed, Deny, …)")
	limit := fs.Int("limit", 0, "print only the last N (0: all)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *limit < 0 {
		return usagef("want no arguments, only flags (-limit not negative)")
	}
	want, err := parseEventTypes(*typ)
	if err != nil {
		return err
	}
	ctl, err := e.sandbox("events list")
	if err != nil {
		return err
	}
	q := url.Values{}
	if *txn != "" {
		q.Set("transactionId", *txn)
	}
	var out struct {
		Events []bankpaytest.Event `json:"events"`
	}
	if err := ctl.call(ctx, "GET", "/events", q, &out); err != nil {
		return err
	}
	var evs []bankpaytest.Event
	for _, ev := range out.Events {
		if want.has(ev.EventType) {
			evs = append(evs, ev)
		}
	}
	if *limit > 0 && len(evs) > *limit {
		evs = evs[len(evs)-*limit:]
	}
	return e.printEvents(evs)
}

// eventTypes is the set of event types a -type flag keeps, in canonical
// spelling (wire.CanonicalEventType); nil keeps every event.
type eventTypes map[models.EventType]bool

// has reports whether the set keeps an event of type t.
func (s eventTypes) has(t models.EventType) bool {
	return s == nil || s[wire.CanonicalEventType(t)]
}

// knownEventTypes are the event types -type takes.
var knownEventTypes = []models.EventType{models.EventEstablish, models.EventAuthorize, models.EventDataReady, models.EventUpdate,
	models.EventProcess, models.EventComplete, models.EventCancel, models.EventExpire, models.EventFailed, models.EventDeny,
	models.EventDispute, models.EventReconcile, models.EventRefund, models.EventReverse, models.EventRefresh,
	models.EventVerifyCustomer, models.EventConsentRevoked, models.EventIdentityVerificationDataRetrieved,
	models.EventCustomerIdentityVerified}

// parseEventTypes reads a comma-separated -type: each an event type in any
// case, or its other spelling (Completed, Cancelled, Expired). An unknown
// one is a usage error naming it (exit 2), not a filter that keeps nothing.
func parseEventTypes(list string) (eventTypes, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	set := eventTypes{}
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		found := false
		for _, t := range slices.Concat(knownEventTypes, []models.EventType{"Completed", "Cancelled", "Expired"}) {
			if strings.EqualFold(part, string(t)) {
				set[wire.CanonicalEventType(t)], found = true, true
				break
			}
		}
		if !found {
			names := make([]string, len(knownEventTypes))
			for i, t := range knownEventTypes {
				names[i] = string(t)
			}
			return nil, usagef("-type: unknown event type %q: want %s (comma-separated, any case)", part, strings.Join(names, ", "))
		}
	}
	return set, nil
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
		if *to == "" && strings.Contains(err.Error(), "has no notification URL") {
			return usagef("event %s has no notification URL to send it to: give -to URL", pos[0])
		}
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
