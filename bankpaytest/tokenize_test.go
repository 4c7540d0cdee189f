package bankpaytest_test

import (
	"fmt"
	"testing"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// tokenizeRow is a row of the spec's sandbox account table, written out
// here independently of the sandbox's own table.
type tokenizeRow struct {
	account  string
	score    int
	third    int // -1: none
	verified bool
}

func specTokenizeTable() []tokenizeRow {
	var rows []tokenizeRow
	// 1000000000 to 1000000010: last two digits = score, no third-party
	// score, verified from 6.
	for s := 0; s <= 10; s++ {
		rows = append(rows, tokenizeRow{fmt.Sprintf("10000000%02d", s), s, -1, s >= 6})
	}
	// FCRA: 1000001000, 1000001100 … 1000001900 and 1000001999, scores 0 to
	// 10, third-party 0, 100 … 900, 999, verified from 600.
	fcra := []struct {
		acct  string
		third int
	}{
		{"1000001000", 0}, {"1000001100", 100}, {"1000001200", 200}, {"1000001300", 300},
		{"1000001400", 400}, {"1000001500", 500}, {"1000001600", 600}, {"1000001700", 700},
		{"1000001800", 800}, {"1000001900", 900}, {"1000001999", 999},
	}
	for i, r := range fcra {
		rows = append(rows, tokenizeRow{r.acct, i, r.third, r.third >= 600})
	}
	// Non-FCRA: score 1, third-party 15, 20, 25, 35, 45; verified for 35, 45.
	rows = append(rows,
		tokenizeRow{"1000001015", 1, 15, false},
		tokenizeRow{"1000001020", 1, 20, false},
		tokenizeRow{"1000001025", 1, 25, false},
		tokenizeRow{"1000001035", 1, 35, true},
		tokenizeRow{"1000001045", 1, 45, true},
	)
	return rows
}

func tokenizeBody(merchantID, account string) models.Tokenization {
	return models.Tokenization{
		MerchantID: merchantID,
		Account:    &models.Account{AccountNumber: account, RoutingNumber: bankpaytest.SandboxRoutingNumber, Type: 1},
	}
}

func TestTokenizeTable(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	rows := specTokenizeTable()
	require.Len(t, rows, 27, "%d rows", len(rows))
	for _, r := range rows {
		t.Run(r.account, func(t *testing.T) {
			body := tokenizeBody(c.creds.MerchantID, r.account)
			body.Customer = &models.Customer{Name: "Jane Doe"}
			var got models.Tokenization
			c.postJSON("/accounts/tokenize?verifyAccount=true", body).wantOK(t, &got)
			a := got.Account
			require.Equal(t, c.creds.MerchantID, got.MerchantID, "echo %+v %+v", got, a)
			require.NotNil(t, got.Customer, "echo %+v %+v", got, a)
			require.Equal(t, "Jane Doe", got.Customer.Name, "echo %+v %+v", got, a)
			require.Equal(t, r.account, a.AccountNumber, "echo %+v %+v", got, a)
			require.Equal(t, bankpaytest.SandboxRoutingNumber, a.RoutingNumber, "echo %+v %+v", got, a)
			require.Equal(t, 1, a.Type, "echo %+v %+v", got, a)
			require.NotEmpty(t, a.Token, "no token")
			v := a.Verification
			require.NotNil(t, v, "verification %+v", v)
			require.Equal(t, 3, v.Type, "verification %+v", v)
			require.NotNil(t, v.Score, "verification %+v", v)
			require.Equal(t, r.score, *v.Score, "verification %+v", v)
			require.Equal(t, r.verified, v.Verified, "verification %+v", v)
			require.True(t, v.VerificationDate.Time() == friday, "verification %+v", v)
			if r.third < 0 {
				require.Nil(t, v.ThirdPartyScore, "thirdPartyScore %v, want none", v.ThirdPartyScore)
			} else {
				require.NotNil(t, v.ThirdPartyScore, "thirdPartyScore %v, want %d", v.ThirdPartyScore, r.third)
				require.Equal(t, r.third, *v.ThirdPartyScore, "thirdPartyScore %v, want %d", v.ThirdPartyScore, r.third)
			}
		})
	}
	// The exported table agrees with the spec.
	exported := bankpaytest.SandboxAccounts()
	require.Len(t, exported, len(rows), "SandboxAccounts has %d rows", len(exported))
	for i, r := range rows {
		e := exported[i]
		third := -1
		if e.ThirdPartyScore != nil {
			third = *e.ThirdPartyScore
		}
		require.Equal(t, r.account, e.AccountNumber, "SandboxAccounts[%d] = %+v, want %+v", i, e, r)
		require.Equal(t, r.score, e.Score, "SandboxAccounts[%d] = %+v, want %+v", i, e, r)
		require.Equal(t, r.verified, e.Verified, "SandboxAccounts[%d] = %+v, want %+v", i, e, r)
		require.Equal(t, r.third, third, "SandboxAccounts[%d] = %+v, want %+v", i, e, r)
	}
}

func TestTokenizeErrorTriggers(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	triggers := []struct {
		account      string
		status, code int
	}{
		{"1002000000", 400, 200},
		{"1003000000", 401, 300},
		{"1003250000", 401, 325},
		{"1003750000", 401, 375},
		{"1001000000", 500, 100},
	}
	for _, tr := range triggers {
		t.Run(tr.account, func(t *testing.T) {
			for _, q := range []string{"", "?verifyAccount=true"} {
				c.postJSON("/accounts/tokenize"+q, tokenizeBody(c.creds.MerchantID, tr.account)).wantError(t, tr.status, tr.code)
			}
		})
	}
	got := bankpaytest.ErrorTriggers()
	require.Len(t, got, len(triggers), "ErrorTriggers %+v", got)
}

func TestTokenizeToken(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	c1, c2 := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	token := func(c *api, account, query string) models.Tokenization {
		t.Helper()
		var got models.Tokenization
		c.postJSON("/accounts/tokenize"+query, tokenizeBody(c.creds.MerchantID, account)).wantOK(t, &got)
		return got
	}
	plain := token(c1, "1000000007", "")
	require.Nil(t, plain.Account.Verification, "verification without verifyAccount: %+v", plain.Account.Verification)
	require.Nil(t, token(c1, "1000000007", "?verifyAccount=false").Account.Verification, "verification with verifyAccount=false")
	again := token(c1, "1000000007", "?verifyAccount=true")
	other := token(c1, "1000000008", "")
	elsewhere := token(c2, "1000000007", "")
	require.Equal(t, plain.Account.Token, again.Account.Token, "token not stable for the same merchant and account")
	require.NotEqual(t, plain.Account.Token, other.Account.Token, "token shared across accounts or merchants")
	require.NotEqual(t, plain.Account.Token, elsewhere.Account.Token, "token shared across accounts or merchants")
}

func TestTokenizeInvalid(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	mid := c.creds.MerchantID
	noAccount := models.Tokenization{MerchantID: mid}
	noRouting := tokenizeBody(mid, "1000000001")
	noRouting.Account.RoutingNumber = ""
	otherRouting := tokenizeBody(mid, "1000000001")
	otherRouting.Account.RoutingNumber = "011000015"
	cases := map[string]struct {
		query        string
		body         models.Tokenization
		status, code int
	}{
		"no merchantId":     {"", tokenizeBody("", "1000000001"), 400, 200},
		"other merchantId":  {"", tokenizeBody("42", "1000000001"), 401, 300},
		"no account":        {"", noAccount, 400, 200},
		"no account number": {"", tokenizeBody(mid, ""), 400, 200},
		"no routing number": {"", noRouting, 400, 200},
		"other routing":     {"", otherRouting, 400, 200},
		"not digits":        {"", tokenizeBody(mid, "10000-0001"), 400, 200},
		"unknown account":   {"", tokenizeBody(mid, "5555555555"), 400, 330},
		"bad verifyAccount": {"?verifyAccount=maybe", tokenizeBody(mid, "1000000001"), 400, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c.postJSON("/accounts/tokenize"+tc.query, tc.body).wantError(t, tc.status, tc.code)
		})
	}
}
