package bankpay

import (
	"context"
	"errors"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// AccountsService reads the account data of a Retrieval authorization
// (balance, bank-held user data, cash-flow summary, selected accounts),
// tokenizes and verifies accounts, and reports the ACH outcome of payments
// made with a verified account.
type AccountsService service

// Balance reads the balance and details of the bank account the user
// authorized: GET /transactions/{transactionId}/payment/paymentProvider/account/balance.
//
// The response is read wrapped in {"accountBalance":{…}} or bare. A response without an
// accountBalance.account object is a *ResponseError (ErrInvalidResponse).
func (s *AccountsService) Balance(ctx context.Context, transactionID string, opts ...Option) (*models.AccountBalance, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	bal, err := call[models.AccountBalance](ctx, s.client, ops.AccountsBalance, args{IDs: []string{transactionID}}, opts)
	if err != nil {
		return nil, err
	}
	if bal.Account == nil {
		return nil, resultError(ops.AccountsBalance, errors.New(`response has no "accountBalance.account" object`), transactionID)
	}
	return bal, nil
}

// User reads the personal data the user's bank holds (every field a list):
// GET /transactions/{transactionId}/payment/paymentProvider/user. The response
// is read wrapped in {"user":{…}} (spec) or bare (OpenAPI).
//
// WithExpand asks for more detail (?expand=customer.segmentedName fills
// SegmentedName). For the verified identity of an authorization created
// with kycType 1, use IdentityService.User instead.
func (s *AccountsService) User(ctx context.Context, transactionID string, opts ...Option) (*models.BankUser, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return call[models.BankUser](ctx, s.client, ops.AccountsUser, args{IDs: []string{transactionID}}, opts)
}

// Summary reads the cash-flow summary of the user's accounts, with
// aggregations over 7, 30 and 90 days: GET /transactions/{transactionId}/accountSummary.
// The response is a bare object, not wrapped.
//
// An respond with no "summary" array at all (missing or null) is a
// *ResponseError (ErrInvalidResponse); an empty array is a valid respond with
// no accounts.
func (s *AccountsService) Summary(ctx context.Context, transactionID string, opts ...Option) (*models.AccountSummary, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	// Bare in the spec and in the OpenAPI: no wrapper key.
	sum, err := call[models.AccountSummary](ctx, s.client, ops.AccountsSummary, args{IDs: []string{transactionID}}, opts)
	if err != nil {
		return nil, err
	}
	if sum.Summary == nil {
		return nil, resultError(ops.AccountsSummary, errors.New(`response has no "summary" array`), transactionID)
	}
	return sum, nil
}

// ListSelected reads every account the user selected in the authorization
// transactionID: GET /transactions/{transactionId}/payment/paymentProvider/accounts,
// read from {"accounts":[…]} (or a bare array). The list is not paged; one
// of more than 1,000 accounts is a *ResponseError (ErrInvalidResponse),
// refused before it is decoded (listWhole). Read
// after the DataReady event: earlier, the data may be partial. A read:
// retried on a network error or a 5xx response.
func (s *AccountsService) ListSelected(ctx context.Context, transactionID string, opts ...Option) ([]models.Account, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return listWhole[models.Account](ctx, s.client, ops.AccountsListSelected, args{IDs: []string{transactionID}}, opts)
}
