package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listTxnJSON is a transaction of a list page with id and merchantReference.
func listTxnJSON(id, ref string) string {
	return fmt.Sprintf(`{"transactionId":%q,"transactionType":6,"status":2,"amount":"1.00","transactionType":"6","originalTransactionId":"1002581234567",
  "payment":{"paymentId":"1002581234568","paymentType":"4","account":{"accountNumber":"6789","type":1.0}},
  "currency":"USD","amount":"10.00","status":"3","statusMessage":"Processed","createdAt":1700000000000,
  "merchantReference":%q,"recordVersion":2.0}`, id, ref)
}

// txnPage is a {"transactions":[…]} body of transactions t1, t2, … n of
// them from first.
func txnPage(first, n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = listTxnJSON(fmt.Sprintf("t%d", first+i), fmt.Sprintf("ref-%d", first+i))
	}
	return `{"transactions":[` + strings.Join(items, ",") + `]}`
}

// queryResponder checks the raw query of each successive request and
// responds with the body given for it.
type pageStep struct {
	query string
	body  string
}

func pages(t *testing.T, mock *httpmock.MockTransport, path string, steps ...pageStep) func() int {
	t.Helper()
	rs := make([]httpmock.Responder, len(steps))
	for i, st := range steps {
		rs[i] = func(req *http.Request) (*http.Response, error) {
			checkRequest(t, req, wantRequest{Method: "GET", Path: path, RawQuery: st.query})
			return jsonResponse(200, st.body)(req)
		}
	}
	n := sequence(t, mock, rs...)
	return func() int { return int(n.Load()) }
}

func TestTransactions_ListPageQuery(t *testing.T) {
	c, mock, _ := newTestClient(t)
	const query = "amount.max=25.00&amount.min=10.00&count=50&createdAt.end=1700000100000&createdAt.start=1700000000000" +
		"&orderBy=amount&originalTransactionId=1002581234567&payment.customer.externalId=cust+7" +
		"&payment.merchantReference=order-42&payment.paymentId=p-1&payment.paymentType=2&payment.paymentType=4" +
		"&sortOrder=desc&startIndex=10&transactionStatus=2&transactionStatus=3&transactionType=6" +
		"&updatedAt.end=1700000300000&updatedAt.start=1700000200000"
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions", RawQuery: query}, 200, txnPage(1, 2))
	p := &TransactionListParams{
		TransactionTypes:      []models.TransactionType{models.TypeDeposit},
		Statuses:              []models.TransactionStatus{models.StatusAuthorized, models.StatusProcessed},
		PaymentTypes:          []models.PaymentType{models.PaymentTypeDeferred, models.PaymentTypeDisbursement},
		MerchantReference:     "order-42",
		OriginalTransactionID: "1002581234567",
		PaymentID:             "p-1",
		CustomerExternalID:    "cust 7",
		ListRange: ListRange{
			AmountMin:      "10.00",
			AmountMax:      "25.00",
			CreatedAtStart: time.UnixMilli(1700000000000),
			CreatedAtEnd:   time.UnixMilli(1700000100000),
			UpdatedAtStart: time.UnixMilli(1700000200000),
			UpdatedAtEnd:   time.UnixMilli(1700000300000),
			OrderBy:        "amount",
			SortOrder:      "desc",
			StartIndex:     10,
			Count:          50,
		},
	}
	page, err := c.Transactions.ListPage(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, 10, page.StartIndex, "the offset asked: the transactions list reports none")
	assert.Equal(t, 0, page.ItemsPerPage)
	require.Len(t, page.Items, 2)
	got := page.Items[1]
	assert.Equal(t, "t2", got.TransactionID)
	assert.Equal(t, models.TypeDeposit, got.TransactionType)
	assert.Equal(t, models.StatusProcessed, got.Status)
	assert.Equal(t, models.PaymentTypeDisbursement, got.Payment.PaymentType)
	assert.Equal(t, 2, got.RecordVersion)
	assert.Equal(t, "ref-2", got.MerchantReference)
}

func TestTransactions_ListPageDefaults(t *testing.T) {
	for _, p := range []*TransactionListParams{nil, {}} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions", RawQuery: "count=100&startIndex=0"}, 200, `{"transactions":[]}`)
		page, err := c.Transactions.ListPage(context.Background(), p)
		require.NoError(t, err)
		assert.Empty(t, page.Items)
	}
}

func TestTransactions_ListReadsPageByPage(t *testing.T) {
	c, mock, _ := newTestClient(t)
	n := pages(t, mock, "/api/v1/transactions",
		pageStep{"count=2&startIndex=0&transactionType=6", txnPage(1, 2)},
		pageStep{"count=2&startIndex=2&transactionType=6", txnPage(3, 2)},
		pageStep{"count=2&startIndex=4&transactionType=6", txnPage(5, 1)},
		pageStep{"count=2&startIndex=5&transactionType=6", `{"transactions":[]}`},
	)
	p := &TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeDeposit}, ListRange: ListRange{Count: 2}}
	var ids []string
	for txn, err := range c.Transactions.List(context.Background(), p) {
		require.NoError(t, err)
		ids = append(ids, txn.TransactionID)
		// Lazy: the next page is read only when this one is used up.
		assert.Equal(t, (len(ids)+1)/2, n(), "after %d items", len(ids))
	}
	assert.Equal(t, []string{"t1", "t2", "t3", "t4", "t5"}, ids)
	assert.Equal(t, 4, n(), "a short page is not the end: an empty one is")
	assert.Equal(t, 2, p.Count, "params are not modified")
}

func TestTransactions_ListFromStartIndex(t *testing.T) {
	c, mock, _ := newTestClient(t)
	n := pages(t, mock, "/api/v1/transactions",
		pageStep{"count=3&startIndex=7", txnPage(8, 3)},
		pageStep{"count=3&startIndex=10", `{"transactions":[]}`},
	)
	var ids []string
	for txn, err := range c.Transactions.List(context.Background(), &TransactionListParams{ListRange: ListRange{StartIndex: 7, Count: 3}}) {
		require.NoError(t, err)
		ids = append(ids, txn.TransactionID)
	}
	assert.Equal(t, []string{"t8", "t9", "t10"}, ids)
	assert.Equal(t, 2, n(), "a full last page is followed by an empty one")
}

// A service that caps the page below the count asked, whether it says so
// in itemsPerPage or not (the transactions list never does), does not end
// the list early: each page starts where the items received end, and only
// an empty page ends the list.
func TestListPageCappedBelowCount(t *testing.T) {
	for _, ipp := range []string{`{"startIndex":0,"itemsPerPage":2,"transactions":`, `{"transactions":`} {
		c, mock, _ := newTestClient(t)
		capped := func(first, n int) string {
			return strings.Replace(txnPage(first, n), `{"transactions":`, ipp, 1)
		}
		n := pages(t, mock, "/api/v1/transactions",
			pageStep{"count=5&startIndex=0", capped(1, 2)},
			pageStep{"count=5&startIndex=2", capped(3, 2)},
			pageStep{"count=5&startIndex=4", capped(5, 1)},
			pageStep{"count=5&startIndex=5", capped(6, 0)},
		)
		var ids []string
		for txn, err := range c.Transactions.List(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 5}}) {
			require.NoError(t, err)
			ids = append(ids, txn.TransactionID)
		}
		assert.Equal(t, []string{"t1", "t2", "t3", "t4", "t5"}, ids, ipp)
		assert.Equal(t, 4, n(), ipp)
	}
}

func TestTransactions_ListStops(t *testing.T) {
	t.Run("when the loop breaks", func(t *testing.T) {
		c, mock, _ := newTestClient(t)
		n := pages(t, mock, "/api/v1/transactions", pageStep{"count=2&startIndex=0", txnPage(1, 2)})
		for range c.Transactions.List(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 2}}) {
			break
		}
		assert.Equal(t, 1, n())
	})
	t.Run("at the first error", func(t *testing.T) {
		c, mock, _ := newTestClient(t)
		n := sequence(t, mock, jsonResponse(200, txnPage(1, 2)),
			jsonResponse(401, `{"errors":[{"domain":"com.bankpay.security","code":375,"message":"Access control error"}]}`))
		var ids []string
		var errs []error
		for txn, err := range c.Transactions.List(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 2}}) {
			if err != nil {
				assert.Nil(t, txn)
				errs = append(errs, err)
				continue
			}
			ids = append(ids, txn.TransactionID)
		}
		assert.Equal(t, []string{"t1", "t2"}, ids)
		require.Len(t, errs, 1, "one error, then the iteration ends")
		assert.ErrorIs(t, errs[0], ErrUnauthorized)
		assert.Equal(t, int32(2), n.Load())
		assertNoSecret(t, errs[0].Error())
	})
	t.Run("when the context ends", func(t *testing.T) {
		c, mock, _ := newTestClient(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := pages(t, mock, "/api/v1/transactions", pageStep{"count=2&startIndex=0", txnPage(1, 2)})
		var errs []error
		for txn, err := range c.Transactions.List(ctx, &TransactionListParams{ListRange: ListRange{Count: 2}}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if txn.TransactionID == "t2" {
				cancel()
			}
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], context.Canceled)
		assert.Equal(t, 1, n(), "no page is read after the context ended")
	})
}

func TestTransactions_ListErrorResponses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		is     error
		tries  int32
	}{
		{"400 invalid parameter", 400, `{"errors":[{"domain":"com.bankpay.api","code":200,"message":"Invalid parameter: count"}]}`, ErrBadRequest, 1},
		{"401", 401, `{"errors":[{"code":375,"message":"Access control error"}]}`, ErrUnauthorized, 1},
		{"404", 404, `{"errors":[{"code":200,"message":"not found"}]}`, ErrNotFound, 1},
		{"500, retried", 500, `{"errors":[{"code":100,"message":"Internal error"}]}`, ErrServer, 1 + defaultMaxRetries},
		{"not JSON", 200, `<html>ok</html>`, ErrInvalidResponse, 1},
		{"truncated", 200, `{"transactions":[{"transactionId":"t1"`, ErrInvalidResponse, 1},
		{"no transactions", 200, `{"payments":[]}`, ErrInvalidResponse, 1},
		{"transactions not an array", 200, `{"transactions":{"transactionId":"t1"}}`, ErrInvalidResponse, 1},
		{"a wrong field type", 200, `{"transactions":[{"transactionId":"t1","transactionType":6,"status":2,"amount":"1.00","amount":{"v":1}}]}`, ErrInvalidResponse, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions", RawQuery: "count=100&startIndex=0"}, tc.status, tc.body)
			_, err := c.Transactions.ListPage(context.Background(), nil)
			require.ErrorIs(t, err, tc.is)
			if tc.status == 200 {
				var re *ResponseError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, "/transactions", re.Path)
			} else {
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tc.status, apiErr.StatusCode)
			}
			assert.Equal(t, tc.tries, calls.Load())
			// The iterator yields the same error.
			calls.Store(0)
			for txn, err := range c.Transactions.List(context.Background(), nil) {
				assert.Nil(t, txn)
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Equal(t, tc.tries, calls.Load())
		})
	}
}

func TestTransactions_ListBareArray(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions", RawQuery: "count=100&startIndex=0"}, 200,
		`[`+listTxnJSON("t1", "a")+`]`)
	page, err := c.Transactions.ListPage(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "t1", page.Items[0].TransactionID)
}

// transactionListInvalid are params the SDK refuses, with the wire field
// named.
var transactionListInvalid = []struct {
	field string
	p     TransactionListParams
}{
	{"transactionType", TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeDeposit, 9}}},
	{"transactionStatus", TransactionListParams{Statuses: []models.TransactionStatus{9}}},
	{"payment.paymentType", TransactionListParams{PaymentTypes: []models.PaymentType{0}}},
	{"payment.paymentType", TransactionListParams{PaymentTypes: []models.PaymentType{7}}},
	{"payment.merchantReference", TransactionListParams{MerchantReference: "a\x00b"}},
	{"originalTransactionId", TransactionListParams{OriginalTransactionID: "1\n2"}},
	{"payment.paymentId", TransactionListParams{PaymentID: "p\x00"}},
	{"payment.customer.externalId", TransactionListParams{CustomerExternalID: "c\r"}},
	{"amount.min", TransactionListParams{ListRange: ListRange{AmountMin: "10"}}},
	{"amount.max", TransactionListParams{ListRange: ListRange{AmountMax: "-1.00"}}},
	{"amount.max", TransactionListParams{ListRange: ListRange{AmountMin: "10.00", AmountMax: "9.99"}}},
	{"createdAt.end", TransactionListParams{ListRange: ListRange{CreatedAtStart: time.UnixMilli(2000), CreatedAtEnd: time.UnixMilli(1000)}}},
	{"createdAt.start", TransactionListParams{ListRange: ListRange{CreatedAtStart: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}}},
	{"createdAt.end", TransactionListParams{ListRange: ListRange{CreatedAtEnd: time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC)}}}, // past unixmilli's range
	{"updatedAt.end", TransactionListParams{ListRange: ListRange{UpdatedAtStart: time.UnixMilli(2000), UpdatedAtEnd: time.UnixMilli(1999)}}},
	{"updatedAt.end", TransactionListParams{ListRange: ListRange{UpdatedAtEnd: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	{"orderBy", TransactionListParams{ListRange: ListRange{OrderBy: "color"}}},
	{"orderBy", TransactionListParams{ListRange: ListRange{OrderBy: "paymentId"}}},
	{"sortOrder", TransactionListParams{ListRange: ListRange{SortOrder: "up"}}},
	{"startIndex", TransactionListParams{ListRange: ListRange{StartIndex: -1}}},
	{"count", TransactionListParams{ListRange: ListRange{Count: -1}}},
	{"count", TransactionListParams{ListRange: ListRange{Count: maxPageSize + 1}}},
}

func TestTransactions_ListRejectsInvalidParams(t *testing.T) {
	for _, tc := range transactionListInvalid {
		t.Run(tc.field, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.ListPage(context.Background(), &tc.p)
				return err
			})
			checkRejected(t, tc.field, func(c *Client) error {
				var errs []error
				for txn, err := range c.Transactions.List(context.Background(), &tc.p) {
					assert.Nil(t, txn)
					errs = append(errs, err)
				}
				require.Len(t, errs, 1)
				return errs[0]
			})
		})
	}
	// Bounds that are accepted.
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions",
		RawQuery: "amount.max=10.00&amount.min=10.00&count=1000&createdAt.end=5&createdAt.start=5&startIndex=0"}, 200, `{"transactions":[]}`)
	_, err := c.Transactions.ListPage(context.Background(), &TransactionListParams{ListRange: ListRange{AmountMin: "10.00", AmountMax: "10.00", CreatedAtStart: time.UnixMilli(5), CreatedAtEnd: time.UnixMilli(5), Count: maxPageSize}})
	require.NoError(t, err)
}

// findTxnJSON is a transaction of a list page with id, originalTransactionId
// (none when empty) and merchantReference.
func findTxnJSON(id, original, ref string) string {
	o := ""
	if original != "" {
		o = fmt.Sprintf(`"originalTransactionId":%q,`, original)
	}
	return fmt.Sprintf(`{"transactionId":%q,"transactionType":6,"status":2,"amount":"1.00",%s"transactionType":"6","status":"3","amount":"10.00","merchantReference":%q}`, id, o, ref)
}

// findPage is a {"transactions":[…]} body of the transactions given as
// findTxnJSON's.
func findPage(items ...string) string {
	return `{"transactions":[` + strings.Join(items, ",") + `]}`
}

// others is n transactions t<first>… made from original with reference
// "other".
func others(first, n int, original string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = findTxnJSON(fmt.Sprintf("t%d", first+i), original, "other")
	}
	return out
}

const (
	findByOriginal = "count=100&orderBy=createdAt&originalTransactionId=A1&sortOrder=asc&startIndex="
	findByPayment  = "count=100&orderBy=createdAt&payment.merchantReference=order-42&sortOrder=asc&startIndex="
)

var emptyPage = `{"transactions":[]}`

// originalTxnJSON is a transaction id of type typ, as GET
// /transactions/{id} answers.
func originalTxnJSON(id string, typ models.TransactionType) string {
	return fmt.Sprintf(`{"transaction":{"transactionId":%q,"transactionType":%d,"status":2,"amount":"10.00"}}`, id, int(typ))
}

// findClient is a test client whose GET /transactions/A1 answers an
// authorization, the original of the lookups of this file.
func findClient(t *testing.T) (*Client, *httpmock.MockTransport) {
	c, mock, _ := newTestClient(t)
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/transactions/A1", jsonResponse(200, originalTxnJSON("A1", models.TypeAuthorize)))
	return c, mock
}

func TestTransactionsFindByOriginal(t *testing.T) {
	t.Parallel() // its own clients and mocks: beside the other long tests
	find := func(c *Client) (*models.Transaction, error) {
		return c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	}
	t.Run("found on a capped page", func(t *testing.T) {
		// A server that returns 50 of the 100 asked, with no itemsPerPage:
		// the next page starts at 50, and the list ends at an empty page.
		c, mock := findClient(t)
		n := pages(t, mock, "/api/v1/transactions",
			pageStep{findByOriginal + "0", findPage(others(1, 50, "A1")...)},
			pageStep{findByOriginal + "50", findPage(append(others(51, 20, "A1"), findTxnJSON("D7", "A1", "dep-7"))...)},
			pageStep{findByOriginal + "71", emptyPage},
		)
		got, err := find(c)
		require.NoError(t, err)
		assert.Equal(t, "D7", got.TransactionID)
		assert.Equal(t, 3, n(), "read to the empty page: a second D7 would be ErrAmbiguous")
	})
	t.Run("not found after the whole list", func(t *testing.T) {
		c, mock := findClient(t)
		n := pages(t, mock, "/api/v1/transactions",
			pageStep{findByOriginal + "0", findPage(others(1, 30, "A1")...)},
			pageStep{findByOriginal + "30", emptyPage},
		)
		_, err := find(c)
		require.ErrorIs(t, err, ErrNotFound)
		assert.NotErrorIs(t, err, ErrIncomplete)
		assert.NotErrorIs(t, err, ErrAmbiguous)
		assert.Equal(t, 2, n())
	})
	t.Run("several", func(t *testing.T) {
		c, mock := findClient(t)
		pages(t, mock, "/api/v1/transactions",
			pageStep{findByOriginal + "0", findPage(findTxnJSON("D1", "A1", "dep-7"), findTxnJSON("D2", "A1", "dep-7"))},
			pageStep{findByOriginal + "2", emptyPage},
		)
		got, err := find(c)
		require.ErrorIs(t, err, ErrAmbiguous)
		assert.NotErrorIs(t, err, ErrNotFound)
		assert.Nil(t, got)
	})
	t.Run("a server that ignores the filter", func(t *testing.T) {
		// The reference matched under another transaction, and the
		// authorization itself, are not the deposit; one whose list view
		// has no originalTransactionId is kept (the safe side).
		c, mock := findClient(t)
		pages(t, mock, "/api/v1/transactions",
			pageStep{findByOriginal + "0", findPage(findTxnJSON("A1", "", "dep-7"), findTxnJSON("D1", "A9", "dep-7"), findTxnJSON("D2", "", "dep-7"))},
			pageStep{findByOriginal + "3", emptyPage},
		)
		got, err := find(c)
		require.NoError(t, err)
		assert.Equal(t, "D2", got.TransactionID)
	})
	t.Run("a page that fails", func(t *testing.T) {
		for _, tc := range []struct {
			status int
			is     error
		}{{401, ErrUnauthorized}, {404, nil}, {400, ErrBadRequest}} {
			c, mock := findClient(t)
			sequence(t, mock, jsonResponse(200, findPage(others(1, 50, "A1")...)),
				jsonResponse(tc.status, `{"errors":[{"message":"no"}]}`))
			_, err := find(c)
			require.ErrorIs(t, err, ErrIncomplete, "%d", tc.status)
			assert.NotErrorIs(t, err, ErrNotFound, "%d on page 2 is not an answer: the deposit may be on it", tc.status)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr, "the page's error is there for errors.As")
			assert.Equal(t, tc.status, apiErr.StatusCode)
		}
	})
	t.Run("a page holding more than asked", func(t *testing.T) {
		c, mock := findClient(t)
		sequence(t, mock, jsonResponse(200, findPage(others(1, 101, "A1")...)))
		_, err := find(c)
		require.ErrorIs(t, err, ErrIncomplete)
		assert.ErrorIs(t, err, ErrInvalidResponse)
		assert.NotErrorIs(t, err, ErrNotFound)
	})
	t.Run("the context ends", func(t *testing.T) {
		c, mock := findClient(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
			cancel() // after this page
			return jsonResponse(200, findPage(others(1, 50, "A1")...))(req)
		})
		_, err := c.Transactions.FindByMerchantReference(ctx, &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
		require.ErrorIs(t, err, ErrIncomplete)
		assert.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, ErrNotFound)
	})
	t.Run("the page budget", func(t *testing.T) {
		// A server that returns fresh pages forever, capped at two items:
		// the budget counts pages, whatever they hold, and pages of more
		// than one item tell a budget of pages from one of items (a
		// budget compared with the items read would stop after 100 pages).
		c, mock := findClient(t)
		var n atomic.Int32
		mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
			start, err := strconv.Atoi(req.URL.Query().Get("startIndex"))
			require.NoError(t, err)
			n.Add(1)
			return jsonResponse(200, findPage(others(start, 2, "A1")...))(req)
		})
		_, err := find(c)
		require.ErrorIs(t, err, ErrIncomplete)
		assert.NotErrorIs(t, err, ErrNotFound)
		assert.Contains(t, err.Error(), "200 pages (400 items) read without reaching the end of the list")
		assert.Equal(t, int32(findPageBudget), n.Load())
	})
}

func TestTransactions_FindAuthorization(t *testing.T) {
	find := func(c *Client) (*models.Transaction, error) {
		got, ok, err := c.Transactions.FindAuthorization(context.Background(), "order-42")
		assert.Equal(t, got != nil, ok, "found reports whether a transaction is returned")
		return got, err
	}
	t.Run("the authorization, not a transaction made from it", func(t *testing.T) {
		// Under either reading of payment.merchantReference: the payment's
		// transactions (a deposit with the same reference among them).
		c, mock, _ := newTestClient(t)
		n := pages(t, mock, "/api/v1/transactions",
			pageStep{findByPayment + "0", findPage(findTxnJSON("D0", "A1", "order-42-deposit"), findTxnJSON("A1", "", "order-42"),
				findTxnJSON("D1", "A1", "order-42"))},
			pageStep{findByPayment + "3", emptyPage},
		)
		got, err := find(c)
		require.NoError(t, err)
		assert.Equal(t, "A1", got.TransactionID)
		assert.Equal(t, 2, n())
	})
	t.Run("none", func(t *testing.T) {
		// A deposit's reference given to the authorization lookup: no
		// authorization has it, which is no error and never ErrNotFound
		// (read as "not made": pay again).
		c, mock, _ := newTestClient(t)
		pages(t, mock, "/api/v1/transactions",
			pageStep{findByPayment + "0", findPage(findTxnJSON("D1", "A1", "order-42"))},
			pageStep{findByPayment + "1", emptyPage},
		)
		got, ok, err := c.Transactions.FindAuthorization(context.Background(), "order-42")
		require.NoError(t, err)
		assert.False(t, ok)
		assert.Nil(t, got)
	})
	t.Run("a reference with query characters", func(t *testing.T) {
		// The SDK never sends such a reference, but one made elsewhere is
		// found all the same: the filter is escaped.
		c, mock, _ := newTestClient(t)
		pages(t, mock, "/api/v1/transactions",
			pageStep{"count=100&orderBy=createdAt&payment.merchantReference=a%26b%3Dc+d%25&sortOrder=asc&startIndex=0", findPage(findTxnJSON("A1", "", "a&b=c d%"))},
			pageStep{"count=100&orderBy=createdAt&payment.merchantReference=a%26b%3Dc+d%25&sortOrder=asc&startIndex=1", emptyPage},
		)
		got, ok, err := c.Transactions.FindAuthorization(context.Background(), "a&b=c d%")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, "a&b=c d%", got.MerchantReference)
	})
	for _, ref := range []string{"", "x\n"} {
		checkRejected(t, "merchantReference", func(c *Client) error {
			_, _, err := c.Transactions.FindAuthorization(context.Background(), ref)
			return err
		})
	}
}

// The reconciliation of a money call requires the transaction it was made
// against: without one, a deposit's reference would be looked up among the
// authorizations and answer ErrNotFound ("not made: pay again").
func TestTransactions_FindByMerchantReferenceRejects(t *testing.T) {
	for _, tc := range []struct {
		field string
		p     *FindParams
	}{
		{"params", nil},
		{"merchantReference", &FindParams{OriginalTransactionID: "A1"}},
		{"originalTransactionId", &FindParams{MerchantReference: "order-42"}},
		{"merchantReference", &FindParams{MerchantReference: "x\n", OriginalTransactionID: "A1"}},
		{"merchantReference", &FindParams{MerchantReference: "\x7f", OriginalTransactionID: "A1"}},
		{"originalTransactionId", &FindParams{MerchantReference: "r", OriginalTransactionID: "A\x001"}},
		{"type", &FindParams{MerchantReference: "r", OriginalTransactionID: "A1"}},
		{"type", &FindParams{MerchantReference: "r", OriginalTransactionID: "A1", Type: models.TypeExternal}},
		{"type", &FindParams{MerchantReference: "r", OriginalTransactionID: "A1", Type: models.TypeAuthorize}},
		{"type", &FindParams{MerchantReference: "r", OriginalTransactionID: "A1", Type: models.TransactionType(99)}},
	} {
		checkRejected(t, tc.field, func(c *Client) error {
			_, err := c.Transactions.FindByMerchantReference(context.Background(), tc.p)
			return err
		})
	}
}

func TestListNilContext(t *testing.T) {
	var nilCtx context.Context
	checkRejected(t, "ctx", func(c *Client) error {
		for _, err := range c.Transactions.List(nilCtx, nil) {
			return err
		}
		return nil
	})
	checkRejected(t, "ctx", func(c *Client) error {
		_, err := c.Transactions.FindByMerchantReference(nilCtx, &FindParams{MerchantReference: "order-42", OriginalTransactionID: "A1", Type: models.TypeDeposit})
		return err
	})
	checkRejected(t, "ctx", func(c *Client) error {
		_, _, err := c.Transactions.FindAuthorization(nilCtx, "order-42")
		return err
	})
	checkRejected(t, "ctx", func(c *Client) error {
		_, err := c.Payments.ListPage(nilCtx, nil)
		return err
	})
}

// The lists send only the query names docs/wire.md lists as offered: every
// field of the params set (a field added to them fails here until its name
// is added), no account-number filter and none of the filters not offered.
func TestListParamsSendOnlyOfferedNames(t *testing.T) {
	r := ListRange{AmountMin: "1.00", AmountMax: "2.00", CreatedAtStart: time.UnixMilli(1), CreatedAtEnd: time.UnixMilli(2),
		UpdatedAtStart: time.UnixMilli(3), UpdatedAtEnd: time.UnixMilli(4), OrderBy: "amount", SortOrder: "desc", StartIndex: 5, Count: 6}
	for i, rv := 0, reflect.ValueOf(r); i < rv.NumField(); i++ {
		require.False(t, rv.Field(i).IsZero(), "ListRange.%s is not set in this test", rv.Type().Field(i).Name)
	}
	rangeNames := []string{"amount.max", "amount.min", "count", "createdAt.end", "createdAt.start", "orderBy", "sortOrder",
		"startIndex", "updatedAt.end", "updatedAt.start"}
	for _, tc := range []struct {
		params any
		names  []string
	}{
		{
			params: &TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeDeposit},
				Statuses: []models.TransactionStatus{models.StatusAuthorized}, PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred},
				MerchantReference: "r", OriginalTransactionID: "o", PaymentID: "p", CustomerExternalID: "c", ListRange: r},
			names: []string{"originalTransactionId", "payment.customer.externalId", "payment.merchantReference", "payment.paymentId",
				"payment.paymentType", "transactionStatus", "transactionType"},
		},
		{
			params: &PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred},
				AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized}, MerchantReference: "r", CustomerID: "c", ListRange: r},
			names: []string{"authorization.status", "customer.customerId", "merchantReference", "paymentType"},
		},
	} {
		v := reflect.ValueOf(tc.params).Elem()
		for i := range v.NumField() {
			require.False(t, v.Field(i).IsZero(), "%T.%s is not set in this test", tc.params, v.Type().Field(i).Name)
		}
		var q url.Values
		var err error
		switch p := tc.params.(type) {
		case *TransactionListParams:
			q, err = p.query()
		case *PaymentListParams:
			q, err = p.query()
		}
		require.NoError(t, err)
		want := slices.Sorted(slices.Values(append(slices.Clone(rangeNames), tc.names...)))
		assert.Equal(t, want, slices.Sorted(maps.Keys(q)), "%T", tc.params)
	}
}

func serverClient(t *testing.T, h http.HandlerFunc) *Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/transactions/A1") { // the original of the lookups: an authorization
			_, _ = io.WriteString(w, originalTxnJSON("A1", models.TypeAuthorize))
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(Credentials{AccessID: "id", AccessKey: NewSecret("key0123456789abcdef"), MerchantID: "m"},
		WithBaseURL(srv.URL), WithRetryBackoff(0, 0))
	require.NoError(t, err)
	return c
}

// A server that returns the same full page for every startIndex: List
// (and FindByMerchantReference) never ends on its own.
func TestTransactions_FindByMerchantReferenceRepeatedFullPageLoops(t *testing.T) {
	var pages atomic.Int64
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		items := make([]map[string]any, 100)
		for i := range items {
			items[i] = map[string]any{"transactionId": fmt.Sprint("X", i), "transactionType": 6, "status": 2, "amount": "1.00", "merchantReference": "other"}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"transactions": items})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.Transactions.FindByMerchantReference(ctx, &FindParams{MerchantReference: "mine", OriginalTransactionID: "A1", Type: models.TypeDeposit})
	assert.LessOrEqual(t, pages.Load(), int64(3), "FINDING: FindByMerchantReference read %d pages of the same repeated page (err %v); it ends only by the caller's deadline", pages.Load(), err)
	assert.NotErrorIs(t, err, ErrNotFound, "err %v, want ErrInvalidResponse (never ErrNotFound: that says pay again)", err)
	assert.ErrorIs(t, err, ErrInvalidResponse, "err %v, want ErrInvalidResponse (never ErrNotFound: that says pay again)", err)
}

// Offset paging over a growing list: the matching transaction shows up at
// the end of one page and again at the start of the next. It is one
// transaction, not two (ErrAmbiguous before).
func TestTransactions_FindByMerchantReferenceShiftedDuplicateIsOne(t *testing.T) {
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		items := []map[string]any{}
		switch r.URL.Query().Get("startIndex") {
		case "0":
			for i := range 99 {
				items = append(items, map[string]any{"transactionId": fmt.Sprint("X", i), "transactionType": 6, "status": 2, "amount": "1.00", "merchantReference": "other"})
			}
			fallthrough
		case "100": // shifted down a page by a newer transaction
			items = append(items, map[string]any{"transactionId": "M", "transactionType": 6, "status": 2, "amount": "1.00", "merchantReference": "mine"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"transactions": items})
	})
	got, _, err := c.Transactions.FindAuthorization(context.Background(), "mine")
	require.NoError(t, err, "got %v, %v; want M", got, err)
	require.Equal(t, "M", got.TransactionID, "got %v, %v; want M", got, err)
}

// movingOrderServer serves the 250 transactions made from A1 (t0…t248 and
// the lost deposit L, reference dep-7) in two orders that differ only by
// where L stands among ties of one creation time: at 150 in order A, at 50
// in order B. stable(n) says whether the n-th page read (from 0) is served
// in order A; otherwise pages alternate A, B, A, …: offset paging then reads
// page 1 in A (without L), page 2 in B (L has moved into page 1, and A's
// 100th shows again), and never sees L.
func movingOrderServer(t *testing.T, stable func(n int) bool) (*Client, *atomic.Int32) {
	return movingPagesServer(t, stable, false, "A1")
}

// movingPagesServer serves movingOrderServer's list: in order A while
// stable(read), else alternating A, B, A…; with upper, every id of a page
// served in order B is in upper case; L's originalTransactionId is orig.
func movingPagesServer(t *testing.T, stable func(n int) bool, upper bool, orig string) (*Client, *atomic.Int32) {
	var orderA, orderB []string
	for i := range 249 {
		orderA = append(orderA, fmt.Sprintf("t%d", i))
	}
	orderB = slices.Clone(orderA)
	orderA = slices.Insert(orderA, 150, "L")
	orderB = slices.Insert(orderB, 50, "L")
	var n atomic.Int32
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		read := int(n.Add(1)) - 1
		order, inB := orderA, false
		if !stable(read) && read%2 == 1 {
			order, inB = orderB, true
		}
		start, err := strconv.Atoi(r.URL.Query().Get("startIndex"))
		assert.NoError(t, err)
		items := []string{}
		for i := start; i < min(start+100, len(order)); i++ {
			id, ref, o := order[i], "other", "A1"
			if id == "L" {
				ref, o = "dep-7", orig
			}
			if upper && inB {
				id = strings.ToUpper(id)
			}
			items = append(items, findTxnJSON(id, o, ref))
		}
		_, _ = io.WriteString(w, findPage(items...))
	})
	return c, &n
}

// Offset paging over an order that moves between page reads (ties ordered
// differently per query) skips the lost deposit while it shows another
// transaction twice: that scan proves nothing, and neither does a second
// one that moves too. ErrIncomplete, never ErrNotFound (which said "not
// made: pay again" before).
func TestTransactions_FindByMerchantReferenceMovingOrder(t *testing.T) {
	c, n := movingOrderServer(t, func(int) bool { return false })
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.ErrorIs(t, err, ErrIncomplete, "got %v", got)
	assert.NotErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "seen twice")
	assert.Equal(t, int32(8), n.Load(), "two scans of 3 pages and the empty one")
}

// A scan that proves nothing is followed by a second one; when that one is
// stable, its answer stands: the deposit skipped by the first is found.
func TestTransactions_FindByMerchantReferenceSecondScanProves(t *testing.T) {
	c, n := movingOrderServer(t, func(read int) bool { return read >= 4 })
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NoError(t, err)
	assert.Equal(t, "L", got.TransactionID)
	assert.Equal(t, int32(8), n.Load())

	// And a reference no transaction has: the stable second scan proves it.
	c, _ = movingOrderServer(t, func(read int) bool { return read >= 4 })
	_, err = c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-8", Type: models.TypeDeposit})
	require.ErrorIs(t, err, ErrNotFound)
	assert.NotErrorIs(t, err, ErrIncomplete)
}

// An item with no transactionId cannot be told from a repeat: the scan
// proves nothing.
func TestTransactions_FindByMerchantReferenceItemWithoutID(t *testing.T) {
	c, mock := findClient(t)
	body := findPage(`{"originalTransactionId":"A1","merchantReference":"other"}`, findTxnJSON("t1", "A1", "other"))
	sequence(t, mock, jsonResponse(200, body), jsonResponse(200, emptyPage), jsonResponse(200, body), jsonResponse(200, emptyPage))
	_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.ErrorIs(t, err, ErrIncomplete)
	assert.NotErrorIs(t, err, ErrNotFound)
}

// A transaction made from the original whose merchantReference cannot be
// read (an array or an object, left unset by the decoder) may be the one
// looked for: ErrIncomplete, not ErrNotFound. One of another original does
// not matter.
func TestTransactions_FindByMerchantReferenceUnreadableReference(t *testing.T) {
	for _, ref := range []string{`["dep-7"]`, `{"value":"dep-7"}`} {
		item := fmt.Sprintf(`{"transactionId":"D7","originalTransactionId":"A1","transactionType":"6","status":"3","amount":"10.00","merchantReference":%s}`, ref)
		c, mock := findClient(t)
		sequence(t, mock, jsonResponse(200, findPage(findTxnJSON("t1", "A1", "other"), item)), jsonResponse(200, emptyPage))
		_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
		require.ErrorIs(t, err, ErrIncomplete, ref)
		assert.NotErrorIs(t, err, ErrNotFound, ref)
		assert.Contains(t, err.Error(), "merchantReference that could not be read", ref)

		// The same item in the authorization lookup's list is not an
		// authorization; an authorization with such a reference is.
		c, mock, _ = newTestClient(t)
		auth := strings.NewReplacer(`"originalTransactionId":"A1",`, "", `"D7"`, `"A7"`).Replace(item)
		sequence(t, mock, jsonResponse(200, findPage(item, auth)), jsonResponse(200, emptyPage))
		_, ok, err := c.Transactions.FindAuthorization(context.Background(), "dep-7")
		require.ErrorIs(t, err, ErrIncomplete, ref)
		assert.False(t, ok)
	}
	// Of another original (a server that ignores the filter): no matter.
	c, mock := findClient(t)
	other := `{"transactionId":"D9","originalTransactionId":"A9","transactionType":6,"status":3,"amount":"10.00","merchantReference":["dep-7"]}`
	sequence(t, mock, jsonResponse(200, findPage(other)), jsonResponse(200, emptyPage))
	_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.ErrorIs(t, err, ErrNotFound)
	// A null or empty reference is read: no match.
	for _, ref := range []string{`null`, `""`} {
		c, mock := findClient(t)
		item := fmt.Sprintf(`{"transactionId":"D7","originalTransactionId":"A1","transactionType":6,"status":3,"amount":"10.00","merchantReference":%s}`, ref)
		sequence(t, mock, jsonResponse(200, findPage(item)), jsonResponse(200, emptyPage))
		_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
		require.ErrorIs(t, err, ErrNotFound, ref)
	}
}

// The memory a scan keeps does not grow with the length of the ids: 10 KiB
// ids on every page (1 MiB a page) grew the set of ids seen by about 1 MiB
// a page before (1.6 GB within the page budget). Measured as the live heap
// after a collection, from the server, between the 2nd and the 7th page
// (the first read sizes the buffers): the 5 MiB of ids a scan that keeps
// them would hold is over twice the 2 MiB allowed, and the set of digests
// grows by about 25 KiB.
func TestTransactions_FindByMerchantReferenceMemoryBounded(t *testing.T) {
	const firstMeasured, pagesServed = 1, 6
	var heap [2]uint64
	pad := strings.Repeat("x", 10<<10)
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		start, _ := strconv.Atoi(r.URL.Query().Get("startIndex"))
		page := start / 100
		if page == firstMeasured || page == pagesServed {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap[min(page/pagesServed, 1)] = ms.HeapAlloc
		}
		if page >= pagesServed {
			_, _ = io.WriteString(w, emptyPage)
			return
		}
		var b strings.Builder
		b.WriteString(`{"transactions":[`)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"transactionId":"%d-%s","originalTransactionId":"A1","transactionType":6,"status":3,"amount":"10.00","merchantReference":"other"}`, start+i, pad)
		}
		b.WriteString(`]}`)
		_, _ = io.WriteString(w, b.String())
	})
	_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.ErrorIs(t, err, ErrNotFound)
	require.NotZero(t, heap[1])
	growth := int64(heap[1]) - int64(heap[0])
	t.Logf("live heap grew %d KiB over %d pages of 1 MiB", growth>>10, pagesServed-firstMeasured)
	assert.Less(t, growth, int64(2<<20), "the scan keeps its ids at full length")
}

// A wrong OriginalTransactionID proves nothing: one that does not exist
// (404) or cannot be read is ErrIncomplete, never ErrNotFound ("not made:
// pay again", which it was before: its list of children is empty), and
// nothing but the original is read.
func TestTransactions_FindByMerchantReferenceOriginalUnreadable(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		is     error
	}{
		{404, `{"errors":[{"code":404,"message":"transaction not found"}]}`, nil},
		{401, `{"errors":[{"code":300,"message":"security error"}]}`, ErrUnauthorized},
		{500, `{"errors":[{"code":100,"message":"internal error"}]}`, ErrServer},
		{200, `<html>ok</html>`, ErrInvalidResponse},
	} {
		c, mock, _ := newTestClient(t, WithMaxRetries(0))
		mock.RegisterResponder(http.MethodGet, testBaseURL+"/transactions/X9", jsonResponse(tc.status, tc.body))
		lists := expectNoRequest(t, mock)
		_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "X9", MerchantReference: "dep-7", Type: models.TypeDeposit})
		require.ErrorIs(t, err, ErrIncomplete, "%d", tc.status)
		assert.NotErrorIs(t, err, ErrNotFound, "%d: a wrong original says nothing of the deposit", tc.status)
		assert.True(t, OutcomeUnknown(err), "%d", tc.status)
		assert.Contains(t, err.Error(), "check OriginalTransactionID", "%d", tc.status)
		if tc.is != nil {
			assert.ErrorIs(t, err, tc.is, "%d", tc.status)
		}
		if tc.status != 200 {
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr, "%d: the cause is there for errors.As", tc.status)
			assert.Equal(t, tc.status, apiErr.StatusCode)
		}
		assert.Zero(t, lists.Load(), "%d: no list read", tc.status)
	}
}

// The original must be of a type the looked-for type is made from (the
// OpenAPI's path parameter of each call): the authorization given for a
// refund (made from the capture, so never among the authorization's
// children) is a *ValidationError on originalTransactionId saying which
// original the type needs, and no list is read.
func TestTransactions_FindByMerchantReferenceOriginalType(t *testing.T) {
	types := []models.TransactionType{models.TypeAuthorize, models.TypePay, models.TypeCapture, models.TypeRefund,
		models.TypeDeposit, models.TypeReclaim, models.TypePreauthorization}
	parents := map[models.TransactionType][]models.TransactionType{
		models.TypeDeposit:          {models.TypeAuthorize},
		models.TypeCapture:          {models.TypeAuthorize, models.TypePreauthorization},
		models.TypePreauthorization: {models.TypeAuthorize},
		models.TypeRefund:           {models.TypeCapture, models.TypePay},
		models.TypeReclaim:          {models.TypeDeposit},
	}
	for typ, ok := range parents {
		for _, orig := range types {
			c, mock, _ := newTestClient(t)
			mock.RegisterResponder(http.MethodGet, testBaseURL+"/transactions/O1", jsonResponse(200, originalTxnJSON("O1", orig)))
			lists := sequence(t, mock, jsonResponse(200, emptyPage))
			_, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "O1", MerchantReference: "r-1", Type: typ})
			if slices.Contains(ok, orig) {
				require.ErrorIs(t, err, ErrNotFound, "%s from %s", typ, orig)
				assert.Equal(t, int32(1), lists.Load(), "%s from %s", typ, orig)
				continue
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve, "%s from %s", typ, orig)
			assert.Equal(t, "originalTransactionId", ve.Field)
			assert.NotErrorIs(t, err, ErrNotFound, "%s from %s", typ, orig)
			assert.Contains(t, ve.Reason, "is of type "+orig.String(), "%s from %s", typ, orig)
			assert.Contains(t, ve.Reason, "nothing was concluded")
			for _, p := range ok {
				assert.Contains(t, ve.Reason, p.String(), "%s from %s names the original it needs", typ, orig)
			}
			assert.Zero(t, lists.Load(), "%s from %s: no list read", typ, orig)
		}
	}
}

// Only transactions of the type looked for match: a refund's reference on
// a deposit made from the same original (a server that mixes them) is not
// the refund, and a refund with it is.
func TestTransactions_FindByMerchantReferenceMatchesType(t *testing.T) {
	item := func(id string, typ models.TransactionType) string {
		return fmt.Sprintf(`{"transactionId":%q,"originalTransactionId":"C1","transactionType":%d,"status":3,"amount":"1.00","merchantReference":"ref-1"}`, id, int(typ))
	}
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{[]string{item("D1", models.TypeDeposit), item("P1", models.TypePreauthorization)}, ""},
		{[]string{item("D1", models.TypeDeposit), item("R1", models.TypeRefund)}, "R1"},
	} {
		c, mock, _ := newTestClient(t)
		mock.RegisterResponder(http.MethodGet, testBaseURL+"/transactions/C1", jsonResponse(200, originalTxnJSON("C1", models.TypeCapture)))
		sequence(t, mock, jsonResponse(200, findPage(tc.items...)), jsonResponse(200, emptyPage))
		got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "C1", MerchantReference: "ref-1", Type: models.TypeRefund})
		if tc.want == "" {
			require.ErrorIs(t, err, ErrNotFound)
			assert.Contains(t, err.Error(), "no transaction of this type")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got.TransactionID)
		assert.Equal(t, models.TypeRefund, got.TransactionType)
	}
}

// caseServer is movingOrderServer's list (L at 150 in order A, at 50 in
// order B, pages alternating A, B, A…), with every id written in upper
// case on the pages served in order B (ids: the service's, in another
// case), and L's originalTransactionId written as orig.
func caseServer(t *testing.T, orig string) (*Client, *atomic.Int32) {
	return movingPagesServer(t, func(int) bool { return false }, true, orig)
}

// TestAttack_FindIDsChangeCase: the order moves between reads (L skipped)
// and the page that shows t99 again writes it T99: the repeat is not
// seen, so the scan "saw" 250 distinct ids and answered ErrNotFound (pay
// again) for a deposit that was made.
func TestAttack_FindIDsChangeCase(t *testing.T) {
	c, _ := caseServer(t, "A1")
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NotErrorIs(t, err, ErrNotFound, "got %v: a made deposit reads as not made", got)
}

// TestAttack_FindOriginalChangesCase: the deposit made from A1 is listed
// (by the server's filter originalTransactionId=A1) with
// originalTransactionId "a1": it must not be dropped as made from another
// transaction, which answers ErrNotFound.
func TestAttack_FindOriginalChangesCase(t *testing.T) {
	c, mock := findClient(t)
	item := `{"transactionId":"D7","originalTransactionId":"a1","transactionType":6,"status":3,"amount":"10.00","merchantReference":"dep-7"}`
	sequence(t, mock, jsonResponse(200, findPage(findTxnJSON("t1", "A1", "other"), item)), jsonResponse(200, emptyPage))
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NotErrorIs(t, err, ErrNotFound, "got %v: a made deposit reads as not made", got)
}

// TestAttack_FindLyingPageFields: a server whose pages say startIndex 0
// and itemsPerPage 1 on every page; the scan still moves by the items
// received and finds L on the third page.
func TestAttack_FindLyingPageFields(t *testing.T) {
	var n atomic.Int32
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		start, _ := strconv.Atoi(r.URL.Query().Get("startIndex"))
		items := []string{}
		for i := start; i < min(start+100, 250); i++ {
			ref := "other"
			if i == 230 {
				ref = "dep-7"
			}
			items = append(items, findTxnJSON(fmt.Sprintf("t%d", i), "A1", ref))
		}
		_, _ = io.WriteString(w, `{"startIndex":0,"itemsPerPage":1,"transactions":[`+strings.Join(items, ",")+`]}`)
	})
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NoError(t, err)
	assert.Equal(t, "t230", got.TransactionID)
	assert.Equal(t, int32(4), n.Load())
}

// TestAttack_FindAuthorizationReferenceInPaymentOnly: the list (filtered
// by payment.merchantReference) shows the authorization with its
// reference under payment only, none of its own: the lookup answered "no
// authorization has it" (nil, false, nil) although it listed it, and the
// merchant establishes again.
func TestAttack_FindAuthorizationReferenceInPaymentOnly(t *testing.T) {
	c, mock, _ := newTestClient(t)
	item := `{"transactionId":"A1","transactionType":1,"status":2,"amount":"10.00","payment":{"paymentId":"P1","merchantReference":"order-42"}}`
	pages(t, mock, "/api/v1/transactions",
		pageStep{findByPayment + "0", findPage(item)},
		pageStep{findByPayment + "1", emptyPage},
	)
	got, ok, err := c.Transactions.FindAuthorization(context.Background(), "order-42")
	require.True(t, ok || err != nil, "got %v, %v, %v: an authorization listed reads as none", got, ok, err)
}
