package bankpay

import (
	"context"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/models"
)

// TransactionsService establishes, reads, deposits to and captures from
// transactions.
type TransactionsService service

// Get reads a transaction: GET /transactions/{transactionId}.
func (s *TransactionsService) Get(ctx context.Context, transactionID string, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return s.transactionCall(ctx, http.MethodGet, pathJoin("transactions", transactionID), nil, nil, opts)
}

// transactionCall is one call of the pipeline whose answer is a
// transaction, wrapped {"transaction":…} (spec) or bare (OpenAPI): Get,
// Establish, Deposit and Capture.
func (s *TransactionsService) transactionCall(ctx context.Context, method, path string, query url.Values, body any, opts []Option) (*models.Transaction, error) {
	return call[models.Transaction](ctx, s.client, method, path, query, body, "transaction", opts)
}

// EstablishParams is the input of Establish: the establish data of the
// authorization. AccessID, MerchantID and RequestSignature are filled by the
// client from its credentials; values the caller puts there are replaced.
type EstablishParams struct {
	models.EstablishData
}

// Establish creates an authorization from establish data:
// POST /establish?createTransaction=true with the data as JSON, signed with
// the client's credentials. Its main use is a Disbursement by account and
// routing number (Account.AccountNumber and Account.RoutingNumber set); keep
// the returned TransactionID for the Deposit.
//
// The caller's params are not modified: the client signs a copy, and sets
// DeviceType to "web" on that copy for a Disbursement that has none.
// Invalid data (currency not USD or CAD, amount not N.NN, an unsupported
// payment type, missing or malformed URLs, a negative VIP tier, a
// Disbursement without account and routing number, a beneficiary without
// name or country) gives a *ValidationError and nothing is sent.
//
// Establish changes state, so it is not retried once the request may have
// reached the server, unless the call passes RetryNonIdempotent. A repeated
// merchantReference answers code 210 (ErrDuplicate).
func (s *TransactionsService) Establish(ctx context.Context, p *EstablishParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		return nil, invalid("establishParams", "must not be nil")
	}
	d := p.EstablishData // a copy: the caller's struct is never written
	if d.PaymentType == models.PaymentTypeDisbursement && d.DeviceType == "" {
		d.DeviceType = "web"
	}
	if err := s.client.SignEstablishData(&d); err != nil { // validates d first
		return nil, err
	}
	return s.transactionCall(ctx, http.MethodPost, "/establish", url.Values{"createTransaction": {"true"}}, &d, opts)
}
