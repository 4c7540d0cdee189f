package bankpay

import (
	"context"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// DepositParams is the input of Deposit, sent form-encoded.
type DepositParams struct {
	// MerchantReference is the merchant's reference for this deposit
	// (required; '&', '=', '%', '+' and control characters are refused, see
	// VerifyNotification). Where the merchant account is configured for it, a unique
	// reference makes the deposit idempotent: a repeat responds code 210
	// (ErrDuplicate) instead of paying twice.
	MerchantReference string `url:"merchantReference"`
	// Amount is the amount to pay out, N.NN, greater than 0.00, at most 10
	// characters. When empty, the service uses the full authorization
	// amount; it is required when the authorization was established with
	// amount 0.00.
	Amount models.Amount `url:"amount,omitempty"`
	// InstantPayoutRequest asks for an instant payout (payout use case).
	InstantPayoutRequest bool `url:"instantPayoutRequest,omitempty"`
	// ExternalTier is the merchant's tier of the customer (such as "vip" or
	// "Gold"). Optional; control characters are refused.
	ExternalTier string `url:"externalTier,omitempty"`
	// AuthorizationAmount is not sent. It is what the caller knows of the
	// authorization's amount, for checks before sending: "0.00" makes Amount
	// required; an amount above zero is the maximum Amount may be. Leave it
	// empty when unknown.
	AuthorizationAmount models.Amount `url:"-"`
}

// Deposit pays out against a Deferred or Disbursement authorization:
// POST /transactions/{transactionId}/deposit, form-encoded. The response is the
// deposit transaction (type 6, status Authorized, OriginalTransactionID the
// authorization); later status changes arrive as event notifications.
//
// Deposit moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given (only safe
// with a merchantReference the account treats as an idempotency key). When
// OutcomeUnknown(err), find it with FindByMerchantReference before paying
// again.
func (s *TransactionsService) Deposit(ctx context.Context, transactionID string, p *DepositParams, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return madeFrom(ops.TransactionsDeposit, transactionID)(call[models.Transaction](ctx, s.client, ops.TransactionsDeposit, args{IDs: []string{transactionID}, Body: p}, opts))
}

func (p *DepositParams) validate() error {
	if p == nil {
		return invalid("depositParams", "must not be nil")
	}
	if err := firstError(
		checkMerchantReference("merchantReference", p.MerchantReference, true),
		checkMoneyAmount("amount", p.Amount, false),
		checkAmount("authorizationAmount", p.AuthorizationAmount, false),
		checkText("externalTier", p.ExternalTier),
	); err != nil {
		return err
	}
	switch {
	case p.AuthorizationAmount == "":
	case p.AuthorizationAmount == zeroAmount:
		if p.Amount == "" {
			return invalid("amount", "is required when the authorization amount is 0.00")
		}
	case p.Amount != "":
		limit, err := p.AuthorizationAmount.Cents()
		if err != nil {
			return &ValidationError{Field: "authorizationAmount", Reason: "is out of range", Err: err}
		}
		amount, err := p.Amount.Cents()
		if err != nil {
			return &ValidationError{Field: "amount", Reason: "is out of range", Err: err}
		}
		if amount > limit {
			return invalid("amount", "must not exceed the authorization amount")
		}
	}
	return nil
}
