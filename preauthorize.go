package bankpay

import (
	"context"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// PreauthorizeParams is the input of Preauthorize, sent form-encoded like
// Capture's.
type PreauthorizeParams struct {
	// MerchantReference is the merchant's reference for this
	// preauthorization (required; '&', '=', '%', '+' and control
	// characters are refused).
	MerchantReference string `url:"merchantReference"`
	// Amount is the total the captures may reach, N.NN, greater than 0.00,
	// at most 10 characters (required).
	Amount models.Amount `url:"amount"`
	// Period is how many hours the preauthorization holds, 1 to 6
	// (required).
	Period int `url:"period"`
	// SplitToken is the token of the authorization's Authorize event.
	SplitToken string `url:"splitToken,omitempty"`
	// ExternalTier is the merchant's tier of the customer, such as "vip".
	ExternalTier string `url:"externalTier,omitempty"`
	// WithdrawalMethod is how the recipient receives the funds, one of the
	// models.Withdrawal* constants (metadata.remittance.withdrawalMethod).
	WithdrawalMethod string `url:"metadata.remittance.withdrawalMethod,omitempty"`
	// InteractionID ties the call to the consumer's interaction;
	// "consumerNotPresent" marks a merchant-initiated one. Empty: the
	// consumer is taken to be present.
	InteractionID string `url:"interactionId,omitempty"`
}

// Preauthorization periods the OpenAPI allows, in hours.
const (
	minPreauthHours = 1
	maxPreauthHours = 6
)

// Preauthorize preauthorizes captures from an authorization, up to Amount
// in total, for Period hours: POST /transactions/{transactionId}/capture/preAuth,
// form-encoded. The response is the preauthorization transaction (type 10)
// whose originalTransactionId is transactionID; its ExpiredAt is when it
// lapses, after which captures are treated as ordinary ones.
//
// Preauthorize changes state, so it is not retried once the request may
// have reached the server, unless WithRetryNonIdempotent is given. A
// repeated merchantReference responds code 210 (ErrDuplicate) where the
// account is configured for idempotency.
func (s *TransactionsService) Preauthorize(ctx context.Context, transactionID string, p *PreauthorizeParams, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return call[models.Transaction](ctx, s.client, http.MethodPost, pathJoin("transactions", transactionID, "capture", "preAuth"), nil, formBody{V: p}, "transaction", opts)
}

func (p *PreauthorizeParams) validate() error {
	if p == nil {
		return invalid("preauthorizeParams", "must not be nil")
	}
	if err := firstError(
		checkMerchantReference("merchantReference", p.MerchantReference, true),
		checkMoneyAmount("amount", p.Amount, true),
	); err != nil {
		return err
	}
	switch {
	case p.Period == 0:
		return invalid("period", "is required")
	case p.Period < minPreauthHours || p.Period > maxPreauthHours:
		return invalid("period", "must be 1 to 6 (hours)")
	}
	if p.WithdrawalMethod != "" && !wire.WithdrawalMethod(p.WithdrawalMethod) {
		return invalid("metadata.remittance.withdrawalMethod", "must be BankDeposit, Cash, DebitCard, DigitalWallet or HomeDelivery")
	}
	return nil
}
