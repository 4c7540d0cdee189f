package bankpay

import (
	"context"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// CaptureParams is the input of Capture, sent form-encoded with dotted
// names (beneficiary.address.country, beneficiaryAccount.paymentProvider.swift,
// metadata.remittance.withdrawalMethod). It serves two uses: a money
// transfer payment (Beneficiary required) and the payment of a Pay
// authorization (SplitToken from its Authorize event; Beneficiary then
// optional).
type CaptureParams struct {
	// MerchantReference is the merchant's reference for this capture
	// (required; a unique one makes the capture idempotent where the
	// account is configured for it; '&', '=', '%', '+' and control
	// characters are refused, see VerifyNotification).
	MerchantReference string `url:"merchantReference"`
	// Amount is the amount to capture, N.NN, greater than 0.00, at most 10
	// characters (required: an empty one is a *ValidationError and nothing
	// is sent, although the OpenAPI says an omitted amount captures the
	// most allowed and the sandbox captures what remains).
	Amount models.Amount `url:"amount"`
	// SplitToken is the token of the authorization's Authorize event: a
	// guaranteed payment without it fails. Form encoding escapes it.
	SplitToken string `url:"splitToken,omitempty"`
	// InteractionID ties the capture to the consumer's interaction;
	// "consumerNotPresent" marks a merchant-initiated one. Empty: the
	// consumer is taken to be present.
	InteractionID string `url:"interactionId,omitempty"`
	// Beneficiary is the receiver of a money transfer (required unless
	// SplitToken is set): Name and Address.Country are required.
	Beneficiary *models.Beneficiary `url:"beneficiary,omitempty"`
	// BeneficiaryAccount is the account the transfer pays into. One of IBAN,
	// PaymentProvider.RoutingNumber or PaymentProvider.Swift is recommended.
	// Of PaymentProvider only Name, Country, Swift and RoutingNumber are sent.
	BeneficiaryAccount *models.BeneficiaryAccount `url:"beneficiaryAccount,omitempty"`
	// Remittance is the remittance data, sent as metadata.remittance.*.
	Remittance *models.Remittance `url:"metadata.remittance,omitempty"`
}

// Capture collects a payment from an authorization, a money transfer or
// the payment of a Pay authorization (with its split token):
// POST /transactions/{transactionId}/capture, form-encoded. The response is
// the capture transaction (type 3), which a later Refund can return.
//
// Capture moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given. A repeated
// merchantReference responds code 210 (ErrDuplicate).
func (s *TransactionsService) Capture(ctx context.Context, transactionID string, p *CaptureParams, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return madeFrom(ops.TransactionsCapture, transactionID)(call[models.Transaction](ctx, s.client, ops.TransactionsCapture, args{IDs: []string{transactionID}, Body: p}, opts))
}

func (p *CaptureParams) validate() error {
	if p == nil {
		return invalid("captureParams", "must not be nil")
	}
	beneficiary := requiredBeneficiary
	if p.SplitToken != "" { // a Pay capture: a beneficiary is checked when given
		beneficiary = checkBeneficiary
	} else if p.Beneficiary == nil {
		beneficiary = func(prefix string, _ *models.Beneficiary) error {
			return invalid(prefix+".name", "is required for a money transfer; to capture a payment of a Pay authorization "+
				"give splitToken (the token of its Authorize event) instead")
		}
	}
	if err := firstError(
		checkMerchantReference("merchantReference", p.MerchantReference, true),
		checkMoneyAmount("amount", p.Amount, true),
		beneficiary("beneficiary", p.Beneficiary),
	); err != nil {
		return err
	}
	return checkRemittance("metadata.remittance", p.Remittance)
}

// requiredBeneficiary is checkBeneficiary for a beneficiary that must be
// given: a missing one names its first required field, like a missing
// Disbursement account.
func requiredBeneficiary(prefix string, b *models.Beneficiary) error {
	if b == nil {
		return invalid(prefix+".name", "is required for a money transfer")
	}
	return checkBeneficiary(prefix, b)
}
