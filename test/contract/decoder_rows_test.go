package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// Values the OpenAPI allows that the SDK once lost: account.type as a
// double (1.0, which dropped the whole account, so Accounts.Balance, whose
// account is required, failed) and a transaction status written as its
// name ("Authorized", which failed a whole list page). Each answer is
// decoded by the SDK and compared value by value with what was sent; the
// account row is also checked valid against the OpenAPI. The status rows
// cannot be: the OpenAPI's status is an enum of numeric strings, and the
// SDK reads the names as well (its words tables), as the spec's summary
// and the service's messages write them.
func TestDecoderRows(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	const txn = `{"transactionId":"1002600000001","transactionType":"6","status":"Authorized","amount":"5.00","currency":"USD"}`
	rows := []struct {
		name, method, path, body string
		openapi                  bool // the answer is valid against the OpenAPI
		call                     func(context.Context, *bankpay.Client) (any, error)
		check                    func(t *testing.T, got any)
	}{
		{"account.type 1.0", http.MethodGet, "/api/v1/transactions/1002600000001/payment/paymentProvider/account/balance",
			`{"accountBalance":{"account":{"type":1.0,"profile":2.0,"name":"Checking","accountNumber":"0009"},"currency":"USD","amount":"10.50"}}`, true,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Accounts.Balance(ctx, "1002600000001")
			},
			func(t *testing.T, got any) {
				bal := got.(*models.AccountBalance)
				require.NotNil(t, bal.Account)
				assert.Equal(t, 1, bal.Account.Type)
				assert.Equal(t, 2, bal.Account.Profile)
			}},
		{"status word", http.MethodGet, "/api/v1/transactions/1002600000001", txn, false,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Transactions.Get(ctx, "1002600000001")
			},
			func(t *testing.T, got any) {
				assert.Equal(t, models.StatusAuthorized, got.(*models.Transaction).Status)
			}},
		{"status word in a list", http.MethodGet, "/api/v1/transactions", `{"transactions":[` + txn + `]}`, false,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Transactions.ListPage(ctx, nil)
			},
			func(t *testing.T, got any) {
				page := got.(*bankpay.Page[models.Transaction])
				require.Len(t, page.Items, 1)
				assert.Equal(t, models.StatusAuthorized, page.Items[0].Status)
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.openapi {
				req := httptest.NewRequest(row.method, "https://api.bankpay.test"+row.path, nil)
				resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(bytes.NewReader([]byte(row.body))), Request: req}
				require.Empty(t, val.Answer(req, resp), "the answer is valid against the OpenAPI")
			}

			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(row.body))
			}))
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			got, err := row.call(context.Background(), c)
			require.NoError(t, err)
			row.check(t, got)

			var gen any
			dec := json.NewDecoder(bytes.NewReader([]byte(row.body)))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&gen))
			fieldMap, err := LoadFieldMap()
			require.NoError(t, err)
			sent, result := part(fieldMap, gen, got)
			cmp := Compare(fieldMap, sent, result)
			var others []string
			for _, m := range cmp.Mismatches {
				// Compare knows no names: the status sent as its name is
				// checked as its code above.
				if !row.openapi && strings.HasSuffix(strings.SplitN(m, ":", 2)[0], "status") && strings.Contains(m, `sent "Authorized", got 2`) {
					continue
				}
				others = append(others, m)
			}
			assert.Empty(t, others)
			assert.Positive(t, cmp.Compared)
		})
	}
}
