package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// listPageSize is the size of the canned list page: the SDK's default
// page.
const listPageSize = 100

var pathTransactions = "/api/v1/transactions"

// listResponse is one page of GET /transactions: listPageSize full
// transactions, {"transactions":[…]} as the OpenAPI shows it.
var listResponse = func() []byte {
	page := struct {
		Transactions []*models.Transaction `json:"transactions"`
	}{}
	for i := range listPageSize {
		t := cannedTransaction(models.TypeDeposit)
		t.TransactionID = fmt.Sprintf("10025812%07d", i)
		t.MerchantReference = fmt.Sprintf("order-%06d-payout", i)
		page.Transactions = append(page.Transactions, t)
	}
	return mustJSON(page)
}()

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

var sinkPage []models.Transaction

// BenchmarkListPage: one page of 100 transactions, Transactions.ListPage
// against a GET and encoding/json decode of the same page.
func BenchmarkListPage(b *testing.B) {
	e := newPairEnv(b)
	p := &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: listPageSize}}
	pair(b, "",
		func() error {
			page, err := e.sdk.Transactions.ListPage(ctx, p)
			if err == nil {
				sinkPage = page.Items
				if len(sinkPage) != listPageSize {
					err = fmt.Errorf("%d items", len(sinkPage))
				}
			}
			return err
		},
		func() (err error) { sinkPage, err = e.bare.listTransactions(ctx, 0, listPageSize); return })
}
