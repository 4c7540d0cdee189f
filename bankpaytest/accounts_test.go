package bankpaytest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

const (
	sandboxIBAN    = "DE89370400440532013000"
	sandboxIBANBad = "DE89370400440532013001" // the checksum fails
)

// verifyReq is the body of POST /accounts/verify; MerchantID is written as
// given (the OpenAPI's number, or a string).
type verifyReq struct {
	MerchantID json.RawMessage   `json:"merchantId"`
	Account    map[string]string `json:"account"`
}

func (c *api) verify(t *testing.T, query string, account map[string]string) (*models.Account, response) {
	t.Helper()
	a := c.postJSON("/accounts/verify"+query, verifyReq{json.RawMessage(c.creds.MerchantID), account})
	if a.status != http.StatusOK {
		return nil, a
	}
	var out models.Account
	a.decode(t, &out)
	return &out, a
}

func routingAccount(number string) map[string]string {
	return map[string]string{"accountNumber": number, "routingNumber": bankpaytest.SandboxRoutingNumber}
}

// Verify answers from the sandbox account table, bare, with the last 4
// digits, a token shared with tokenize, and the provider when expanded.
func TestVerifyAccount(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	for _, row := range bankpaytest.SandboxAccounts() {
		a, resp := c.verify(t, "", routingAccount(row.AccountNumber))
		require.NotNil(t, a, "%s: %s", row.AccountNumber, resp.body)
		require.NotNil(t, a.Verification)
		assert.Equal(t, row.Verified, a.Verified, row.AccountNumber)
		assert.Equal(t, row.Verified, a.Verification.Verified, row.AccountNumber)
		require.NotNil(t, a.Verification.Score)
		assert.Equal(t, row.Score, *a.Verification.Score, row.AccountNumber)
		assert.Equal(t, row.ThirdPartyScore, a.Verification.ThirdPartyScore, row.AccountNumber)
		assert.Equal(t, 3, a.Verification.Type)
		assert.Equal(t, friday, a.Verification.VerificationDate.Time())
		assert.Equal(t, row.AccountNumber[len(row.AccountNumber)-4:], a.AccountNumber, "the last 4 digits only")
		assert.Nil(t, a.PaymentProvider, "not expanded")
	}

	a, _ := c.verify(t, "?expand=account.paymentProvider", map[string]string{"accountNumber": bankpaytest.AccountVerified,
		"routingNumber": bankpaytest.SandboxRoutingNumber, "nameOnAccount": "Jane Doe"})
	require.NotNil(t, a)
	require.NotNil(t, a.PaymentProvider)
	assert.Equal(t, bankpaytest.SandboxProviderID, a.PaymentProvider.PaymentProviderID)
	assert.Equal(t, "Jane Doe", a.NameOnAccount)

	// The same account has the same token in verify and tokenize.
	var tk models.Tokenization
	c.postJSON("/accounts/tokenize", tokenizeBody(c.creds.MerchantID, bankpaytest.AccountVerified)).wantOK(t, &tk)
	assert.Equal(t, tk.Account.Token, a.Token)

	// An IBAN with a valid checksum: score 6, verified.
	a, resp := c.verify(t, "", map[string]string{"iban": sandboxIBAN})
	require.NotNil(t, a, string(resp.body))
	assert.True(t, a.Verified)
	assert.Equal(t, 6, *a.Verification.Score)
	assert.Equal(t, "DE", a.Country)
	assert.Equal(t, "3000", a.AccountNumber)
	assert.NotEmpty(t, a.Token)

	// merchantId as a string is read too.
	b := c.postJSON("/accounts/verify", map[string]any{"merchantId": c.creds.MerchantID, "account": map[string]string{"iban": sandboxIBAN}})
	b.wantOK(t, nil)
}

func TestVerifyAccountRefusals(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	for _, tr := range bankpaytest.ErrorTriggers() {
		_, resp := c.verify(t, "", routingAccount(tr.AccountNumber))
		resp.wantError(t, tr.Status, tr.Code)
	}
	for name, tc := range map[string]struct {
		query        string
		account      map[string]string
		status, code int
	}{
		"not a sandbox account": {"", routingAccount("1234567890"), 400, 330},
		"other routing number":  {"", map[string]string{"accountNumber": bankpaytest.AccountVerified, "routingNumber": "021000021"}, 400, 200},
		"bad IBAN checksum":     {"", map[string]string{"iban": sandboxIBANBad}, 400, 330},
		"IBAN and number":       {"", map[string]string{"iban": sandboxIBAN, "accountNumber": bankpaytest.AccountVerified}, 400, 200},
		"no account":            {"", map[string]string{}, 400, 200},
		"unknown expand":        {"?expand=account.secrets", routingAccount(bankpaytest.AccountVerified), 400, 200},
	} {
		t.Run(name, func(t *testing.T) {
			_, resp := c.verify(t, tc.query, tc.account)
			resp.wantError(t, tc.status, tc.code)
		})
	}
	c.postJSON("/accounts/verify", verifyReq{json.RawMessage("1999999999"), routingAccount(bankpaytest.AccountVerified)}).wantError(t, 401, 300)
}

// Feedback on an account changes its later verifications: a return that
// makes it unusable scores it 2 and unverified, a completed payment raises
// a verified score to 9; an NSF return changes nothing.
func TestAccountFeedback(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	feedback := func(account map[string]string, status any, sub string) response {
		return c.postJSON("/feedback", map[string]any{"merchantId": json.RawMessage(c.creds.MerchantID), "account": account,
			"feedback": map[string]any{"status": status, "subStatus": sub, "externalId": "pay-1"}})
	}
	score := func(account map[string]string) (int, bool) {
		a, resp := c.verify(t, "", account)
		require.NotNil(t, a, string(resp.body))
		return *a.Verification.Score, a.Verified
	}

	seven := routingAccount("1000000007")
	a, _ := c.verify(t, "", seven)
	var ok struct {
		Message string `json:"message"`
	}
	feedback(map[string]string{"token": a.Token}, "4", "R00").wantOK(t, &ok)
	assert.NotEmpty(t, ok.Message)
	s, v := score(seven)
	assert.Equal(t, 9, s, "a completed payment: seen, no returns")
	assert.True(t, v)

	feedback(seven, 5, "R01").wantOK(t, nil)
	s, _ = score(seven)
	assert.Equal(t, 9, s, "insufficient funds says nothing about the account")

	feedback(seven, "10", "R04").wantOK(t, nil)
	s, v = score(seven)
	assert.Equal(t, 2, s)
	assert.False(t, v)
	// A later completed payment does not clear a return.
	feedback(seven, "4", "R00").wantOK(t, nil)
	s, _ = score(seven)
	assert.Equal(t, 2, s)

	iban := map[string]string{"iban": sandboxIBAN}
	a, _ = c.verify(t, "", iban)
	feedback(map[string]string{"token": a.Token}, "5", "R02").wantOK(t, nil)
	s, v = score(iban)
	assert.Equal(t, 2, s)
	assert.False(t, v)

	// Tokenize's table is not changed by feedback.
	var tk models.Tokenization
	c.postJSON("/accounts/tokenize?verifyAccount=true", tokenizeBody(c.creds.MerchantID, "1000000007")).wantOK(t, &tk)
	assert.Equal(t, 7, *tk.Account.Verification.Score)

	for name, r := range map[string]response{
		"unknown token":   feedback(map[string]string{"token": "NOPE"}, "5", "R01"),
		"no account":      feedback(map[string]string{}, "5", "R01"),
		"status 8":        feedback(seven, "8", "R01"),
		"no subStatus":    feedback(seven, "5", ""),
		"unknown account": feedback(routingAccount("1234567890"), "5", "R01"),
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		})
	}
	c.postJSON("/feedback", map[string]any{"merchantId": "1999999999", "account": seven,
		"feedback": map[string]any{"status": "5", "subStatus": "R01"}}).wantError(t, 401, 300)
}

func TestSelectedAccountsAndExpand(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	_, txn := c.authorize(uiData("sel-1", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeAuthorize)
	id := txn.TransactionID

	var sel struct {
		Accounts []models.Account `json:"accounts"`
	}
	c.get("/transactions/"+id+"/payment/paymentProvider/accounts").wantOK(t, &sel)
	require.Len(t, sel.Accounts, 1)
	a := sel.Accounts[0]
	var bal struct {
		AccountBalance models.AccountBalance `json:"accountBalance"`
	}
	c.get("/transactions/"+id+"/payment/paymentProvider/account/balance").wantOK(t, &bal)
	b := bal.AccountBalance.Account
	assert.Equal(t, b.AccountNumber, a.AccountNumber, "the account of the balance")
	assert.Equal(t, b.AccountNumber[len(b.AccountNumber)-4:], a.AccountNumberLastFour)
	assert.Equal(t, b.RoutingNumber, a.RoutingNumber)
	assert.Equal(t, b.NameOnAccount, a.NameOnAccount)
	assert.NotEmpty(t, a.Token)
	assert.True(t, a.Verified)

	// A Deferred authorization has no account data.
	_, d := c.authorize(uiData("sel-2", models.PaymentTypeDeferred, "1.00"), bankpaytest.OutcomeAuthorize)
	c.get("/transactions/"+d.TransactionID+"/payment/paymentProvider/accounts").wantError(t, 400, 200)

	// expand on the bank-held user.
	var u struct {
		User models.BankUser `json:"user"`
	}
	c.get("/transactions/"+id+"/payment/paymentProvider/user").wantOK(t, &u)
	assert.Nil(t, u.User.SegmentedName)
	c.get("/transactions/"+id+"/payment/paymentProvider/user?expand=customer.segmentedName&expand=contact").wantOK(t, &u)
	require.NotNil(t, u.User.SegmentedName)
	assert.Equal(t, u.User.Name[0], u.User.SegmentedName.FirstName+" "+u.User.SegmentedName.LastName)
	c.get("/transactions/"+id+"/payment/paymentProvider/user?expand=segmentedName").wantError(t, 400, 200)

	// expand on the identity user.
	_, k := c.authorize(kycData("sel-3"), bankpaytest.OutcomeAuthorize)
	srv.Advance(bankpaytest.IdentityStep * 5)
	var iu struct {
		User models.IdentityUser `json:"user"`
	}
	c.get("/transactions/"+k.TransactionID+"/user?expand=segmentedName").wantOK(t, &iu)
	require.NotNil(t, iu.User.SegmentedName)
	assert.Equal(t, iu.User.Name, iu.User.SegmentedName.FirstName+" "+iu.User.SegmentedName.LastName)
	c.get("/transactions/"+k.TransactionID+"/user?expand=names").wantError(t, 400, 200)
}

func TestTokenizeIBAN(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	body := map[string]any{"merchantId": c.creds.MerchantID, "account": map[string]string{"iban": sandboxIBAN, "nameOnAccount": "Erika Mustermann"}}
	var tk models.Tokenization
	c.postJSON("/accounts/tokenize?verifyAccount=true", body).wantOK(t, &tk)
	require.NotNil(t, tk.Account)
	assert.Equal(t, sandboxIBAN, tk.Account.IBAN)
	assert.Equal(t, "Erika Mustermann", tk.Account.NameOnAccount)
	assert.NotEmpty(t, tk.Account.Token)
	require.NotNil(t, tk.Account.Verification)
	assert.True(t, tk.Account.Verification.Verified)
	assert.Equal(t, 6, *tk.Account.Verification.Score)
	var again models.Tokenization
	c.postJSON("/accounts/tokenize", body).wantOK(t, &again)
	assert.Equal(t, tk.Account.Token, again.Account.Token, "one token per account")

	body["account"] = map[string]string{"iban": sandboxIBANBad}
	c.postJSON("/accounts/tokenize", body).wantError(t, 400, 330)
	body["account"] = map[string]string{"iban": sandboxIBAN, "routingNumber": bankpaytest.SandboxRoutingNumber}
	c.postJSON("/accounts/tokenize", body).wantError(t, 400, 200)
}
