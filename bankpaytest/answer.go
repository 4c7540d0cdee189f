package bankpaytest

import (
	"net"
	"net/http"
	"strconv"

	"github.com/bankpay/bankpay-go/models"
)

// sandboxUserIP is the client address of an authorization the user gave
// through Authorize or the bank pages played in-process: the sandbox has no
// user's address, so it answers with one reserved for documentation
// (RFC 5737), never a real one.
const sandboxUserIP = "192.0.2.1"

// clientIP is the host part of r's remote address (sandboxUserIP when r
// has none).
func clientIP(r *http.Request) string {
	if r == nil {
		return sandboxUserIP
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		return sandboxUserIP
	}
	return host
}

// code is a transaction, status or payment type code as an answer writes
// it: a number in the spec's (wrapped) shape, a string of digits in the
// OpenAPI's (bare) shape, whose schemas type every code as a string enum.
type code struct {
	n   int
	str bool
}

// MarshalJSON writes the code as a number or a string.
func (c code) MarshalJSON() ([]byte, error) {
	b := strconv.AppendInt(nil, int64(c.n), 10)
	if c.str {
		return strconv.AppendQuote(nil, string(b)), nil
	}
	return b, nil
}

// transactionAnswer is a transaction as an answer writes it: the record,
// plus every property the OpenAPI's Transaction schema requires, computed
// from the sandbox's state (see amounts), whether or not the SDK reads it.
// Its fields shadow the record's fields of the same name.
type transactionAnswer struct {
	*models.Transaction
	TransactionType code               `json:"transactionType"`
	Status          code               `json:"status"`
	Payment         *paymentAnswer     `json:"payment,omitempty"`
	Pending         models.Amount      `json:"pending"`
	Paid            models.Amount      `json:"paid"`
	Refunded        models.Amount      `json:"refunded"`
	Reversed        models.Amount      `json:"reversed"`
	Balance         models.Amount      `json:"balance"`
	IP              string             `json:"ip"`
	ProcessedAt     models.EpochMillis `json:"processedAt"`
	CompletedAt     models.EpochMillis `json:"completedAt"`
}

// paymentAnswer is a payment as an answer writes it: its paymentType as a
// code of the answer's shape.
type paymentAnswer struct {
	*models.Payment
	PaymentType code `json:"paymentType"`
}

// answer is transaction t as an answer of the sandbox's shape writes it (v
// is t's view, which the caller may have adjusted). The caller holds s.mu.
func (s *Server) answer(t *txn, v *models.Transaction) *transactionAnswer {
	return answerAs(t, v, s.bare)
}

// answerAs is answer with codes as strings (str, the OpenAPI's types) or
// numbers (the spec's).
func answerAs(t *txn, v *models.Transaction, str bool) *transactionAnswer {
	var p *paymentAnswer
	if v.Payment != nil {
		// The payment's state is its authorization's (see fillPayment).
		auth := authorizationOf(t)
		tot := totals(t.m, auth)[auth]
		if tot == nil {
			tot = &paymentTotals{}
		}
		fillPayment(v.Payment, auth, tot)
		p = &paymentAnswer{Payment: v.Payment, PaymentType: code{int(v.Payment.PaymentType), str}}
	}
	a := &transactionAnswer{
		Transaction:     v,
		TransactionType: code{int(v.TransactionType), str},
		Status:          code{int(v.Status), str},
		Payment:         p,
		IP:              authorizationOf(t).ip,
		ProcessedAt:     v.ProcessedAt,
		CompletedAt:     v.CompletedAt,
	}
	if a.IP == "" {
		a.IP = sandboxUserIP
	}
	a.Pending, a.Paid, a.Refunded, a.Reversed, a.Balance = t.amounts(v)
	return a
}

// transactionBody is the answer of one transaction: {"transaction":…} in
// the spec's shape, the transaction itself in the OpenAPI's.
func (s *Server) transactionBody(t *txn, v *models.Transaction) any {
	a := s.answer(t, v)
	return s.single(struct {
		Transaction *transactionAnswer `json:"transaction"`
	}{a}, a)
}

// amounts are the OpenAPI's running totals of transaction t (v its view):
// for an authorization, those of its payment (see totals); for a deposit,
// capture or representment, its amount pending until it completes, then
// paid (and reversed when Reversed), what was refunded or reclaimed of it,
// and the balance left; for a refund, reclaim or preauthorization, its
// amount pending until it completes, and zero paid (it pays nothing in).
func (t *txn) amounts(v *models.Transaction) (pending, paid, refunded, reversed, balance models.Amount) {
	zero := models.AmountFromCents(0)
	if t.rec.TransactionType == models.TypeAuthorize {
		tot := totals(t.m, t)[t]
		if tot == nil {
			tot = &paymentTotals{}
		}
		return models.AmountFromCents(tot.pending), models.AmountFromCents(tot.paid),
			models.AmountFromCents(tot.refunded), models.AmountFromCents(tot.reversed),
			models.AmountFromCents(tot.paid - tot.reversed - tot.refunded)
	}
	pending, paid, refunded, reversed, balance = zero, zero, zero, zero, zero
	switch t.rec.Status {
	case models.StatusAuthorized, models.StatusProcessed:
		pending = models.AmountFromCents(t.cents)
		return
	case models.StatusReversed:
		if isMovement(t) {
			paid, reversed = models.AmountFromCents(t.cents), models.AmountFromCents(t.cents)
		}
		return
	}
	if v.Paid != "" {
		paid = v.Paid
	}
	if v.Refunded != "" {
		refunded = v.Refunded
	}
	if v.Balance != "" {
		balance = v.Balance
	}
	return
}
