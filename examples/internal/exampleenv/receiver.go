package exampleenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// EventsPath is where the receiver's webhook handler is mounted.
const EventsPath = "/bankpay/events"

// Receiver is the merchant's notification endpoint: a webhook handler built
// with bankpay.NewWebhookHandler (signature checked, each eventId processed
// once) on a loopback server. The embedded sandbox delivers to it; a real
// service cannot reach a loopback address, so against one URL is empty and
// events go to the address registered for the merchant.
type Receiver struct {
	// URL is the notificationUrl to put in establish data ("" against a
	// real service).
	URL string

	env     *Env
	srv     *httptest.Server
	mu      sync.Mutex
	events  []*bankpay.Event
	printed int
}

// StartReceiver starts the notification endpoint. Env.Flush and the clock
// steps print the events it received.
func (e *Env) StartReceiver() *Receiver {
	r := &Receiver{env: e}
	e.receivers = append(e.receivers, r)
	if e.Sandbox == nil {
		e.Note("events go to the notification URL registered for merchant %s (a loopback receiver cannot be reached by the service)", e.Creds.MerchantID)
		return r
	}
	h := bankpay.NewWebhookHandler(e.Creds, func(_ context.Context, ev *bankpay.Event) error {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
		return nil // store and respond 200 at once; work on the event later
	},
		// Each event once (the handler de-duplicates in memory). Judge an
		// event's age by the sandbox's clock, which the examples move.
		bankpay.WithWebhookClock(e.Sandbox.Now),
	)
	mux := http.NewServeMux()
	mux.Handle("POST "+EventsPath, h)
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL + EventsPath
	return r
}

// Events returns the events received so far, in order of arrival.
func (r *Receiver) Events() []*bankpay.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*bankpay.Event(nil), r.events...)
}

// EventsFor returns the events received for transaction id.
func (r *Receiver) EventsFor(id string) []*bankpay.Event {
	var out []*bankpay.Event
	for _, ev := range r.Events() {
		if ev.TransactionID == id {
			out = append(out, ev)
		}
	}
	return out
}

// Has reports whether an event of type t arrived for transaction id.
func (r *Receiver) Has(id string, t models.EventType) bool {
	for _, ev := range r.EventsFor(id) {
		if ev.EventType == t {
			return true
		}
	}
	return false
}

func (r *Receiver) printNew() {
	r.mu.Lock()
	fresh := r.events[r.printed:]
	r.printed = len(r.events)
	r.mu.Unlock()
	for _, ev := range fresh {
		r.env.Printf("   <= event %s\n", DescribeEvent(ev))
	}
}

func (r *Receiver) close() {
	if r.srv != nil {
		r.srv.Close()
	}
}

// DescribeEvent is a one-line summary of a verified event.
func DescribeEvent(ev *bankpay.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (id %s) for transaction %s", ev.EventType, ev.EventID, ev.TransactionID)
	if ev.MerchantReference != "" {
		fmt.Fprintf(&b, " [%s]", ev.MerchantReference)
	}
	switch {
	case ev.Transaction != nil && !ev.Transaction.HasStatus: // Dispute
		fmt.Fprintf(&b, ": returnType %s, amountReturned %s", ev.Raw.Get("returnType"), ev.Raw.Get("amountReturned"))
	case ev.Transaction != nil:
		fmt.Fprintf(&b, ": status %s", ev.Transaction.Status)
		if ev.Transaction.ProviderStatus != "" {
			fmt.Fprintf(&b, ", provider %s %s", ev.Transaction.ProviderStatus, ev.Transaction.ProviderStatusMessage)
		}
	case ev.EventType == models.EventIdentityVerificationDataRetrieved:
		d := ev.Identity
		fmt.Fprintf(&b, ": %s from %q", d.ProviderReportStatus, d.ProviderUsedForValidation)
	case ev.EventType == models.EventCustomerIdentityVerified:
		fmt.Fprintf(&b, ": identity verified %s, KYC result %s", ev.Identity.IdentityVerified, ev.Identity.KYCResult)
	}
	if !ev.CreatedAt.IsZero() {
		fmt.Fprintf(&b, " at %s", ev.CreatedAt.Format("Mon 15:04:05"))
	}
	return b.String()
}

// DescribeEstablished is a one-line summary of Establish's answer: in the
// spec's shape a transaction (DescribeTxn); in the OpenAPI's, EstablishData,
// which carries the authorization's transactionId and url but no type or
// status: those are Transactions.Get's, and are not shown as if known.
func DescribeEstablished(t *models.Transaction) string {
	if t == nil || t.Status != models.StatusUnknown {
		return DescribeTxn(t)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "authorization %s established", t.TransactionID)
	if t.Amount != "" {
		fmt.Fprintf(&b, ", %s %s", t.Amount, t.Currency)
	}
	if t.MerchantReference != "" {
		fmt.Fprintf(&b, ", ref %s", t.MerchantReference)
	}
	fmt.Fprintf(&b, ", url %s (its type and status: Transactions.Get)", t.URL)
	return b.String()
}

// DescribeTxn is a one-line summary of a transaction.
func DescribeTxn(t *models.Transaction) string {
	if t == nil {
		return "<nil transaction>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "transaction %s: %s, status %s (%d)", t.TransactionID, t.TransactionType, t.Status, int(t.Status))
	if t.StatusMessage != "" && t.StatusMessage != t.Status.String() {
		// The Disbursement establish response shows status 0 with the
		// message Authorized.
		fmt.Fprintf(&b, ", message %s", t.StatusMessage)
	}
	if t.Amount != "" {
		fmt.Fprintf(&b, ", %s %s", t.Amount, t.Currency)
	}
	if t.MerchantReference != "" {
		fmt.Fprintf(&b, ", ref %s", t.MerchantReference)
	}
	if t.OriginalTransactionID != "" {
		fmt.Fprintf(&b, ", from %s", t.OriginalTransactionID)
	}
	if p := t.Payment; p != nil {
		if p.PaymentType != 0 {
			fmt.Fprintf(&b, ", payment %s", p.PaymentType)
		}
		if a := p.Account; a != nil && a.AccountNumber != "" {
			fmt.Fprintf(&b, ", account ...%s", a.AccountNumber)
		}
	}
	if t.PaymentProcessorType != "" {
		fmt.Fprintf(&b, ", processor %s", t.PaymentProcessorType)
	}
	return b.String()
}

// EventTypes lists the types of events in arrival order, for a summary.
func EventTypes(evs []*bankpay.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.EventType)
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
