package bankpaytest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// A dispute opens when the user's bank returns a Completed capture as
// unauthorized (Dispute): the capture is Reversed, and a Dispute event
// names it. The merchant then recovers up to the amount returned with
// POST /collections/recovery/dispute: each recovery is a new transaction
// of type Representment (8) that follows the movement lifecycle of
// deposits and captures (lifecycle.go). Recovery requests are idempotent
// per merchant by their Idempotency-Key.

// disputeReturnType is the returnType of the returns Dispute plays: the
// ACH return code R10, "customer advises not authorized".
const disputeReturnType = "R10"

// maxIdempotencyKey is the longest Idempotency-Key the sandbox accepts.
const maxIdempotencyKey = 255

// disputeState is one merchant's disputes. Guarded by Server.mu.
type disputeState struct {
	returns map[string]*disputeReturn  // by the returned capture's id
	keys    map[string]*recoveryRecord // by Idempotency-Key
}

// disputeReturn is the return that opened a dispute on a capture.
type disputeReturn struct {
	reference string
	cents     int64 // the amount returned
}

// recoveryRecord is the first request made with an Idempotency-Key and
// its response, which a repeat of the request gets again.
type recoveryRecord struct {
	transactionID string
	amount        string
	response      any
}

func (d *disputeState) init() {
	if d.returns == nil {
		d.returns = make(map[string]*disputeReturn)
		d.keys = make(map[string]*recoveryRecord)
	}
}

// Dispute plays the user's bank returning Completed capture id as not
// authorized (ACH return R10), which opens a dispute: the capture is
// Reversed (emitting Reverse, as Reverse does) and a Dispute event follows,
// with the fields the operator documents for it (reference, transactionId,
// transactionDatetime, returnType, customerId, returnDatetime,
// amountReturned; no status). Only a capture debits the user: any other
// transaction is an ErrInvalidTransition, as is a capture not Completed.
func (s *Server) Dispute(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disputeLocked(id)
}

func (s *Server) disputeLocked(id string) error {
	t, err := s.hookMovement(id)
	if err != nil {
		return err
	}
	if t.rec.TransactionType != models.TypeCapture {
		return fmt.Errorf("%w: %s %s is not a capture, the only transaction that debits the user", ErrInvalidTransition, kindName(t), id)
	}
	if err := s.reverseLocked(id); err != nil {
		return err
	}
	ret := &disputeReturn{reference: "RET-" + id, cents: t.cents}
	t.m.disputes.init()
	t.m.disputes.returns[id] = ret
	s.emitDisputeEvent(t, ret)
	return nil
}

// emitDisputeEvent emits the Dispute event of capture t with exactly the
// documented fields. The caller holds s.mu.
func (s *Server) emitDisputeEvent(t *txn, ret *disputeReturn) {
	id := s.nextEventID()
	fields := []pair{
		{wire.EventFieldCreatedAt, strconv.FormatInt(s.st.now.UnixMilli(), 10)},
		{wire.EventFieldEventID, id},
		{wire.EventFieldEventType, string(models.EventDispute)},
		{wire.EventFieldObjectID, t.id()},
		{wire.EventFieldObjectType, wire.ObjectTypeTransaction},
		{wire.EventFieldReference, ret.reference},
		{wire.EventFieldTransactionID, t.id()},
		{wire.EventFieldTransactionDatetime, t.rec.CreatedAt.Time().Format(time.RFC3339)},
		{wire.EventFieldReturnType, disputeReturnType},
	}
	if t.parent != nil && t.parent.customerID != "" {
		fields = append(fields, pair{wire.EventFieldCustomerID, t.parent.customerID})
	}
	fields = append(fields,
		pair{wire.EventFieldReturnDatetime, s.st.now.Format(time.RFC3339)},
		pair{wire.EventFieldAmountReturned, string(models.AmountFromCents(ret.cents))},
	)
	s.newEvent(t, models.EventDispute, id, fields)
}

// disputeBody is the body of POST /collections/recovery/dispute.
type disputeBody struct {
	TransactionID string `json:"transactionId"`
	Amount        string `json:"amount"`
}

// handleDispute serves POST /collections/recovery/dispute: the
// Idempotency-Key header (1 to 255 characters) and a JSON body with
// transactionId (a disputed capture) and amount (required, N.NN, at most 10
// characters, at most what remains to recover of the amount returned).
// A key seen before with the same transactionId and amount responds with
// the first response again, creating nothing; with another transactionId
// or amount it responds 422 with code 200. Requests that fail are not
// remembered: the key can be used again.
func (s *Server) handleDispute(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	key := r.Header.Get("Idempotency-Key")
	switch {
	case strings.TrimSpace(key) == "":
		return nil, badRequest("the Idempotency-Key header is required")
	case len(key) > maxIdempotencyKey:
		return nil, badRequest("Idempotency-Key must be at most %d characters", maxIdempotencyKey)
	}
	var b disputeBody
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	m.disputes.init()
	if rec := m.disputes.keys[key]; rec != nil {
		if rec.transactionID != b.TransactionID || rec.amount != b.Amount {
			return nil, &Error{Status: http.StatusUnprocessableEntity, Code: codeInvalidParameter,
				Message: "Idempotency-Key was already used with another request"}
		}
		return rec.response, nil
	}
	if b.TransactionID == "" {
		return nil, badRequest("transactionId is required")
	}
	amount := models.Amount(b.Amount)
	if err := checkAmountField("amount", amount, true); err != nil {
		return nil, err
	}
	cents, _ := amount.Cents()
	if cents == 0 || len(b.Amount) > 10 {
		return nil, badRequest("amount must be greater than 0.00 and at most 10 characters")
	}
	t, err := s.lookup(m, b.TransactionID)
	if err != nil {
		return nil, err
	}
	ret := m.disputes.returns[t.id()]
	if ret == nil {
		return nil, badRequest("transaction %s has no dispute", t.id())
	}
	if t.usedCents+cents > ret.cents {
		return nil, badRequest("amount exceeds what remains to recover of the amount returned, %s",
			models.AmountFromCents(ret.cents-t.usedCents))
	}
	rep := s.newRecovery(t, amount, cents)
	v := rep.view()
	resp := s.transactionBody(rep, v)
	m.disputes.keys[key] = &recoveryRecord{transactionID: b.TransactionID, amount: b.Amount, response: resp}
	return resp, nil
}

// newRecovery records a recovery of amount (cents) of disputed capture c:
// a Representment in state Authorized, counted against the amount returned
// and due for submission when the clock next moves. The caller holds s.mu.
func (s *Server) newRecovery(c *txn, amount models.Amount, cents int64) *txn {
	t := s.newTxn(c.m, models.TypeRepresentment)
	t.attach(c, cents)
	t.notifyURL, t.timeZone = c.notifyURL, c.timeZone
	t.rec.OriginalTransactionID = c.id()
	t.rec.MerchantReference = c.rec.MerchantReference
	t.rec.Amount, t.rec.Currency = amount, c.rec.Currency
	p := *c.rec.Payment
	acct := *p.Account
	p.Account, p.PaymentProvider, p.Amount = &acct, sandboxProvider(c.m), amount
	t.rec.Payment = &p
	s.mustMove(t, models.StatusAuthorized)
	c.usedCents += cents
	s.st.toSubmit = append(s.st.toSubmit, t)
	return t
}

func (s *Server) controlDispute(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	return s.controlHook(m, id, s.disputeLocked)
}
