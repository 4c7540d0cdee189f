package bankpaytest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// PaymentProcessorInstant is the paymentProcessorType of an instant payout
// deposit.
const PaymentProcessorInstant = "RTP"

// handleDeposit serves POST /transactions/{id}/deposit (form-encoded:
// amount, merchantReference, instantPayoutRequest).
func (s *Server) handleDeposit(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	auth, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	f, err := parseForm(body)
	if err != nil {
		return nil, err
	}
	if pt := auth.rec.Payment.PaymentType; pt != models.PaymentTypeDeferred && pt != models.PaymentTypeDisbursement {
		return nil, badRequest("deposits need a Deferred or Disbursement authorization")
	}
	if auth.rec.Status != models.StatusAuthorized {
		return nil, badRequest("the authorization is %s, not Authorized", auth.rec.Status)
	}
	ref := f.Get("merchantReference")
	if ref == "" {
		return nil, badRequest("merchantReference is required")
	}
	instant := false
	switch f.Get("instantPayoutRequest") {
	case "", "false":
	case "true":
		instant = true
	default:
		return nil, badRequest("instantPayoutRequest must be true or false")
	}
	amount := models.Amount(f.Get("amount"))
	if amount == "" {
		if auth.rec.Amount.IsZero() {
			return nil, badRequest("amount is required when the authorization amount is 0.00")
		}
		amount = auth.rec.Amount
	}
	cents, aerr := amount.Cents()
	if aerr != nil || amount.Validate() != nil { // Validate refuses a minus sign
		return nil, badRequest("amount must be a decimal with two places, like 10.00")
	}
	if cents == 0 {
		return nil, badRequest("amount must be greater than 0.00")
	}
	if m.usedRef(refDeposit, ref) {
		return nil, duplicate()
	}
	if err := checkWithinMaximum(auth, cents); err != nil {
		return nil, err
	}

	d := s.newTxn(m, models.TypeDeposit)
	d.parent, d.cents = auth, cents
	d.notifyURL, d.timeZone = auth.notifyURL, auth.timeZone
	d.rec.OriginalTransactionID = auth.id()
	d.rec.MerchantReference = ref
	d.rec.Amount = amount
	d.rec.Currency = auth.rec.Currency
	p := *auth.rec.Payment
	acct := *p.Account
	p.Account, p.PaymentProvider = &acct, sandboxProvider()
	p.Amount = amount
	d.rec.Payment = &p
	d.rec.PaymentProviderTransaction = &models.PaymentProviderTransaction{PaymentProviderTransactionID: "P" + d.id()}
	if instant {
		d.rec.PaymentProcessorType = PaymentProcessorInstant
	}
	d.rec.Status, d.rec.StatusMessage = models.StatusAuthorized, models.StatusAuthorized.String()
	auth.usedCents += cents
	m.refs[refKey{refDeposit, ref}] = true
	s.st.toSubmit = append(s.st.toSubmit, d)
	return models.TransactionEnvelope{Transaction: d.view()}, nil
}

// checkWithinMaximum refuses cents more when the authorization has a
// non-zero amount, the maximum total of what is processed with it.
func checkWithinMaximum(auth *txn, cents int64) *Error {
	if auth.rec.Amount.IsZero() {
		return nil
	}
	max, err := auth.rec.Amount.Cents()
	if err != nil {
		return nil
	}
	if auth.usedCents+cents > max {
		return badRequest("amount exceeds what remains of the authorization amount %s", auth.rec.Amount)
	}
	return nil
}

// submitDeposits submits every Authorized deposit to the network: it becomes
// Processed now and is due to complete CompletionBankingDays banking days
// later. The caller holds s.mu.
func (s *Server) submitDeposits() {
	for _, d := range s.st.toSubmit {
		if d.rec.Status != models.StatusAuthorized {
			continue
		}
		s.setStatus(d, models.StatusProcessed)
		d.rec.ProcessedAt = models.NewEpochMillis(s.st.now)
		d.completeAt = addBankingDays(s.st.now, CompletionBankingDays)
		s.schedule(&timer{at: d.completeAt, kind: timerComplete, t: d})
		s.emitTxnEvent(d, models.EventProcess)
	}
	s.st.toSubmit = nil
}

// completeDeposit completes d if it is still Processed and due at at.
// The caller holds s.mu.
func (s *Server) completeDeposit(d *txn, at time.Time) {
	if d.rec.Status != models.StatusProcessed || !d.completeAt.Equal(at) {
		return
	}
	s.setStatus(d, models.StatusCompleted)
	d.rec.CompletedAt = models.NewEpochMillis(s.st.now)
	s.emitTxnEvent(d, models.EventComplete)
}

// Deny moves deposit id to Denied, as the network would, and emits its
// event: from Authorized or Processed only, never once Completed. A Denied
// deposit no longer counts against its authorization's amount.
func (s *Server) Deny(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.denyLocked(id)
}

func (s *Server) denyLocked(id string) error {
	d, err := s.hookDeposit(id)
	if err != nil {
		return err
	}
	if d.rec.Status != models.StatusAuthorized && d.rec.Status != models.StatusProcessed {
		return fmt.Errorf("%w: deposit %s is %s; only an Authorized or Processed deposit can be Denied", ErrInvalidTransition, id, d.rec.Status)
	}
	s.setStatus(d, models.StatusDenied)
	d.parent.usedCents -= d.cents
	s.emitTxnEvent(d, models.EventDeny)
	return nil
}

// Reverse moves deposit id from Completed to Reversed (the funds could not
// be deposited) and emits its event. A Reversed deposit no longer counts
// against its authorization's amount.
func (s *Server) Reverse(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reverseLocked(id)
}

func (s *Server) reverseLocked(id string) error {
	d, err := s.hookDeposit(id)
	if err != nil {
		return err
	}
	if d.rec.Status != models.StatusCompleted {
		return fmt.Errorf("%w: deposit %s is %s; only a Completed deposit can be Reversed", ErrInvalidTransition, id, d.rec.Status)
	}
	s.setStatus(d, models.StatusReversed)
	d.parent.usedCents -= d.cents
	s.emitTxnEvent(d, models.EventReverse)
	return nil
}

func (s *Server) hookDeposit(id string) (*txn, error) {
	d := s.st.txns[id]
	if d == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if d.rec.TransactionType != models.TypeDeposit {
		return nil, fmt.Errorf("%w: %s is not a deposit", ErrInvalidTransition, id)
	}
	return d, nil
}
