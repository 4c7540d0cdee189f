package bankpay

import (
	"context"
	"net/http"

	"github.com/bankpay/bankpay-go/models"
)

// TransactionsService establishes, reads, deposits to and captures from
// transactions.
type TransactionsService service

// Get reads a transaction: GET /transactions/{transactionId}.
func (s *TransactionsService) Get(ctx context.Context, transactionID string, opts ...CallOption) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	path := PathJoin("transactions", transactionID)
	var env models.TransactionEnvelope
	if err := s.client.call(ctx, http.MethodGet, path, nil, nil, &env, opts); err != nil {
		return nil, err
	}
	return unwrap(env.Transaction, http.MethodGet, path, "transaction")
}
