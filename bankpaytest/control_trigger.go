package bankpaytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// TriggerEvents are the event types POST /sandbox/trigger?event=… makes
// the sandbox emit, each by running the lifecycle that produces it.
var TriggerEvents = []models.EventType{
	models.EventAuthorize, models.EventProcess, models.EventComplete, models.EventDeny, models.EventReverse,
	models.EventCancel, models.EventRefund, models.EventDispute,
	models.EventIdentityVerificationDataRetrieved, models.EventCustomerIdentityVerified,
}

// triggerResponse is the response of POST /sandbox/trigger: the
// transaction the events are about and the events of the asked type the
// lifecycle emitted, with their delivery attempts.
type triggerResponse struct {
	TransactionID string  `json:"transactionId"`
	Events        []Event `json:"events"`
}

// trigger runs one lifecycle for merchant m through the API (its own
// client) and the test hooks.
type trigger struct {
	s   *Server
	c   *bankpay.Client
	m   *merchant
	ids map[string]bool // the transactions it made or acted on
}

// controlTrigger serves POST /sandbox/trigger?event=TYPE[&transactionId=ID]:
// the lifecycle that emits TYPE, on a new transaction or on ID (Process,
// Complete, Deny, Reverse, Dispute: a deposit or capture; Cancel: an
// authorization or a movement not yet processed; Refund: a completed
// capture). The clock is moved as the lifecycle needs (Complete: 3 banking
// days).
func (s *Server) controlTrigger(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	typ, ok := triggerType(q.Get("event"))
	if !ok {
		return nil, badRequest("event must be one of %s", triggerNames())
	}
	s.mu.Lock()
	creds, start := m.cfg.Credentials, len(s.st.events)
	s.mu.Unlock()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(s.URL))
	if err != nil {
		return nil, badRequest("%v", err)
	}
	tr := &trigger{s: s, c: c, m: m, ids: map[string]bool{}}
	ctx := r.Context()
	id, err := tr.run(ctx, typ, q.Get("transactionId"))
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		var ae *bankpay.APIError
		if errors.As(err, &ae) {
			return nil, &Error{Status: ae.StatusCode, Code: ae.Code, Message: strings.TrimPrefix(err.Error(), "bankpay: ")}
		}
		return nil, badRequest("%s", strings.TrimPrefix(err.Error(), "bankpaytest: "))
	}
	_ = s.Flush(ctx)
	out := triggerResponse{TransactionID: id, Events: tr.events(start, typ)}
	if len(out.Events) == 0 {
		return nil, &Error{Status: http.StatusConflict, Code: codeInvalidParameter, Message: fmt.Sprintf("transaction %s emitted no %s event", id, typ)}
	}
	return out, nil
}

func triggerType(name string) (models.EventType, bool) {
	for _, t := range TriggerEvents {
		if strings.EqualFold(name, string(t)) {
			return t, true
		}
	}
	return "", false
}

func triggerNames() string {
	names := make([]string, len(TriggerEvents))
	for i, t := range TriggerEvents {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// events returns the events of type typ recorded since index start for the
// transactions tr made or acted on.
func (tr *trigger) events(start int, typ models.EventType) []Event {
	tr.s.mu.Lock()
	defer tr.s.mu.Unlock()
	out := []Event{}
	for _, e := range tr.s.st.events[start:] {
		if e.pub.EventType == typ && tr.ids[e.pub.TransactionID] && e.pub.MerchantID == tr.m.cfg.MerchantID {
			out = append(out, e.snapshot())
		}
	}
	return out
}

// run runs the lifecycle of typ and returns the transaction its event is
// about.
func (tr *trigger) run(ctx context.Context, typ models.EventType, id string) (string, error) {
	if id != "" {
		if err := tr.own(id); err != nil {
			return "", err
		}
	}
	var err error
	switch typ {
	case models.EventAuthorize:
		if id != "" {
			return "", badRequest("an Authorize event is triggered on a new authorization: no transactionId")
		}
		return tr.payment(false)
	case models.EventIdentityVerificationDataRetrieved, models.EventCustomerIdentityVerified:
		if id != "" {
			return "", badRequest("identity events are triggered on a new authorization: no transactionId")
		}
		if id, err = tr.payment(true); err == nil {
			tr.s.mu.Lock()
			steps := len(tr.s.st.providers) + 1
			tr.s.mu.Unlock()
			tr.s.Advance(time.Duration(steps) * IdentityStep)
		}
		return id, err
	case models.EventCancel:
		if id == "" {
			id, err = tr.payment(false)
		}
		if err == nil {
			_, err = tr.c.Transactions.Cancel(ctx, id, &bankpay.CancelParams{Message: "bankpay trigger"})
		}
		return id, err
	case models.EventRefund:
		if id == "" {
			id, err = tr.completedCapture(ctx)
		}
		if err == nil {
			_, err = tr.c.Transactions.Refund(ctx, id, &bankpay.RefundParams{MerchantReference: tr.ref("refund")})
		}
		return id, err
	case models.EventDispute:
		if id == "" {
			id, err = tr.completedCapture(ctx)
		}
		if err == nil {
			err = tr.s.Dispute(id)
		}
		return id, err
	}
	return tr.movement(ctx, typ, id)
}

// movement runs the lifecycle of a deposit (a new one, or id) up to typ:
// Process, Complete, Deny or Reverse.
func (tr *trigger) movement(ctx context.Context, typ models.EventType, id string) (string, error) {
	var err error
	if id == "" {
		if id, err = tr.deposit(ctx); err != nil {
			return "", err
		}
	}
	switch typ {
	case models.EventProcess:
		tr.s.Advance(time.Second)
	case models.EventComplete:
		tr.complete(id)
	case models.EventDeny:
		err = tr.s.Deny(id)
	case models.EventReverse:
		tr.complete(id)
		err = tr.s.Reverse(id)
	}
	return id, err
}

// own checks that id is one of the merchant's transactions.
func (tr *trigger) own(id string) error {
	tr.s.mu.Lock()
	defer tr.s.mu.Unlock()
	if _, err := tr.s.lookup(tr.m, id); err != nil {
		return err
	}
	tr.ids[id] = true
	return nil
}

// ref is a fresh merchantReference.
func (tr *trigger) ref(kind string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "trigger-" + kind + "-" + hex.EncodeToString(b)
}

// payment is a new Deferred authorization the user authorized (with an
// identity check when identity).
func (tr *trigger) payment(identity bool) (string, error) {
	d := models.EstablishData{Currency: models.USD, Amount: "100.00", MerchantReference: tr.ref("payment"),
		PaymentType: models.PaymentTypeDeferred, Description: "bankpay trigger",
		ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Address1: "1 Main St", City: "Austin",
			State: "TX", Zip: "73301", Country: "US"}}}
	if identity {
		d.KYCType = models.KYCTypeIdentity
	}
	if err := tr.c.SignEstablishData(&d); err != nil {
		return "", err
	}
	_, t, err := tr.s.Authorize(d, OutcomeAuthorize)
	if err != nil {
		return "", err
	}
	tr.ids[t.TransactionID] = true
	return t.TransactionID, nil
}

// deposit is a new deposit from a new Disbursement authorization, not yet
// processed.
func (tr *trigger) deposit(ctx context.Context) (string, error) {
	auth, err := tr.c.Transactions.Establish(ctx, &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: tr.ref("payout"),
		Description: "bankpay trigger", Account: &models.Account{AccountNumber: AccountVerified, RoutingNumber: SandboxRoutingNumber,
			NameOnAccount: "Jane Doe", Type: 1}})
	if err != nil {
		return "", err
	}
	dep, err := tr.c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: tr.ref("deposit"), Amount: "10.00"})
	if err != nil {
		return "", err
	}
	tr.ids[auth.TransactionID], tr.ids[dep.TransactionID] = true, true
	return dep.TransactionID, nil
}

// completedCapture is a new capture of a new payment, completed.
func (tr *trigger) completedCapture(ctx context.Context) (string, error) {
	auth, err := tr.payment(false)
	if err != nil {
		return "", err
	}
	var token string
	for _, e := range tr.s.EventsFor(auth) {
		if e.EventType == models.EventAuthorize {
			token = e.Raw.Get("splitToken")
		}
	}
	cp, err := tr.c.Transactions.Capture(ctx, auth, &bankpay.CaptureParams{MerchantReference: tr.ref("capture"), Amount: "30.00", SplitToken: token})
	if err != nil {
		return "", err
	}
	tr.ids[cp.TransactionID] = true
	tr.complete(cp.TransactionID)
	return cp.TransactionID, nil
}

// complete moves the clock until movement id is due to complete: it is
// processed first if it was not.
func (tr *trigger) complete(id string) {
	due := func() time.Time {
		tr.s.mu.Lock()
		defer tr.s.mu.Unlock()
		if t := tr.s.st.txns[id]; t != nil {
			return t.completeAt
		}
		return time.Time{}
	}
	if due().IsZero() {
		tr.s.Advance(time.Second)
	}
	tr.s.AdvanceTo(due())
}
