package bankpay

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Unit tests of Accounts.Verify and Feedback, and WithExpand (error mapping,
// retries and undecodable responses: their rows in endpoints(),
// endpoints_test.go).

const testIBAN = "DE89370400440532013000"

func TestAccounts_Verify(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/verify", ContentType: "application/json",
		Body: verifyBodyRouting}, 200, verifyResponseJSON)
	p := verifyParams()
	a, err := c.Accounts.Verify(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, verifyParams(), p, "params not modified")
	assert.Equal(t, 1, a.Type)
	assert.Equal(t, 1, a.Profile)
	assert.Equal(t, "1700", a.AccountNumber, "the last 4 digits")
	assert.Equal(t, "tok-7f3a9c1e", a.Token)
	assert.True(t, a.Verified)
	require.NotNil(t, a.PaymentProvider)
	assert.Equal(t, "Demo Bank", a.PaymentProvider.Name)
	v := a.Verification
	require.NotNil(t, v)
	assert.Equal(t, 3, v.Type)
	require.NotNil(t, v.Score)
	assert.Equal(t, 7, *v.Score)
	require.NotNil(t, v.ThirdPartyScore)
	assert.Equal(t, 700, *v.ThirdPartyScore)
	require.NotNil(t, v.HasEnoughFunds)
	assert.False(t, *v.HasEnoughFunds)
	assert.Equal(t, time.UnixMilli(1700000000000).UTC(), v.VerificationDate.Time())
}

// An IBAN goes in place of the numbers; WithExpand adds expand; a wrapped
// {"account":…} response is read too.
func TestAccounts_VerifyIBANExpand(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/verify", RawQuery: "expand=account.paymentProvider",
		ContentType: "application/json", Body: `{"merchantId":1002463580,"account":{"iban":"` + testIBAN + `"}}`},
		200, `{"account":{"name":"Current Account","iban":"`+testIBAN+`","accountNumber":"3000","verified":true,"verification":{"verified":true,"type":3,"score":6}}}`)
	a, err := c.Accounts.Verify(context.Background(), &AccountVerifyParams{IBAN: testIBAN}, WithExpand("account.paymentProvider"))
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, testIBAN, a.IBAN)
	require.NotNil(t, a.Verification.Score)
	assert.Equal(t, 6, *a.Verification.Score)
}

// merchantId is a JSON number (OpenAPI) when the id is a plain decimal
// number, a string otherwise.
func TestAccounts_VerifyMerchantIDForms(t *testing.T) {
	for id, want := range map[string]string{"1002463580": `1002463580`, "M-42": `"M-42"`, "0042": `"0042"`, "1234567890123456": `"1234567890123456"`} {
		creds := testCreds
		creds.MerchantID = id
		mock := httpmock.NewMockTransport()
		c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}))
		require.NoError(t, err)
		calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/verify", ContentType: "application/json",
			Body: `{"merchantId":` + want + `,"account":{"iban":"` + testIBAN + `"}}`}, 200, verifyResponseJSON)
		_, err = c.Accounts.Verify(context.Background(), &AccountVerifyParams{IBAN: testIBAN})
		require.NoError(t, err, id)
		assert.Equal(t, int32(1), calls.Load())
	}
}

func TestAccounts_VerifyWithoutVerification(t *testing.T) {
	for _, body := range []string{`{"name":"Checking","token":"t"}`, `{"account":{"token":"t"}}`, `{"account":null}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/accounts/verify", ContentType: "application/json", Body: verifyBodyRouting}, 200, body)
		_, err := c.Accounts.Verify(context.Background(), verifyParams())
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
	}
}

// accountCases are bad accounts for Verify and Tokenize, with the field
// their error must name (below "account.").
var accountCases = []struct {
	name                  string
	number, routing, iban string
	field                 string
}{
	{"nothing", "", "", "", "accountNumber"},
	{"letters in number", "10000A1700", "124003116", "", "accountNumber"},
	{"short number", "123", "124003116", "", "accountNumber"},
	{"no routing", "1000001700", "", "", "routingNumber"},
	{"8-digit routing", "1000001700", "12400311", "", "routingNumber"},
	{"iban and number", "1000001700", "", testIBAN, "iban"},
	{"iban and routing", "", "124003116", testIBAN, "iban"},
	{"iban checksum", "", "", "DE89370400440532013001", "iban"},
	{"iban lower case", "", "", strings.ToLower(testIBAN), "iban"},
	{"iban with spaces", "", "", "DE89 3704 0044 0532 0130 00", "iban"},
	{"iban too short", "", "", "DE8937040044", "iban"},
	{"iban too long", "", "", "DE89" + strings.Repeat("1", 31), "iban"},
	{"iban no check digits", "", "", "DEXX370400440532013000", "iban"},
}

// checkRejectsAccounts runs call with every row of accountCases: each is
// refused naming its field, nothing is sent, and the error never repeats
// the account number or the IBAN.
func checkRejectsAccounts(t *testing.T, call func(c *Client, number, routing, iban string) error) {
	t.Helper()
	for _, tc := range accountCases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			checkRejected(t, "account."+tc.field, func(c *Client) error {
				err = call(c, tc.number, tc.routing, tc.iban)
				return err
			})
			require.Error(t, err)
			assertNoAccountData(t, err.Error(), tc.number, tc.iban)
		})
	}
}

// Bad input names the field, sends nothing, and never repeats the account
// number or the IBAN.
func TestAccounts_VerifyRejects(t *testing.T) {
	checkRejectsAccounts(t, func(c *Client, number, routing, iban string) error {
		_, err := c.Accounts.Verify(context.Background(), &AccountVerifyParams{AccountNumber: number, RoutingNumber: routing, IBAN: iban})
		return err
	})
	checkRejected(t, "params", func(c *Client) error { _, err := c.Accounts.Verify(context.Background(), nil); return err })
	checkRejected(t, "account.nameOnAccount", func(c *Client) error {
		_, err := c.Accounts.Verify(context.Background(), &AccountVerifyParams{IBAN: testIBAN, NameOnAccount: "Jane\x1b[2J"})
		return err
	})
}

func TestAccounts_Feedback(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/feedback", ContentType: "application/json", Body: feedbackBodyToken},
		200, `{"message":"Feedback received"}`)
	require.NoError(t, c.Accounts.Feedback(context.Background(), feedbackParams()))
	assert.Equal(t, int32(1), calls.Load())

	// By account and routing number, only the required fields.
	c, mock, _ = newTestClient(t)
	calls = expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/feedback", ContentType: "application/json",
		Body: `{"merchantId":1002463580,"account":{"accountNumber":"1000001700","routingNumber":"124003116"},"feedback":{"status":"5","subStatus":"R01"}}`},
		200, `{}`)
	require.NoError(t, c.Accounts.Feedback(context.Background(), &AccountFeedbackParams{AccountNumber: "1000001700", RoutingNumber: "124003116",
		Status: models.StatusFailed, SubStatus: "R01"}))
	assert.Equal(t, int32(1), calls.Load())
}

func TestAccounts_FeedbackRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*AccountFeedbackParams)
		field string
	}{
		{"token and number", func(p *AccountFeedbackParams) { p.AccountNumber = "1000001700" }, "account.token"},
		{"no account", func(p *AccountFeedbackParams) { p.Token = "" }, "account.accountNumber"},
		{"number without routing", func(p *AccountFeedbackParams) { p.Token, p.AccountNumber = "", "1000001700" }, "account.routingNumber"},
		{"control in token", func(p *AccountFeedbackParams) { p.Token = "t\x00" }, "account.token"},
		{"status 0", func(p *AccountFeedbackParams) { p.Status = 0 }, "feedback.status"},
		{"status Denied", func(p *AccountFeedbackParams) { p.Status = models.StatusDenied }, "feedback.status"},
		{"status 14", func(p *AccountFeedbackParams) { p.Status = models.StatusOnHold }, "feedback.status"},
		{"no subStatus", func(p *AccountFeedbackParams) { p.SubStatus = "" }, "feedback.subStatus"},
		{"bad amount", func(p *AccountFeedbackParams) { p.Amount = "12.5" }, "feedback.amount"},
		{"CAD", func(p *AccountFeedbackParams) { p.Currency = models.CAD }, "feedback.currency"},
		{"returned before sent", func(p *AccountFeedbackParams) { p.ReturnDate = p.SubmissionDate.Add(-time.Hour) }, "feedback.returnDate"},
		{"control in description", func(p *AccountFeedbackParams) { p.Description = "a\rb" }, "feedback.description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := feedbackParams()
			tc.edit(p)
			var err error
			checkRejected(t, tc.field, func(c *Client) error { err = c.Accounts.Feedback(context.Background(), p); return err })
			assertNoAccountData(t, err.Error(), "1000001700", "")
		})
	}
	checkRejected(t, "params", func(c *Client) error { return c.Accounts.Feedback(context.Background(), nil) })
	// Every documented status is accepted.
	for _, st := range []models.TransactionStatus{2, 3, 4, 5, 6, 7, 9, 10, 13} {
		p := feedbackParams()
		p.Status = st
		assert.NoError(t, p.validate(), "status %d", st)
	}
}
