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

// Get reads a transaction: GET /transactions/{transactionId}. This and every
// call whose response is a transaction read it wrapped {"transaction":…}
// (spec) or bare (OpenAPI).
func (s *TransactionsService) Get(ctx context.Context, transactionID string, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return call[models.Transaction](ctx, s.client, http.MethodGet, pathJoin("transactions", transactionID), nil, nil, "transaction", opts)
}

// Establish creates an authorization from establish data, signed with the
// client's credentials: POST /establish?createTransaction=true. Its main
// use is a Disbursement by account and routing number; keep the returned
// TransactionID for the Deposit. d is not modified (a copy is signed, with
// DeviceType "web" for a Disbursement without one). Invalid data is a
// *ValidationError and nothing is sent. A repeated merchantReference fails
// with ErrDuplicate; Establish is not retried once it may have reached the
// server, unless WithRetryNonIdempotent.
func (s *TransactionsService) Establish(ctx context.Context, d *models.EstablishData, opts ...Option) (*models.Transaction, error) {
	if d == nil {
		return nil, invalid("establishData", "must not be nil")
	}
	cp := *d // a copy: the caller's struct is never written
	if cp.PaymentType == models.PaymentTypeDisbursement && cp.DeviceType == "" {
		cp.DeviceType = "web"
	}
	if err := s.client.SignEstablishData(&cp); err != nil { // validates cp first
		return nil, err
	}
	return call[models.Transaction](ctx, s.client, http.MethodPost, "/establish", url.Values{"createTransaction": {"true"}}, &cp, "transaction", opts)
}
