package bankpay

import (
	"context"
	"net/http"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/models"
)

// RefundParams is the input of Refund, sent as JSON. Both fields may be
// left empty: the remaining balance is then refunded.
type RefundParams struct {
	// MerchantReference is the merchant's reference for this refund
	// (optional; '&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Amount is the amount to refund, N.NN, at least 0.99 and at most 10
	// characters; empty refunds what remains of the transaction's balance.
	Amount models.Amount `json:"amount,omitempty"`
}

// Refund refunds all or part of a completed Capture or Pay transaction:
// POST /transactions/{transactionId}/refund (JSON). p may be nil (the whole
// remaining balance, no reference). The response is the refund transaction
// (type 4) whose originalTransactionId is transactionID; the refunded
// transaction becomes Partially refunded or Refunded and a Refund event
// follows. Refunds may be repeated until the whole amount is refunded.
//
// Refund moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given. Give a
// merchantReference to make a retry safe: on an account configured for
// idempotency a repeated one responds code 210 (ErrDuplicate). An amount
// above the balance responds with an *APIError (code 331 in the sandbox).
func (s *TransactionsService) Refund(ctx context.Context, transactionID string, p *RefundParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		p = &RefundParams{}
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
		checkReturnAmount("amount", p.Amount, false),
	); err != nil {
		return nil, err
	}
	return call[models.Transaction](ctx, s.client, http.MethodPost, pathJoin("transactions", transactionID, "refund"), nil, p, "transaction", opts)
}

// ReclaimParams is the input of Reclaim, sent as JSON.
type ReclaimParams struct {
	// MerchantReference is the merchant's reference for this reclaim
	// (optional; '&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Amount is the amount to take back, N.NN, at least 0.99, at most 10
	// characters and at most the deposit's balance (required).
	Amount models.Amount `json:"amount"`
}

// Reclaim takes back all or part of a completed Deposit:
// POST /transactions/{transactionId}/reclaim (JSON). The response is the
// reclaim transaction (type 7) whose originalTransactionId is
// transactionID; the deposit's balance drops by the amount. Reclaims may be
// repeated until the whole deposit is reclaimed.
//
// Reclaim moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given. A repeated
// merchantReference responds code 210 (ErrDuplicate) where the account is
// configured for idempotency.
func (s *TransactionsService) Reclaim(ctx context.Context, transactionID string, p *ReclaimParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		return nil, invalid("reclaimParams", "must not be nil")
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
		checkReturnAmount("amount", p.Amount, true),
	); err != nil {
		return nil, err
	}
	return call[models.Transaction](ctx, s.client, http.MethodPost, pathJoin("transactions", transactionID, "reclaim"), nil, p, "transaction", opts)
}

// CancelParams is the input of Cancel, sent as JSON; every field is
// optional.
type CancelParams struct {
	// MerchantReference is the merchant's reference for this cancellation
	// ('&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Message says why, at most 40 characters.
	Message string `json:"message,omitempty"`
	// Reason is the merchant's reason code (0: none sent).
	Reason int `json:"reason,omitempty"`
}

// maxCancelMessage is the OpenAPI's limit of a cancellation message.
const maxCancelMessage = 40

// Cancel cancels a transaction that has not been processed yet:
// POST /transactions/{transactionId}/cancel (JSON). p may be nil. Canceling
// an authorization (the user revoked access, say) refuses further deposits
// and captures from it; a deposit or capture can be canceled only before the
// network picks it up, and a refused Cancel calls for Refund instead. The
// response is the canceled transaction; a Cancel event follows.
//
// Cancel changes state, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given.
func (s *TransactionsService) Cancel(ctx context.Context, transactionID string, p *CancelParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		p = &CancelParams{}
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
	); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(p.Message) > maxCancelMessage || !utf8.ValidString(p.Message) {
		return nil, invalid("message", "must be valid text of at most 40 characters")
	}
	if p.Reason < 0 {
		return nil, invalid("reason", "must not be negative")
	}
	return call[models.Transaction](ctx, s.client, http.MethodPost, pathJoin("transactions", transactionID, "cancel"), nil, p, "transaction", opts)
}

// maxAmountChars is the OpenAPI's limit of an amount the merchant sends
// (capture, refund, reclaim, preauthorization): "maximum of 10 characters".
const maxAmountChars = 10

// checkMoneyAmount is checkPositiveAmount within the 10 characters the
// service reads.
func checkMoneyAmount(field string, a models.Amount, must bool) error {
	if err := checkPositiveAmount(field, a, must); err != nil {
		return err
	}
	if len(a) > maxAmountChars {
		return invalid(field, "must be at most 10 characters, like 9999999.99")
	}
	return nil
}

// minReturnCents is the smallest refund or reclaim the OpenAPI allows
// ("minimum of 0.99").
const minReturnCents = 99

// checkReturnAmount is checkMoneyAmount for a refund or reclaim: at least
// 0.99.
func checkReturnAmount(field string, a models.Amount, must bool) error {
	if err := checkMoneyAmount(field, a, must); err != nil || a == "" {
		return err
	}
	if cents, err := a.Cents(); err != nil || cents < minReturnCents {
		return invalid(field, "must be at least 0.99")
	}
	return nil
}
