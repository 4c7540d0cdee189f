package bankpay

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullTokenizeParams uses every field: type, customer (with VIP tier 0,
// which must be sent) and verification.
func fullTokenizeParams() *TokenizeParams {
	vip := 0
	return &TokenizeParams{
		AccountNumber: "1000001700",
		RoutingNumber: "124003116",
		AccountType:   1,
		Customer:      &models.Customer{ExternalID: "cust-1", Name: "John Smith", VIP: &vip},
		VerifyAccount: true,
	}
}

// tokenizeFullBody is the golden body of fullTokenizeParams.
const tokenizeFullBody = `{"merchantId":"1002463580","account":{"type":1,"accountNumber":"1000001700","routingNumber":"124003116"},` +
	`"customer":{"externalId":"cust-1","name":"John Smith","vip":0}}`

const tokenizeResponseJSON = `{"merchantId":"1002463580",
  "account":{"type":1,"accountNumber":"1000001700","routingNumber":"124003116","token":"tok-7f3a9c1e",
    "verification":{"verified":true,"type":3,"score":7,"thirdPartyScore":700,"verificationDate":1700000000000}},
  "customer":{"externalId":"cust-1","name":"John Smith","vip":0}}`

func TestTokenize(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", RawQuery: "verifyAccount=true",
		ContentType: "application/json", Body: tokenizeFullBody}, 200, tokenizeResponseJSON)

	tok, err := c.Accounts.Tokenize(context.Background(), fullTokenizeParams())
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "1002463580", tok.MerchantID, "merchantId = %q", tok.MerchantID)
	a := tok.Account
	assert.Equal(t, "tok-7f3a9c1e", a.Token, "account = %+v", a)
	assert.Equal(t, "1000001700", a.AccountNumber, "account = %+v", a)
	assert.Equal(t, "124003116", a.RoutingNumber, "account = %+v", a)
	assert.Equal(t, 1, a.Type, "account = %+v", a)
	v := a.Verification
	require.NotNil(t, v, "verification = %+v", v)
	require.True(t, v.Verified, "verification = %+v", v)
	require.Equal(t, 3, v.Type, "verification = %+v", v)
	require.NotNil(t, v.Score, "verification = %+v", v)
	require.Equal(t, 7, *v.Score, "verification = %+v", v)
	require.NotNil(t, v.ThirdPartyScore, "verification = %+v", v)
	require.Equal(t, 700, *v.ThirdPartyScore, "verification = %+v", v)
	assert.True(t, v.VerificationDate.Time().Equal(time.UnixMilli(1700000000000)), "verification date/funds = %v %v", v.VerificationDate, v.HasEnoughFunds)
	assert.Nil(t, v.HasEnoughFunds, "verification date/funds = %v %v", v.VerificationDate, v.HasEnoughFunds)
	if assert.NotNil(t, tok.Customer, "customer = %+v", tok.Customer) {
		assert.Equal(t, "John Smith", tok.Customer.Name, "customer = %+v", tok.Customer)
		assert.Equal(t, "cust-1", tok.Customer.ExternalID, "customer = %+v", tok.Customer)
		if assert.NotNil(t, tok.Customer.VIP, "customer = %+v", tok.Customer) {
			assert.Equal(t, 0, *tok.Customer.VIP, "customer = %+v", tok.Customer)
		}
	}
}

// Without VerifyAccount there is no query; without type and customer the
// body carries only merchantId and the two numbers. A verification responded
// without thirdPartyScore leaves it nil.
func TestTokenizeMinimal(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", ContentType: "application/json",
		Body: `{"merchantId":"1002463580","account":{"accountNumber":"1000000008","routingNumber":"124003116"}}`},
		200, `{"merchantId":"1002463580","account":{"accountNumber":"1000000008","routingNumber":"124003116","token":"tok-1",
		  "verification":{"verified":true,"type":3,"score":8,"verificationDate":"1700000000000"}}}`)

	tok, err := c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: "1000000008", RoutingNumber: "124003116"})
	require.NoError(t, err)
	v := tok.Account.Verification
	assert.Equal(t, "tok-1", tok.Account.Token, "response = %+v / %+v", tok.Account, v)
	assert.Nil(t, tok.Customer, "response = %+v / %+v", tok.Account, v)
	if assert.NotNil(t, v, "response = %+v / %+v", tok.Account, v) {
		assert.Equal(t, 8, *v.Score, "response = %+v / %+v", tok.Account, v)
		assert.Nil(t, v.ThirdPartyScore, "response = %+v / %+v", tok.Account, v)
		assert.Equal(t, models.EpochMillis(1700000000000), v.VerificationDate, "response = %+v / %+v", tok.Account, v)
	}
}

func TestTokenizeResponseWithoutAccount(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", ContentType: "application/json",
		Body: `{"merchantId":"1002463580","account":{"accountNumber":"1000000008","routingNumber":"124003116"}}`}, 200, `{"merchantId":"1002463580"}`)
	_, err := c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: "1000000008", RoutingNumber: "124003116"})
	var re *ResponseError
	require.ErrorAs(t, err, &re, "err = %v, want *ResponseError", err)
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want *ResponseError", err)
}

func TestTokenizeValidation(t *testing.T) {
	neg := -1
	valid := func() *TokenizeParams {
		return &TokenizeParams{AccountNumber: "1000000008", RoutingNumber: "124003116"}
	}
	cases := []struct {
		name  string
		p     *TokenizeParams
		field string
	}{
		{"nil params", nil, "params"},
		{"account number missing", &TokenizeParams{RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number with letters", &TokenizeParams{AccountNumber: "98765x4321", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number with spaces", &TokenizeParams{AccountNumber: "9876 54321", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number with dash", &TokenizeParams{AccountNumber: "98765-4321", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number non-ASCII digits", &TokenizeParams{AccountNumber: "٩٨٧٦٥٤٣٢١", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number 3 digits", &TokenizeParams{AccountNumber: "987", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"account number 18 digits", &TokenizeParams{AccountNumber: "987654321098765432", RoutingNumber: "124003116"}, "account.accountNumber"},
		{"routing number missing", &TokenizeParams{AccountNumber: "9876543210"}, "account.routingNumber"},
		{"routing number 8 digits", &TokenizeParams{AccountNumber: "9876543210", RoutingNumber: "12400311"}, "account.routingNumber"},
		{"routing number 10 digits", &TokenizeParams{AccountNumber: "9876543210", RoutingNumber: "1240031160"}, "account.routingNumber"},
		{"routing number with letter", &TokenizeParams{AccountNumber: "9876543210", RoutingNumber: "12400311A"}, "account.routingNumber"},
		{"negative account type", func() *TokenizeParams { p := valid(); p.AccountType = -1; return p }(), "account.type"},
		{"negative VIP tier", func() *TokenizeParams {
			p := valid()
			p.Customer = &models.Customer{Name: "John Smith", VIP: &neg}
			return p
		}(), "customer.vip"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expectNoRequest(t, mock)
			_, err := c.Accounts.Tokenize(context.Background(), tc.p)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve, "err = %v, want *ValidationError on %s", err, tc.field)
			require.Equal(t, tc.field, ve.Field, "err = %v, want *ValidationError on %s", err, tc.field)
			require.True(t, isValidation(err), "err = %v, want *ValidationError on %s", err, tc.field)
			assert.Equal(t, int32(0), calls.Load(), "%d requests sent", calls.Load())
			if tc.p != nil && tc.p.AccountNumber != "" {
				assert.NotContains(t, err.Error(), tc.p.AccountNumber, "error %q contains the account number", err)
			}
		})
	}
}

// Boundaries that are accepted: 4 and 17 digit account numbers, a routing
// number that fails the ABA check digit (not checked by the SDK), VIP 0.
func TestTokenizeAcceptedBoundaries(t *testing.T) {
	for _, p := range []*TokenizeParams{
		{AccountNumber: "1234", RoutingNumber: "124003116"},
		{AccountNumber: "12345678901234567", RoutingNumber: "124003116"},
		{AccountNumber: "0001234", RoutingNumber: "000112345"}, // leading zeros; Canadian-style, no ABA check digit
	} {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(200, `{"merchantId":"1002463580","account":{"token":"t"}}`))
		_, err := c.Accounts.Tokenize(context.Background(), p)
		assert.NoError(t, err, "Tokenize(%d-digit account): %v", len(p.AccountNumber), err)
		assert.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	}
}

// The sandbox error triggers, as the service responds them; the account
// number in the response's message must not reach the error text.
func TestTokenizeErrorsHideAccountNumber(t *testing.T) {
	cases := []struct {
		account string
		status  int
		code    int
		is      error
	}{
		{"1002000000", 400, 200, ErrBadRequest},
		{"1003000000", 401, 300, ErrUnauthorized},
		{"1003250000", 401, 325, ErrUnauthorized},
		{"1003750000", 401, 375, ErrUnauthorized},
		{"1001000000", 500, 100, ErrServer},
	}
	for _, tc := range cases {
		c, mock, _ := newTestClient(t)
		body := `{"errors":[{"domain":"Tokenize","code":` + strconv.Itoa(tc.code) + `,"message":"account ` + tc.account +
			` / routing 124003116 rejected","location":"account.accountNumber=` + tc.account + `"}]}`
		calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", ContentType: "application/json",
			Body: `{"merchantId":"1002463580","account":{"accountNumber":"` + tc.account + `","routingNumber":"124003116"}}`}, tc.status, body)
		_, err := c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: tc.account, RoutingNumber: "124003116"})
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr, "%s: err = %v", tc.account, err)
		require.Equal(t, tc.status, apiErr.StatusCode, "%s: err = %v", tc.account, err)
		require.Equal(t, tc.code, apiErr.Code, "%s: err = %v", tc.account, err)
		require.ErrorIs(t, err, tc.is, "%s: err = %v", tc.account, err)
		assert.NotErrorIs(t, err, ErrIdentityNotReady, "%s: tokenize error matches ErrIdentityNotReady", tc.account)
		assert.Equal(t, int32(1), calls.Load(), "%s: calls = %d, want 1 (POST not retried)", tc.account, calls.Load())
		for _, s := range []string{err.Error(), apiErr.Message, apiErr.Errors[0].Location} {
			assert.NotContains(t, s, tc.account, "%s: error text %q contains the account number", tc.account, s)
		}
	}
}

func TestTokenizeIBAN(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", ContentType: "application/json",
		Body: `{"merchantId":"1002463580","account":{"nameOnAccount":"Erika Mustermann","iban":"` + testIBAN + `"}}`},
		200, `{"nameOnAccount":"Erika Mustermann","iban":"`+testIBAN+`","token":"tok-iban"}`)
	tok, err := c.Accounts.Tokenize(context.Background(), &TokenizeParams{IBAN: testIBAN, NameOnAccount: "Erika Mustermann"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, "tok-iban", tok.Account.Token)
	assert.Equal(t, "Erika Mustermann", tok.Account.NameOnAccount)
}

func TestTokenizeRejectsBadAccounts(t *testing.T) {
	checkRejectsAccounts(t, func(c *Client, number, routing, iban string) error {
		_, err := c.Accounts.Tokenize(context.Background(), &TokenizeParams{AccountNumber: number, RoutingNumber: routing, IBAN: iban})
		return err
	})
}

// TestTokenizeResultsOwnTheirValues: each call's result (read into storage
// the call allocates) shares nothing with another call's, and the shared
// verifyAccount query is never written by a call.
func TestTokenizeResultsOwnTheirValues(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/tokenize", RawQuery: "verifyAccount=true",
		ContentType: "application/json", Body: tokenizeFullBody}, 200, tokenizeResponseJSON)

	first, err := c.Accounts.Tokenize(context.Background(), fullTokenizeParams())
	require.NoError(t, err)
	second, err := c.Accounts.Tokenize(context.Background(), fullTokenizeParams(), WithHeader("X-Trace", "t-1"))
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load())
	require.NotNil(t, first.Account.Verification)
	require.NotNil(t, first.Account.Verification.Score)
	*first.Account.Verification.Score = 1
	first.Account.Token = "changed"
	assert.Equal(t, 7, *second.Account.Verification.Score)
	assert.Equal(t, "tok-7f3a9c1e", second.Account.Token)
	assert.Equal(t, url.Values{"verifyAccount": {"true"}}, verifyAccountQuery)
}
