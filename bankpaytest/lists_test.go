package bankpaytest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// transactionsPage is the body of GET /transactions.
type transactionsPage struct {
	Transactions []models.Transaction `json:"transactions"`
}

func (c *api) listTransactions(t *testing.T, query string) []models.Transaction {
	t.Helper()
	var page transactionsPage
	r := c.get("/transactions?" + query)
	r.wantOK(t, &page)
	var raw map[string]json.RawMessage
	r.decode(t, &raw)
	require.Contains(t, raw, "transactions")
	require.NotEqual(t, "null", string(raw["transactions"]), "an empty page is []")
	return page.Transactions
}

func ids(ts []models.Transaction) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.TransactionID
	}
	return out
}

func TestListTransactions(t *testing.T) {
	{
		srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
		c := newAPI(t, srv, srv.Credentials())
		other := newAPI(t, srv, srv.Merchants()[1].Credentials)
		a1 := c.establish("a1", "0.00")
		d1 := c.mustDeposit(a1.TransactionID, "d1", "12.00")
		srv.Advance(time.Second) // the deposit is Processed
		d2 := c.mustDeposit(a1.TransactionID, "d2", "3.00")
		a2 := other.establish("a2", "0.00")
		all := []string{a1.TransactionID, d1.TransactionID, d2.TransactionID}

		// The merchant's own, in creation order, account numbers cut.
		got := c.listTransactions(t, "")
		assert.Equal(t, all, ids(got))
		for _, txn := range got {
			assert.Equal(t, "0010", txn.Payment.Account.AccountNumber)
		}
		assert.Equal(t, []string{a2.TransactionID}, ids(other.listTransactions(t, "")))

		for query, want := range map[string][]string{
			"transactionType=6":                            all[1:],
			"transactionType=1&transactionType=6":          all,
			"transactionType=6.0":                          all[1:], // a whole float is the code
			"transactionStatus=3":                          all[1:2],
			"transactionStatus=2&transactionStatus=3":      all,
			"originalTransactionId=" + a1.TransactionID:    all[1:],
			"payment.paymentId=" + a1.Payment.PaymentID:    all,
			"payment.merchantReference=a1":                 all,
			"payment.merchantReference=d2":                 {}, // the payment's reference, not a transaction's own
			"payment.paymentType=4":                        all,
			"payment.paymentType=2":                        {},
			"amount.min=3.00&amount.max=11.99":             all[2:],
			"amount.min=12.00":                             all[1:2],
			"orderBy=amount":                               {a1.TransactionID, d2.TransactionID, d1.TransactionID},
			"orderBy=amount&sortOrder=DESC":                {d1.TransactionID, d2.TransactionID, a1.TransactionID},
			"sortOrder=desc":                               {d2.TransactionID, d1.TransactionID, a1.TransactionID},
			"startIndex=1&count=1":                         all[1:2],
			"startIndex=3":                                 {},
			"createdAt.start=" + itoa(int64(d2.CreatedAt)): all[2:],
			"createdAt.end=" + itoa(int64(d1.CreatedAt)):   all[:2],
			"updatedAt.start=" + itoa(int64(d2.UpdatedAt)): all[2:], // d1 was submitted at the old time
			"createdAt.start=" + url.QueryEscape(d2.CreatedAt.Time().Format(rfc)): all[2:],
			"unknownFilter=1": all,
		} {
			assert.Equal(t, want, ids(c.listTransactions(t, query)), "%s", query)
		}

		for _, query := range []string{
			"count=0", "count=1001", "count=x", "startIndex=-1", "sortOrder=up", "orderBy=color",
			"transactionType=deposit", "transactionStatus=2.5", "amount.min=1", "createdAt.start=yesterday",
		} {
			c.get("/transactions?"+query).wantError(t, http.StatusBadRequest, 200)
		}
		send(t, &c.creds, http.MethodPost, srv.URL+"/transactions", "", nil).wantError(t, http.StatusMethodNotAllowed, 200)
		send(t, nil, http.MethodGet, srv.URL+"/transactions", "", nil).wantError(t, http.StatusUnauthorized, 375)
	}
}

// Pages are capped at PageCap whatever the count asked, with nothing in the
// response to say so (no itemsPerPage, no total); the next page starts
// where the items received end.
func TestListTransactionsPageCap(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	a := c.establish("cap", "0.00")
	for i := range 70 {
		c.mustDeposit(a.TransactionID, "cap-"+strconv.Itoa(i), "1.00")
	}
	for query, want := range map[string]int{
		"":                        bankpaytest.PageCap,
		"count=1000":              bankpaytest.PageCap,
		"count=50":                50,
		"count=20":                20,
		"startIndex=50&count=100": 21,
		"startIndex=71":           0,
	} {
		var raw map[string]json.RawMessage
		r := c.get("/transactions?" + query)
		r.wantOK(t, nil)
		r.decode(t, &raw)
		assert.NotContains(t, raw, "itemsPerPage", query)
		assert.Len(t, c.listTransactions(t, query), want, query)
	}
}

const rfc = "2006-01-02T15:04:05.000Z07:00"

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestPayments(t *testing.T) {
	{
		srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
		c := newAPI(t, srv, srv.Credentials())
		other := newAPI(t, srv, srv.Merchants()[1].Credentials)
		d := disbursementData("a1", "100.00")
		d.Customer = &models.Customer{ExternalID: "a1-cust", Name: "Ada Lovelace", Email: "ada@example.com"}
		var env wire.TransactionEnvelope
		c.postJSON("/establish?createTransaction=true", c.sign(d)).wantOK(t, &env)
		a1 := env.Transaction
		d1 := c.mustDeposit(a1.TransactionID, "d1", "40.00")
		c.mustDeposit(a1.TransactionID, "d2", "10.00")
		_, a2 := c.authorize(uiData("a2", models.PaymentTypeDeferred, "20.00"), bankpaytest.OutcomeAuthorize)
		b1 := other.establish("b1", "0.00")

		// GET /payments/{id}: bare, as the OpenAPI shows it, in both modes.
		var p models.Payment
		c.get("/payments/"+a1.Payment.PaymentID).wantOK(t, &p)
		assert.Equal(t, a1.Payment.PaymentID, p.PaymentID)
		assert.Equal(t, "a1", p.MerchantReference)
		require.NotNil(t, p.AuthorizationStatus)
		assert.Equal(t, models.StatusAuthorized, *p.AuthorizationStatus)
		assert.Equal(t, "Authorized", p.AuthorizationStatusMessage)
		assert.Equal(t, models.Amount("100.00"), p.Amount)
		assert.Equal(t, models.Amount("50.00"), p.Pending)
		assert.Equal(t, models.Amount("0.00"), p.Paid)
		assert.Equal(t, models.Amount("0.00"), p.Refunded)
		assert.Equal(t, "0010", p.Account.AccountNumber)
		require.NotNil(t, p.Customer)
		assert.NotEmpty(t, p.Customer.CustomerID)
		assert.Equal(t, "Ada Lovelace", p.Customer.Name)
		var p2 models.Payment
		c.get("/payments/"+a2.Payment.PaymentID).wantOK(t, &p2)
		assert.Nil(t, p2.Customer, "an establish without a customer: none on its payment")

		require.NoError(t, srv.Deny(d1.TransactionID))
		c.get("/payments/"+a1.Payment.PaymentID).wantOK(t, &p)
		assert.Equal(t, models.Amount("10.00"), p.Pending, "a Denied deposit counts nowhere")

		c.get("/payments/"+d1.TransactionID).wantError(t, http.StatusNotFound, 200)
		c.get("/payments/"+b1.Payment.PaymentID).wantError(t, http.StatusNotFound, 200)
		c.get("/payments/nope").wantError(t, http.StatusNotFound, 200)

		var page struct {
			Payments     []models.Payment `json:"payments"`
			StartIndex   *int             `json:"startIndex"`
			ItemsPerPage *int             `json:"itemsPerPage"`
		}
		pids := func(query string) []string {
			t.Helper()
			page.Payments = nil
			c.get("/payments?"+query).wantOK(t, &page)
			out := []string{}
			for _, p := range page.Payments {
				out = append(out, p.PaymentID)
			}
			return out
		}
		both := []string{a1.Payment.PaymentID, a2.Payment.PaymentID}
		assert.Equal(t, both, pids(""))
		require.NotNil(t, page.StartIndex)
		require.NotNil(t, page.ItemsPerPage)
		assert.Equal(t, 0, *page.StartIndex)
		assert.Equal(t, bankpaytest.PageCap, *page.ItemsPerPage, "100 asked, the cap served")
		assert.Equal(t, both[1:], pids("startIndex=1&count=5"))
		assert.Equal(t, 1, *page.StartIndex)
		assert.Equal(t, 5, *page.ItemsPerPage)
		for query, want := range map[string][]string{
			"paymentType=2":                                both[1:],
			"paymentType=4&paymentType=2":                  both,
			"merchantReference=a1":                         both[:1],
			"authorization.status=7":                       {},
			"amount.min=50.00":                             both[:1],
			"orderBy=amount":                               {both[1], both[0]},
			"orderBy=paymentId&sortOrder=desc":             {both[1], both[0]},
			"customer.customerId=" + p.Customer.CustomerID: both[:1],
		} {
			assert.Equal(t, want, pids(query), "%s", query)
		}
		c.get("/payments?orderBy=processedAt").wantError(t, http.StatusBadRequest, 200)
		assert.Equal(t, []string{b1.Payment.PaymentID}, func() []string {
			var pg struct{ Payments []models.Payment }
			other.get("/payments").wantOK(t, &pg)
			return []string{pg.Payments[0].PaymentID}
		}())
	}
}
