package bankpaytest

import (
	"net/http"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/models"
)

// Refunds, reclaims and cancels. A refund returns money of a Completed
// capture (a money transfer or the payment of a Pay authorization), a
// reclaim takes back money of a Completed deposit. Each creates a child
// transaction, a Refund (type 4) or a Reclaim (type 7), whose
// originalTransactionId is the capture or deposit; the child is Authorized
// when created (no event) and then follows the lifecycle of deposits
// (Processed when the clock next moves, Completed CompletionBankingDays
// banking days later, with Process and Complete events carrying
// parentObjectId). A refund moves the capture to Partially refunded (11) or,
// once nothing is left, Refunded (12), with a Refund event each time; a
// reclaim leaves the deposit Completed. The capture or deposit shows its
// paid, refunded (captures) and balance totals once Completed.

// maxAmountChars is the OpenAPI's limit of an amount the merchant sends.
const maxAmountChars = 10

// minReturnCents is the smallest refund or reclaim ("minimum of 0.99").
const minReturnCents = 99

// returnRequest is the JSON body of a refund or reclaim.
type returnRequest struct {
	MerchantReference string `json:"merchantReference"`
	Amount            string `json:"amount"`
}

// handleRefund serves POST /transactions/{id}/refund (JSON: merchantReference
// and amount, both optional; no amount refunds the balance).
func (s *Server) handleRefund(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	var req returnRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	if t.rec.TransactionType != models.TypeCapture {
		return nil, badRequest("only a Capture or Pay transaction is refunded; %s %s is not one (a deposit is reclaimed)", kindName(t), id)
	}
	if !t.can(models.StatusRefunded) {
		return nil, badRequest("the capture is %s: only a Completed capture is refunded (one not yet processed is canceled)", t.rec.Status)
	}
	return s.newReturn(m, t, models.TypeRefund, refRefund, req, false)
}

// handleReclaim serves POST /transactions/{id}/reclaim (JSON:
// merchantReference, optional, and amount; the OpenAPI lists amount as
// required and describes its omission as the balance, which the sandbox
// accepts).
func (s *Server) handleReclaim(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	var req returnRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	if t.rec.TransactionType != models.TypeDeposit {
		return nil, badRequest("only a Deposit is reclaimed; %s %s is not one (a capture is refunded)", kindName(t), id)
	}
	if t.rec.Status != models.StatusCompleted {
		return nil, badRequest("the deposit is %s: only a Completed deposit is reclaimed (one not yet processed is canceled)", t.rec.Status)
	}
	return s.newReturn(m, t, models.TypeReclaim, refReclaim, req, true)
}

// newReturn checks a refund or reclaim (typ) of t and records it: the
// child transaction, and for a refund t's move to Partially refunded or
// Refunded. The caller holds s.mu.
func (s *Server) newReturn(m *merchant, t *txn, typ models.TransactionType, kind refKind, req returnRequest, reclaim bool) (any, *Error) {
	if req.MerchantReference != "" && m.usedRef(kind, req.MerchantReference) {
		return nil, duplicate()
	}
	left := t.cents - t.usedCents
	cents := left
	amount := models.Amount(req.Amount)
	if amount == "" {
		amount = models.AmountFromCents(left)
	} else {
		if err := checkAmountField("amount", amount, true); err != nil {
			return nil, err
		}
		if len(amount) > maxAmountChars {
			return nil, badRequest("amount must be at most %d characters", maxAmountChars)
		}
		cents, _ = amount.Cents()
		if cents < minReturnCents {
			return nil, badRequest("amount must be at least 0.99")
		}
	}
	if cents > left || left == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: codeNotEnoughBalance,
			Message: "amount exceeds the balance " + string(models.AmountFromCents(left)) + " of the transaction"}
	}
	child := s.newMovement(m, t, typ, kind, req.MerchantReference, amount, cents, "")
	if !reclaim {
		to := models.StatusPartiallyRefunded
		if t.usedCents == t.cents {
			to = models.StatusRefunded
		}
		if err := s.move(t, to); err != nil {
			panic(err) // checked with can above
		}
	}
	v := child.view()
	return s.transactionBody(child, v), nil
}

// totals fills the paid, refunded and balance totals of a Completed (or
// refunded) deposit or capture into its view v.
func (t *txn) totals(v *models.Transaction) {
	if !isMovement(t) {
		return
	}
	switch t.rec.Status {
	case models.StatusCompleted, models.StatusPartiallyRefunded, models.StatusRefunded:
	default:
		return
	}
	v.Paid = t.rec.Amount
	v.Balance = models.AmountFromCents(t.cents - t.usedCents)
	if t.rec.TransactionType == models.TypeCapture {
		v.Refunded = models.AmountFromCents(t.usedCents)
	}
}

// cancelRequest is the JSON body of a cancel; every field is optional.
type cancelRequest struct {
	MerchantReference string   `json:"merchantReference"`
	Message           string   `json:"message"`
	Reason            *float64 `json:"reason"`
}

// handleCancel serves POST /transactions/{id}/cancel: an Authorized
// authorization none of whose deposits or captures has been processed
// (deposits and captures still Authorized stay as they are, as the OpenAPI
// says), a deposit or capture not yet processed (Authorized), or an
// Authorized preauthorization moves to Canceled with a Cancel event. A
// transaction past that point responds with 400/200: refund (or reclaim) it
// instead.
func (s *Server) handleCancel(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	var req cancelRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(req.Message) > 40 {
		return nil, badRequest("message must be at most 40 characters")
	}
	if req.Reason != nil && *req.Reason < 0 {
		return nil, badRequest("reason must not be negative")
	}
	switch t.rec.TransactionType {
	case models.TypeAuthorize:
		if s.paidFrom(t) {
			return nil, badRequest("the authorization has been paid from: refund or reclaim its transactions instead")
		}
	case models.TypeDeposit, models.TypeCapture, models.TypePreauthorization:
	default:
		return nil, badRequest("a %s cannot be canceled", kindName(t))
	}
	if !t.can(models.StatusCanceled) {
		return nil, badRequest("the %s is %s: it can no longer be canceled (refund or reclaim it instead)", kindName(t), t.rec.Status)
	}
	if err := s.move(t, models.StatusCanceled); err != nil {
		panic(err) // checked with can above
	}
	switch {
	case isMovement(t):
		t.parent.usedCents -= t.cents // no longer counts against the authorization
	case t.rec.TransactionType == models.TypePreauthorization:
		t.rec.PreAuthorized = false
	}
	v := t.view()
	return s.transactionBody(t, v), nil
}

// paidFrom reports whether a deposit or capture of authorization auth has
// been processed (money moved). The caller holds s.mu.
func (s *Server) paidFrom(auth *txn) bool {
	for _, t := range s.st.txns {
		if t.parent != auth || !isMovement(t) {
			continue
		}
		switch t.rec.Status {
		case models.StatusProcessed, models.StatusCompleted, models.StatusPartiallyRefunded, models.StatusRefunded:
			return true
		}
	}
	return false
}
