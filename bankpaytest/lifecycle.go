package bankpaytest

import (
	"fmt"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// The money movements drawn from an authorization, deposits (type 6) and
// captures (type 3), share one lifecycle, the spec's Disbursement
// transaction states: Authorized when created (no event), Processed when
// the clock first moves (submitted to the network), Completed
// CompletionBankingDays banking days later unless Denied (Deny, from
// Authorized or Processed), and Reversed (Reverse) only from Completed.
// An instant payout deposit (RTP) settles in real time: it is Completed at
// its Processed step, in the same clock move. A capture without splitToken
// for a merchant configured for guaranteed payments fails instead of being
// processed (Failed). Each change emits its event (Process, Complete, Deny,
// Reverse, Failed). A Denied or Reversed movement no
// longer counts against its authorization's amount. Every change goes
// through the transitions table (transitions.go).

// newMovement records a deposit or capture (typ) of amount (cents) from
// authorization auth, with merchantReference ref in namespace kind: in
// state Authorized, counted against the authorization's amount, and due
// for submission when the clock next moves. The caller holds s.mu and has
// checked the request.
func (s *Server) newMovement(m *merchant, auth *txn, typ models.TransactionType, kind refKind, ref string, amount models.Amount, cents int64, processor string) *txn {
	t := s.newTxn(m, typ)
	t.attach(auth, cents)
	t.notifyURL, t.timeZone = auth.notifyURL, auth.timeZone
	t.rec.OriginalTransactionID = auth.id()
	t.rec.MerchantReference = ref
	t.rec.Amount = amount
	t.rec.Currency = auth.rec.Currency
	p := *auth.rec.Payment
	acct := *p.Account
	p.Account, p.PaymentProvider, p.Amount = &acct, sandboxProvider(m), amount
	t.rec.Payment = &p
	t.rec.PaymentProcessorType = processor
	s.mustMove(t, models.StatusAuthorized)
	auth.usedCents += cents
	m.refs[refKey{kind, ref}] = true
	s.st.toSubmit = append(s.st.toSubmit, t)
	return t
}

// isMovement reports whether t follows the movement lifecycle: a deposit,
// a capture or a dispute recovery (disputes.go).
func isMovement(t *txn) bool {
	return t.rec.TransactionType == models.TypeDeposit || t.rec.TransactionType == models.TypeCapture ||
		t.rec.TransactionType == models.TypeRepresentment
}

// submitMovements submits every Authorized deposit and capture created
// before cutoff (all of them for a zero cutoff) to the network: it becomes
// Processed now and is due to complete CompletionBankingDays banking days
// later, or at once for an instant payout. The caller holds s.mu.
func (s *Server) submitMovements(cutoff time.Time) {
	keep := s.st.toSubmit[:0]
	for _, t := range s.st.toSubmit {
		if !cutoff.IsZero() && t.rec.CreatedAt.Time().After(cutoff) {
			keep = append(keep, t)
			continue
		}
		if !t.can(models.StatusProcessed) {
			continue
		}
		if t.noSplitToken { // a guaranteed payment captured without its split token
			s.mustMove(t, models.StatusFailed)
			t.parent.usedCents -= t.cents
			continue
		}
		t.rec.ProcessedAt = epochMillis(s.st.now)
		s.mustMove(t, models.StatusProcessed)
		if t.instant() {
			t.completeAt = s.st.now
			s.completeMovement(t, t.completeAt)
			continue
		}
		t.completeAt = addBankingDays(s.st.now, CompletionBankingDays)
		s.schedule(&timer{at: t.completeAt, kind: timerComplete, t: t})
	}
	clear(s.st.toSubmit[len(keep):])
	s.st.toSubmit = keep
}

// instant reports whether t is an instant payout deposit (RTP): it settles
// in real time, so it completes at its Processed step.
func (t *txn) instant() bool {
	return t.rec.TransactionType == models.TypeDeposit && t.rec.PaymentProcessorType == PaymentProcessorInstant
}

// completeMovement completes t if it is still Processed and due at at.
// The caller holds s.mu.
func (s *Server) completeMovement(t *txn, at time.Time) {
	if !t.can(models.StatusCompleted) || !t.completeAt.Equal(at) {
		return
	}
	t.rec.CompletedAt = epochMillis(s.st.now)
	s.mustMove(t, models.StatusCompleted)
}

// Deny moves deposit or capture id to Denied, as the network would, and
// emits its event: from Authorized or Processed only, never once
// Completed. A Denied deposit or capture no longer counts against its
// authorization's amount.
func (s *Server) Deny(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.denyLocked(id)
}

func (s *Server) denyLocked(id string) error {
	t, err := s.hookMovement(id)
	if err != nil {
		return err
	}
	if err := s.move(t, models.StatusDenied); err != nil {
		return err
	}
	t.parent.usedCents -= t.cents
	return nil
}

// Reverse moves deposit or capture id from Completed to Reversed (the
// funds could not be deposited) and emits its event. A Reversed deposit or
// capture no longer counts against its authorization's amount.
func (s *Server) Reverse(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reverseLocked(id)
}

func (s *Server) reverseLocked(id string) error {
	t, err := s.hookMovement(id)
	if err != nil {
		return err
	}
	if err := s.move(t, models.StatusReversed); err != nil {
		return err
	}
	t.parent.usedCents -= t.cents
	return nil
}

// hookMovement finds the deposit or capture a test hook acts on.
func (s *Server) hookMovement(id string) (*txn, error) {
	t := s.st.txns[id]
	if t == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTransaction, id)
	}
	if !isMovement(t) {
		return nil, fmt.Errorf("%w: %s is not a deposit or capture", ErrInvalidTransition, id)
	}
	return t, nil
}
