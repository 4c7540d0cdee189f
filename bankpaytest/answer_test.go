package bankpaytest_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// paymentRequired is the part of the OpenAPI's Payment the SDK does not
// read, as the sandbox writes it.
type paymentRequired struct {
	PaymentID string `json:"paymentId"`
	Merchant  *struct {
		MerchantID string `json:"merchantId"`
	} `json:"merchant"`
	Fingerprint  string `json:"fingerprint"`
	Verification *struct {
		Status         string `json:"status"`
		VerifyCustomer *bool  `json:"verifyCustomer"`
	} `json:"verification"`
	AllowedPaymentProviderType []int `json:"allowedPaymentProviderType"`
	Auth                       *struct {
		Token   string `json:"token"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"auth"`
	Authorization              string           `json:"authorization"`
	AuthorizationStatus        int              `json:"authorizationStatus"`
	AuthorizationStatusMessage string           `json:"authorizationStatusMessage"`
	Customer                   *models.Customer `json:"customer"`
}

// TestPaymentAnswerRequired: every payment the sandbox writes (of a
// transaction, of GET /payments/{id}, of the payments list) has the
// properties the OpenAPI's Payment requires, from the sandbox's state: the
// merchant of the credentials, the verification Automatic, the one
// provider type of the sandbox's banks, the authorization's token, status
// and message; the fingerprint and the token opaque, stable across
// answers and different between authorizations of different users; the
// customer as the establish data gave it, none when it gave none.
func TestPaymentAnswerRequired(t *testing.T) {
	srv := newServer(t)
	creds := srv.Credentials()
	c := newAPI(t, srv, creds)

	d := uiData("pa-1", models.PaymentTypeDeferred, "50.00")
	d.Customer = &models.Customer{ExternalID: "pa-cust", Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
		Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}
	_, auth := c.authorize(d, bankpaytest.OutcomeAuthorize)
	est := c.establish("pa-2", "0.00")

	var viaTxn struct {
		Transaction struct {
			Payment paymentRequired `json:"payment"`
		} `json:"transaction"`
	}
	c.get("/transactions/"+auth.TransactionID).wantOK(t, &viaTxn)
	var viaGet paymentRequired
	c.get("/payments/"+auth.Payment.PaymentID).wantOK(t, &viaGet)
	var list struct {
		Payments []paymentRequired `json:"payments"`
	}
	c.get("/payments?count=10").wantOK(t, &list)
	require.Len(t, list.Payments, 2)
	var viaList, other paymentRequired
	for _, p := range list.Payments {
		if p.PaymentID == auth.Payment.PaymentID {
			viaList = p
		} else {
			other = p
		}
	}
	require.Equal(t, est.Payment.PaymentID, other.PaymentID)

	for name, p := range map[string]paymentRequired{"transaction": viaTxn.Transaction.Payment, "GET /payments/{id}": viaGet, "payments list": viaList} {
		require.NotNil(t, p.Merchant, name)
		assert.Equal(t, creds.MerchantID, p.Merchant.MerchantID, name)
		assert.Regexp(t, `^[0-9a-f]{32}$`, p.Fingerprint, name)
		require.NotNil(t, p.Verification, name)
		assert.Equal(t, "1", p.Verification.Status, name)
		require.NotNil(t, p.Verification.VerifyCustomer, name)
		assert.False(t, *p.Verification.VerifyCustomer, name)
		assert.Equal(t, []int{1}, p.AllowedPaymentProviderType, name)
		assert.Regexp(t, `^[0-9a-f]{32}$`, p.Authorization, name)
		require.NotNil(t, p.Auth, name)
		assert.Equal(t, p.Authorization, p.Auth.Token, name)
		assert.Equal(t, int(models.StatusAuthorized), p.Auth.Status, name)
		assert.Equal(t, p.AuthorizationStatus, p.Auth.Status, name)
		assert.Equal(t, p.AuthorizationStatusMessage, p.Auth.Message, name)
		assert.NotEmpty(t, p.Auth.Message, name)
		// Stable across answers.
		assert.Equal(t, viaGet.Fingerprint, p.Fingerprint, name)
		assert.Equal(t, viaGet.Authorization, p.Authorization, name)
	}
	// The customer of the payments resource: as establish gave it.
	for name, p := range map[string]paymentRequired{"GET /payments/{id}": viaGet, "payments list": viaList} {
		require.NotNil(t, p.Customer, name)
		assert.Equal(t, "Ada Lovelace", p.Customer.Name, name)
		assert.Equal(t, "ada@example.com", p.Customer.Email, name)
		assert.Equal(t, "+12025550143", p.Customer.Phone, name)
		assert.Equal(t, d.Customer.Address, p.Customer.Address, name)
	}
	// Another authorization: its own token; no customer given, none shown.
	assert.NotEqual(t, viaGet.Authorization, other.Authorization)
	assert.Regexp(t, `^[0-9a-f]{32}$`, other.Fingerprint)
	assert.Nil(t, other.Customer)

	// Raw: the required properties are present even when zero-like.
	var raw map[string]json.RawMessage
	c.get("/payments/"+est.Payment.PaymentID).wantOK(t, &raw)
	for _, k := range []string{"merchant", "fingerprint", "verification", "allowedPaymentProviderType", "auth", "authorization"} {
		assert.Contains(t, raw, k)
	}
}

// jsonAt is the raw JSON at a dotted path of body ("[0]" after a name for
// an array's first element), failing the test where there is none.
func jsonAt(t *testing.T, body []byte, path string) json.RawMessage {
	t.Helper()
	cur := json.RawMessage(body)
	for _, part := range strings.Split(path, ".") {
		name, first := strings.CutSuffix(part, "[0]")
		var obj map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(cur, &obj), "%s at %s", path, part)
		v, ok := obj[name]
		require.True(t, ok, "%s: no %s in %s", path, name, cur)
		cur = v
		if first {
			var list []json.RawMessage
			require.NoError(t, json.Unmarshal(cur, &list), "%s at %s", path, part)
			require.NotEmpty(t, list, "%s at %s", path, part)
			cur = list[0]
		}
	}
	return cur
}

// TestCodesByShape: the codes and tiers outside transactions are the
// spec's integers in its shape (the default) and the OpenAPI's strings of
// digits with WithBareResponses (the account verification's type, profile,
// verification type and score; the balance's and the selected account's
// verification type; a customer's vip; the identity detail's results); the
// customer verification's result and source are strings in both (the spec
// does not describe that answer); the selected account's
// verification.hasEnoughFunds is there in both, as in the balance answer.
func TestCodesByShape(t *testing.T) {
	for _, bare := range []bool{false, true} {
		srv := newServer(t, shape(bare)...)
		c := newAPI(t, srv, srv.Credentials())
		// want checks the JSON at path: a string of digits when str, else a
		// number, of the same value.
		var want wantCode = func(body []byte, path string, str bool, n int) {
			t.Helper()
			raw := string(jsonAt(t, body, path))
			if str {
				assert.Equal(t, strconv.Quote(strconv.Itoa(n)), raw, "bare=%v %s", bare, path)
			} else {
				assert.Equal(t, strconv.Itoa(n), raw, "bare=%v %s", bare, path)
			}
		}
		a := c.postJSON("/accounts/verify", verifyReq{json.RawMessage(c.creds.MerchantID), routingAccount(bankpaytest.AccountVerified)})
		a.wantOK(t, nil)
		want(a.body, "type", bare, 1)
		want(a.body, "profile", bare, 1)
		want(a.body, "verification.type", bare, 3)
		want(a.body, "verification.score", bare, 10)

		checkTokenizeShape(t, c, want, bare)

		_, ret := c.authorize(uiData("cs-ret", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeAuthorize)
		sel := c.get("/transactions/" + ret.TransactionID + "/payment/paymentProvider/accounts")
		sel.wantOK(t, nil)
		want(sel.body, "accounts[0].verification.type", bare, 2)
		assert.Equal(t, "true", string(jsonAt(t, sel.body, "accounts[0].verification.hasEnoughFunds")), "a 0.00 authorization is covered")
		bal := c.get("/transactions/" + ret.TransactionID + "/payment/paymentProvider/account/balance")
		bal.wantOK(t, nil)
		want(bal.body, "accountBalance.account.verification.type", bare, 2)

		two := 2
		cust := c.postJSON("/customers", customerUpdate{models.Customer{ExternalID: "cs-c", Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
			Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}, VIP: &two}, c.creds.MerchantID})
		cust.wantOK(t, nil)
		want(cust.body, "customer.vip", bare, 2)
		list := c.get("/customers?externalId=cs-c")
		list.wantOK(t, nil)
		want(list.body, "customers[0].vip", bare, 2)

		d := uiData("cs-cv", models.PaymentTypeRetrieval, "")
		d.Customer = &models.Customer{ExternalID: "cs-cv", Name: "Zed Quill"}
		_, cv := c.authorize(d, bankpaytest.OutcomeAuthorize)
		m := c.get("/transactions/" + cv.TransactionID + "/payment/customer/verify")
		m.wantOK(t, nil)
		assert.Equal(t, `"customer.name"`, string(jsonAt(t, m.body, "matches[0].attribute")))
		want(m.body, "matches[0].result", true, 0)
		want(m.body, "matches[0].source", true, 2)

		_, k := c.authorize(kycData("cs-kyc"), bankpaytest.OutcomeAuthorize)
		srv.Advance(bankpaytest.IdentityStep * 5)
		det := c.get("/transactions/" + k.TransactionID + "/user/detail")
		det.wantOK(t, nil)
		want(det.body, "detail.verification[0].result", bare, int(bankpaytest.ResultVerified))
		checkDetailShape(t, det.body, bare)
	}
}

// wantCode checks the JSON at a path of body: a string of digits when str,
// else a number, of value n.
type wantCode func(body []byte, path string, str bool, n int)

// checkTokenizeShape: the spec's echo ({"merchantId","account":{…}}), or
// the OpenAPI's account alone, its number cut to 4 digits.
func checkTokenizeShape(t *testing.T, c *api, want wantCode, bare bool) {
	t.Helper()
	tk := c.postJSON("/accounts/tokenize?verifyAccount=true", map[string]any{"merchantId": c.creds.MerchantID,
		"account": routingAccount(bankpaytest.AccountVerified)})
	tk.wantOK(t, nil)
	if bare {
		assert.NotContains(t, topKeys(t, tk), "account")
		assert.Equal(t, `"`+bankpaytest.AccountVerified[len(bankpaytest.AccountVerified)-4:]+`"`, string(jsonAt(t, tk.body, "accountNumber")))
		assert.Equal(t, "true", string(jsonAt(t, tk.body, "verified")))
		assert.NotEmpty(t, string(jsonAt(t, tk.body, "token")))
		want(tk.body, "type", true, 1)
		want(tk.body, "verification.score", true, 10)
	} else {
		assert.Equal(t, `"`+bankpaytest.AccountVerified+`"`, string(jsonAt(t, tk.body, "account.accountNumber")))
		want(tk.body, "account.verification.score", false, 10)
	}

}

// checkDetailShape: the OpenAPI's identity detail has source as an object
// {name, type}, and no sourceType, verificationName or verified; the
// spec's has source a string beside sourceType, and verificationName.
func checkDetailShape(t *testing.T, body []byte, bare bool) {
	t.Helper()
	var detail struct {
		Detail struct {
			Verification []map[string]json.RawMessage
			Attribute    []map[string]json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(body, &detail))
	require.NotEmpty(t, detail.Detail.Attribute)
	require.NotEmpty(t, detail.Detail.Verification)
	attr, ver := detail.Detail.Attribute[0], detail.Detail.Verification[0]
	if bare {
		assert.Equal(t, byte('{'), attr["source"][0], "source %s", attr["source"])
		assert.Contains(t, string(attr["source"]), `"name":`)
		assert.NotContains(t, attr, "sourceType")
		assert.NotContains(t, attr, "verified")
		assert.NotContains(t, ver, "verificationName")
	} else {
		assert.Equal(t, byte('"'), attr["source"][0], "source %s", attr["source"])
		assert.Contains(t, attr, "sourceType")
		assert.Contains(t, ver, "verificationName")
	}
}
