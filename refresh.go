package bankpay

import (
	"context"
	"errors"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/wire"
)

// Refresh asks the service to update the data of an authorization (or a
// preauthorization) to the most recent the bank has:
// POST /transactions/{transactionId}/refresh (JSON {"splitToken":…}).
// splitToken is the token of the authorization's Authorize event
// (required). It returns the refresh's processId; the outcome arrives later
// in a Refresh event (Event.Transaction.Refresh).
//
// Refresh changes state, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given.
func (s *TransactionsService) Refresh(ctx context.Context, transactionID, splitToken string, opts ...Option) (processID string, err error) {
	if err := firstError(checkID("transactionId", transactionID), required("splitToken", splitToken)); err != nil {
		return "", err
	}
	path := pathJoin("transactions", transactionID, "refresh")
	r, err := call[wire.RefreshProcess](ctx, s.client, http.MethodPost, path, nil, &wire.RefreshRequest{SplitToken: splitToken}, "refresh", opts)
	if err != nil {
		return "", err
	}
	if r.ProcessID == "" {
		return "", &ResponseError{StatusCode: http.StatusOK, Method: http.MethodPost, Path: path, Err: errors.New("response has no refresh.processId")}
	}
	return r.ProcessID, nil
}
