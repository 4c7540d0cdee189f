package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/bankpay/bankpay-go/models"
)

// listPageSize is the size of the canned list page: the SDK's default
// page.
const listPageSize = 100

var pathTransactions = "/api/v1/transactions"

// listTransactions is the baseline: GET /transactions with the same query
// and encoding/json into the same types.
func (c *bareClient) listTransactions(ctx context.Context, startIndex, count int) ([]models.Transaction, error) {
	q := url.Values{"startIndex": {strconv.Itoa(startIndex)}, "count": {strconv.Itoa(count)}}
	var page struct {
		Transactions []models.Transaction `json:"transactions"`
	}
	if err := c.do(ctx, http.MethodGet, "/transactions?"+q.Encode(), "", nil, &page); err != nil {
		return nil, err
	}
	if page.Transactions == nil {
		return nil, fmt.Errorf("no transactions")
	}
	return page.Transactions, nil
}

// BenchmarkListPage: one page of 100 transactions, Transactions.ListPage
// against a GET and encoding/json decode of the same page, and the ogen
// client's.
func BenchmarkListPage(b *testing.B) { benchCall(b, callList) }
