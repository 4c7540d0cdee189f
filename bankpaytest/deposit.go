package bankpaytest

import (
	"net/http"

	"github.com/bankpay/bankpay-go/models"
)

// PaymentProcessorInstant is the paymentProcessorType of an instant payout
// deposit (instantPayoutRequest=true). Such a deposit completes at its
// Processed step instead of CompletionBankingDays later.
const PaymentProcessorInstant = "RTP"

// handleDeposit serves POST /transactions/{id}/deposit (form-encoded:
// amount, merchantReference, instantPayoutRequest). The amount is at least
// 0.99, the OpenAPI's minimum of a deposit. The deposit follows the
// movement lifecycle (lifecycle.go).
func (s *Server) handleDeposit(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	auth, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	f, err := parseForm(body)
	if err != nil {
		return nil, err
	}
	ref, err := paymentFrom(auth, f, "deposits", models.PaymentTypeDeferred, models.PaymentTypeDisbursement)
	if err != nil {
		return nil, err
	}
	instant := false
	switch f.Get("instantPayoutRequest") {
	case "", "false":
	case "true":
		if m.cfg.NoInstantPayout {
			return nil, badRequest("instant payout is not available for this authorization")
		}
		instant = true
	default:
		return nil, badRequest("instantPayoutRequest must be true or false")
	}
	amount := models.Amount(f.Get("amount"))
	if amount == "" {
		if auth.rec.Amount == "0.00" {
			return nil, badRequest("amount is required when the authorization amount is 0.00")
		}
		amount = auth.rec.Amount
	}
	cents, aerr := amount.Cents()
	if aerr != nil || !validAmount(amount) { // refuses a minus sign
		return nil, badRequest("amount must be a decimal with two places, like 10.00")
	}
	if cents < minMoveCents {
		return nil, badRequest("amount must be at least 0.99")
	}
	if m.usedRef(refDeposit, ref) {
		return nil, duplicate()
	}
	if err := checkWithinMaximum(auth, cents); err != nil {
		return nil, err
	}

	processor := ""
	if instant {
		processor = PaymentProcessorInstant
	}
	d := s.newMovement(m, auth, models.TypeDeposit, refDeposit, ref, amount, cents, processor)
	v := d.view()
	return s.transactionBody(d, v), nil
}

// checkWithinMaximum refuses cents more when the authorization has a
// non-zero amount, the maximum total of what is processed with it.
func checkWithinMaximum(auth *txn, cents int64) *Error {
	if auth.rec.Amount == "0.00" {
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
