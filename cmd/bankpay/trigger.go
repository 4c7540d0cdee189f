package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/bankpay/bankpay-go/bankpaytest"
)

// runTrigger runs "trigger EVENT [-transaction ID]": the sandbox runs the
// lifecycle that emits EVENT (POST /sandbox/trigger) on a new transaction
// or on ID, and the events it emitted are printed with their delivery.
func runTrigger(ctx context.Context, e *env, args []string) error {
	fs := e.flags("trigger")
	txn := fs.String("transaction", "", "act on this transaction instead of a new one (Process, Complete, Deny, Reverse, Dispute: a deposit or capture; Cancel; Refund: a completed capture)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !knownTrigger(pos[0]) {
		return usagef("want one event: %s", triggerEventNames)
	}
	ctl, err := e.sandbox("trigger")
	if err != nil {
		return err
	}
	q := url.Values{"event": {pos[0]}}
	if *txn != "" {
		q.Set("transactionId", *txn)
	}
	var out struct {
		TransactionID string              `json:"transactionId"`
		Events        []bankpaytest.Event `json:"events"`
	}
	if err := ctl.call(ctx, "POST", "/trigger", q, &out); err != nil {
		return err
	}
	return e.printEvents(out.Events)
}

// printEvents prints events as JSON (eventView) or as a table.
func (e *env) printEvents(events []bankpaytest.Event) error {
	if e.json {
		out := make([]eventView, len(events))
		for i, ev := range events {
			out[i] = viewOf(ev)
		}
		return e.printJSON(out)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "EVENT\tTYPE\tTRANSACTION\tCREATED\tATTEMPTS\tLAST STATUS\tDELIVERED")
	for _, ev := range events {
		v := viewOf(ev)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%t\n", v.EventID, v.EventType, v.TransactionID,
			v.CreatedAt.Format("2006-01-02T15:04:05Z07:00"), v.Attempts, v.LastStatus, v.Delivered)
	}
	return w.Flush()
}

// knownTrigger reports whether name is an event trigger makes the sandbox
// emit (any case).
func knownTrigger(name string) bool {
	for _, t := range bankpaytest.TriggerEvents {
		if strings.EqualFold(name, string(t)) {
			return true
		}
	}
	return false
}
