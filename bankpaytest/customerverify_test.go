package bankpaytest_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// The customer record of an authorization is compared, when read, with
// what the user's bank holds.
func TestCustomerVerification(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := uiData("cv-1", models.PaymentTypeRetrieval, "")
	d.Customer = &models.Customer{ExternalID: "cv-cust", Name: "Zed Quill", Email: "zed@example.org", DateOfBirth: "1990-01-31"}
	_, txn := c.authorize(d, bankpaytest.OutcomeAuthorize)
	id := txn.TransactionID
	matches := func() map[string]models.CustomerMatch {
		t.Helper()
		// result and source as the OpenAPI's string enums (the spec does
		// not describe this answer).
		var v struct {
			Matches []struct {
				Attribute      string
				Result, Source string
			} `json:"matches"`
		}
		c.get("/transactions/"+id+"/payment/customer/verify").wantOK(t, &v)
		out := map[string]models.CustomerMatch{}
		for _, m := range v.Matches {
			result, err := strconv.Atoi(m.Result)
			require.NoError(t, err, "result %q", m.Result)
			source, err := strconv.Atoi(m.Source)
			require.NoError(t, err, "source %q", m.Source)
			out[m.Attribute] = models.CustomerMatch{Attribute: m.Attribute, Result: result, Source: source}
		}
		require.Len(t, out, len(v.Matches), "one match per attribute")
		return out
	}
	m := matches()
	assert.Equal(t, []string{"customer.dateOfBirth", "customer.email", "customer.name"}, keys(m), "only what the record holds")
	assert.Equal(t, models.CustomerMatch{Attribute: "customer.name", Result: 0, Source: 2}, m["customer.name"])
	assert.Equal(t, 0, m["customer.email"].Result)
	assert.Equal(t, -1, m["customer.dateOfBirth"].Result, "the bank holds no date of birth")

	// The merchant corrects the record from the bank's data.
	var u struct {
		User models.BankUser `json:"user"`
	}
	c.get("/transactions/"+id+"/payment/paymentProvider/user").wantOK(t, &u)
	rec, ok := srv.CustomerOf(id)
	require.True(t, ok)
	first := strings.Fields(u.User.Name[0])[0]
	c.postJSON("/customers/"+rec.CustomerID, customerUpdate{models.Customer{
		Name: first + " Quill", Email: u.User.Email[0], Phone: "+44" + u.User.Phone[0][len(u.User.Phone[0])-7:],
		Address: &models.Address{Address1: u.User.Address[0].Address1, Zip: "00000", Country: "US"},
	}, c.creds.MerchantID}).wantOK(t, &wire.CustomerEnvelope{})
	m = matches()
	assert.Equal(t, 1, m["customer.name"].Result, "the first name matches")
	assert.Equal(t, 2, m["customer.email"].Result)
	assert.Equal(t, 1, m["customer.phone"].Result, "the same line, another country code")
	assert.Equal(t, 2, m["customer.address.address1"].Result)
	assert.Equal(t, 0, m["customer.address.zip"].Result)

	c.postJSON("/customers/"+rec.CustomerID, customerUpdate{models.Customer{Name: u.User.Name[0], Phone: u.User.Phone[0]},
		c.creds.MerchantID}).wantOK(t, &wire.CustomerEnvelope{})
	m = matches()
	assert.Equal(t, 2, m["customer.name"].Result)
	assert.Equal(t, 2, m["customer.phone"].Result)

	// Not before the user authorizes; not for a deposit; 404 elsewhere.
	_, cancelled := c.authorize(uiData("cv-2", models.PaymentTypeDeferred, "1.00"), bankpaytest.OutcomeCancel)
	c.get("/transactions/"+cancelled.TransactionID+"/payment/customer/verify").wantError(t, 400, 200)
	auth := c.establish("cv-3", "5.00")
	dep := c.mustDeposit(auth.TransactionID, "cv-dep", "1.00")
	c.get("/transactions/"+dep.TransactionID+"/payment/customer/verify").wantError(t, 400, 200)
	c.get("/transactions/100000000999999/payment/customer/verify").wantError(t, 404, 200)
}

func keys(m map[string]models.CustomerMatch) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
