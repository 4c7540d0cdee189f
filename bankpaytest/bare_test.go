package bankpaytest_test

import (
	"encoding/json"
	"net/url"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// topKeys returns the sorted top-level keys of a 200 response.
func topKeys(t *testing.T, a response) []string {
	t.Helper()
	a.wantOK(t, nil)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(a.body, &m), "body %s", a.body)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestSingleObjectShapes: every single-object endpoint responds in the spec's
// wrapper by default and, with WithBareResponses, the OpenAPI's shape: bare
// for a transaction (get, establish with its url, deposit, capture,
// feedback's authorization, bare in both), the bank user and the identity user; wrapped
// for balance, identity detail and customer; the summary bare in both.
func TestSingleObjectShapes(t *testing.T) {
	for _, bare := range []bool{false, true} {
		name := map[bool]string{false: "wrapped", true: "bare"}[bare]
		opts := shape(bare, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, opts...)
			c := newAPI(t, srv, srv.Merchants()[1].Credentials)
			// shape checks a single-object response: wrapped under key unless
			// the endpoint is bare in this mode, then field is at the top.
			shape := func(what string, a response, key, field string, bareHere bool) map[string]json.RawMessage {
				t.Helper()
				keys := topKeys(t, a)
				var m map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(a.body, &m))
				if bareHere {
					assert.NotContains(t, keys, key, "%s: bare response has the wrapper", what)
					assert.Contains(t, keys, field, "%s: bare response lacks %s", what, field)
					return m
				}
				assert.Equal(t, []string{key}, keys, "%s: wrapped response", what)
				var inner map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(m[key], &inner), "%s", what)
				assert.Contains(t, inner, field, "%s: wrapped object lacks %s", what, field)
				return inner
			}

			est := shape("establish", c.postJSON("/establish?createTransaction=true", c.sign(disbursementData("b-est", "10.00"))),
				"transaction", "transactionId", bare)
			_, hasURL := est["url"]
			assert.Equal(t, bare, hasURL, "establish url present only bare")
			var estID string
			require.NoError(t, json.Unmarshal(est["transactionId"], &estID))

			shape("get transaction", c.get("/transactions/"+estID), "transaction", "transactionId", bare)
			shape("deposit", c.deposit(estID, url.Values{"merchantReference": {"b-dep"}, "amount": {"1.00"}}),
				"transaction", "transactionId", bare)

			_, auth := c.authorize(transferData("b-mt"), bankpaytest.OutcomeAuthorize)
			shape("capture", c.postForm("/transactions/"+auth.TransactionID+"/capture", captureForm("b-cap", "2.00")),
				"transaction", "transactionId", bare)

			rd := uiData("b-ret", models.PaymentTypeRetrieval, "")
			_, ret := c.authorize(rd, bankpaytest.OutcomeAuthorize)
			base := "/transactions/" + ret.TransactionID
			shape("bank user", c.get(base+"/payment/paymentProvider/user"), "user", "name", bare)
			shape("balance", c.get(base+"/payment/paymentProvider/account/balance"), "accountBalance", "account", false)
			assert.Contains(t, topKeys(t, c.get(base+"/accountSummary")), "summary", "summary is bare in both")

			kd := uiData("b-kyc", models.PaymentTypeDeferred, "1.00")
			kd.KYCType = models.KYCTypeIdentity
			_, kyc := c.authorize(kd, bankpaytest.OutcomeEligible)
			srv.Advance(bankpaytest.IdentityStep * 5)
			base = "/transactions/" + kyc.TransactionID
			shape("identity user", c.get(base+"/user"), "user", "taxId", bare)
			shape("identity detail", c.get(base+"/user/detail"), "detail", "attribute", false)
			fb := wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 4, SubStatus: 559}}
			// The spec does not show feedback's answer: the OpenAPI's bare
			// Transaction in both modes.
			shape("feedback", c.postJSON(base+"/feedback", fb), "feedback", "transactionId", true)

			shape("customer", c.postJSON("/customers?externalId=b-cust", customerUpdate{models.Customer{Name: "Ann Lee"}, c.creds.MerchantID}),
				"customer", "customerId", false)
		})
	}
}
