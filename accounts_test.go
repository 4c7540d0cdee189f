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

const accountBalanceJSON = `{"accountBalance":{"account":{
  "providerId":"200005501","paymentProvider":{"paymentProviderId":"051000017"},
  "nameOnAccount":"John Smith","name":"Demo Checking Account","type":1,"profile":1,
  "accountNumber":"1234567890","iban":"GB29NWBK60161331926819","routingNumber":"124003116","verified":true,
  "verification":{"verified":true,"type":3,"score":8,"thirdPartyScore":750,"verificationDate":"1700000000000","hasEnoughFunds":true}}}}`

func TestAccounts_Balance(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET",
		Path: "/api/v1/transactions/1002581234567/payment/paymentProvider/account/balance"}, 200, accountBalanceJSON)

	bal, err := c.Accounts.Balance(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	a := bal.Account
	assert.Equal(t, "200005501", a.ProviderID, "provider: %+v", a)
	if assert.NotNil(t, a.PaymentProvider, "provider: %+v", a) {
		assert.Equal(t, "051000017", a.PaymentProvider.PaymentProviderID, "provider: %+v", a)
	}
	assert.Equal(t, "John Smith", a.NameOnAccount, "names/type: %+v", a)
	assert.Equal(t, "Demo Checking Account", a.Name, "names/type: %+v", a)
	assert.Equal(t, 1, a.Type, "names/type: %+v", a)
	assert.Equal(t, 1, a.Profile, "names/type: %+v", a)
	assert.Equal(t, "1234567890", a.AccountNumber, "numbers: %+v", a)
	assert.Equal(t, "GB29NWBK60161331926819", a.IBAN, "numbers: %+v", a)
	assert.Equal(t, "124003116", a.RoutingNumber, "numbers: %+v", a)
	assert.True(t, a.Verified, "numbers: %+v", a)
	v := a.Verification
	require.NotNil(t, v, "verification: %+v", v)
	require.True(t, v.Verified, "verification: %+v", v)
	require.Equal(t, 3, v.Type, "verification: %+v", v)
	require.NotNil(t, v.Score, "verification: %+v", v)
	require.Equal(t, 8, *v.Score, "verification: %+v", v)
	require.NotNil(t, v.ThirdPartyScore, "verification: %+v", v)
	require.Equal(t, 750, *v.ThirdPartyScore, "verification: %+v", v)
	require.NotNil(t, v.HasEnoughFunds, "verification: %+v", v)
	require.True(t, *v.HasEnoughFunds, "verification: %+v", v)
	assert.True(t, v.VerificationDate.Time().Equal(time.UnixMilli(1700000000000)), "verificationDate = %v", v.VerificationDate)
}

func TestAccounts_BalanceMissingAccount(t *testing.T) {
	for _, body := range []string{`{}`, `{"accountBalance":null}`, `{"accountBalance":{}}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/account/balance"}, 200, body)
		_, err := c.Accounts.Balance(context.Background(), "T1")
		var re *ResponseError
		assert.ErrorIs(t, err, ErrInvalidResponse, "body %s: err = %v, want *ResponseError", body, err)
		if assert.ErrorAs(t, err, &re, "body %s: err = %v, want *ResponseError", body, err) {
			assert.Equal(t, "GET", re.Method, "body %s: err = %v, want *ResponseError", body, err)
		}
	}
}

const bankUserJSON = `{"user":{
  "name":["John Smith","J. Smith"],
  "address":[{"address1":"2000 Broadway St","address2":"Apt 2","city":"Redwood City","state":"CA","zip":"94063","country":"US"},
             {"address1":"1 Main St","city":"Boston","state":"MA","zip":"02110","country":"US"}],
  "phone":["+14155550100"],
  "email":["john@example.com","js@example.org"]}}`

func TestAccounts_User(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/payment/paymentProvider/user"}, 200, bankUserJSON)

	u, err := c.Accounts.User(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	if assert.Len(t, u.Name, 2, "name = %q", u.Name) {
		assert.Equal(t, "John Smith", u.Name[0], "name = %q", u.Name)
		assert.Equal(t, "J. Smith", u.Name[1], "name = %q", u.Name)
	}
	want0 := models.Address{Address1: "2000 Broadway St", Address2: "Apt 2", City: "Redwood City", State: "CA", Zip: "94063", Country: "US"}
	if assert.Len(t, u.Address, 2, "address = %+v", u.Address) {
		assert.Equal(t, want0, u.Address[0], "address = %+v", u.Address)
		assert.Equal(t, "02110", u.Address[1].Zip, "address = %+v", u.Address)
		assert.Equal(t, "Boston", u.Address[1].City, "address = %+v", u.Address)
	}
	if assert.Len(t, u.Phone, 1, "phone = %q", u.Phone) {
		assert.Equal(t, "+14155550100", u.Phone[0], "phone = %q", u.Phone)
	}
	if assert.Len(t, u.Email, 2, "email = %q", u.Email) {
		assert.Equal(t, "john@example.com", u.Email[0], "email = %q", u.Email)
		assert.Equal(t, "js@example.org", u.Email[1], "email = %q", u.Email)
	}
}

func TestAccounts_UserEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/user"}, 200, `{"users":{}}`)
	_, err := c.Accounts.User(context.Background(), "T1")
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want ErrInvalidResponse", err)
}

const accountSummaryJSON = `{"customerId":"cust-778","lastUpdated":1700000000000,"summary":[
  {"selectedAccount":true,"currency":"USD","nameOnAccount":"John Smith","accountNumber":"1234567890","routingNumber":"124003116",
   "aggregations":[
    {"days":7,"activityEarliestDate":1699395200000,"activityLatestDate":"1699999000000",
     "balanceMax":"2500.75","balanceMin":"100.00","balanceAvg":"1200.10",
     "depositCount":2,"depositAmountTotal":"1500.00","depositAmountMax":"1000.00",
     "withdrawalCount":3,"withdrawalAmountTotal":"450.25","withdrawalAmountMax":"300.00",
     "overdraftCount":0,"overdraftAmountTotal":"0.00","nsfCount":0,"nsfFeeAmountTotal":"0.00"},
    {"days":30,"activityEarliestDate":1697408000000,"activityLatestDate":1699999000000,
     "balanceMax":"3100.00","balanceMin":"-25.50","balanceAvg":"1400.33",
     "depositCount":6,"depositAmountTotal":"4500.00","depositAmountMax":"1500.00",
     "withdrawalCount":14,"withdrawalAmountTotal":"3980.40","withdrawalAmountMax":"900.00",
     "overdraftCount":1,"overdraftAmountTotal":"25.50","nsfCount":1,"nsfFeeAmountTotal":"35.00"},
    {"days":90,"activityEarliestDate":1692224000000,"activityLatestDate":1699999000000,
     "balanceMax":"5200.00","balanceMin":"-80.00","balanceAvg":"1650.90",
     "depositCount":18,"depositAmountTotal":"13500.00","depositAmountMax":"2000.00",
     "withdrawalCount":40,"withdrawalAmountTotal":"12900.10","withdrawalAmountMax":"1200.00",
     "overdraftCount":3,"overdraftAmountTotal":"130.00","nsfCount":2,"nsfFeeAmountTotal":"70.00"}]},
  {"selectedAccount":false,"currency":"USD","nameOnAccount":"John Smith","accountNumber":"9876543210","routingNumber":"124003116","aggregations":[]}]}`

func TestAccounts_Summary(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/accountSummary"}, 200, accountSummaryJSON)

	sum, err := c.Accounts.Summary(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "cust-778", sum.CustomerID, "header: %+v", sum)
	assert.True(t, sum.LastUpdated.Time().Equal(time.UnixMilli(1700000000000)), "header: %+v", sum)
	require.Len(t, sum.Summary, 2, "summary entries = %d", len(sum.Summary))
	e := sum.Summary[0]
	require.True(t, e.SelectedAccount, "entry: %+v", e)
	require.Equal(t, models.USD, e.Currency, "entry: %+v", e)
	require.Equal(t, "John Smith", e.NameOnAccount, "entry: %+v", e)
	require.Equal(t, "1234567890", e.AccountNumber, "entry: %+v", e)
	require.Equal(t, "124003116", e.RoutingNumber, "entry: %+v", e)
	require.Len(t, e.Aggregations, 3, "entry: %+v", e)
	want7 := models.Aggregation{Days: 7, ActivityEarliestDate: 1699395200000, ActivityLatestDate: 1699999000000,
		BalanceMax: "2500.75", BalanceMin: "100.00", BalanceAvg: "1200.10",
		DepositCount: 2, DepositAmountTotal: "1500.00", DepositAmountMax: "1000.00",
		WithdrawalCount: 3, WithdrawalAmountTotal: "450.25", WithdrawalAmountMax: "300.00",
		OverdraftCount: 0, OverdraftAmountTotal: "0.00", NSFCount: 0, NSFFeeAmountTotal: "0.00"}
	got7 := e.Aggregation(7)
	if assert.NotNil(t, got7, "7 days = %+v\nwant %+v", got7, want7) {
		assert.Equal(t, want7, *got7, "7 days = %+v\nwant %+v", got7, want7)
	}
	want30 := models.Aggregation{Days: 30, ActivityEarliestDate: 1697408000000, ActivityLatestDate: 1699999000000,
		BalanceMax: "3100.00", BalanceMin: "-25.50", BalanceAvg: "1400.33",
		DepositCount: 6, DepositAmountTotal: "4500.00", DepositAmountMax: "1500.00",
		WithdrawalCount: 14, WithdrawalAmountTotal: "3980.40", WithdrawalAmountMax: "900.00",
		OverdraftCount: 1, OverdraftAmountTotal: "25.50", NSFCount: 1, NSFFeeAmountTotal: "35.00"}
	got30 := e.Aggregation(30)
	if assert.NotNil(t, got30, "30 days = %+v\nwant %+v", got30, want30) {
		assert.Equal(t, want30, *got30, "30 days = %+v\nwant %+v", got30, want30)
	}
	want90 := models.Aggregation{Days: 90, ActivityEarliestDate: 1692224000000, ActivityLatestDate: 1699999000000,
		BalanceMax: "5200.00", BalanceMin: "-80.00", BalanceAvg: "1650.90",
		DepositCount: 18, DepositAmountTotal: "13500.00", DepositAmountMax: "2000.00",
		WithdrawalCount: 40, WithdrawalAmountTotal: "12900.10", WithdrawalAmountMax: "1200.00",
		OverdraftCount: 3, OverdraftAmountTotal: "130.00", NSFCount: 2, NSFFeeAmountTotal: "70.00"}
	got90 := e.Aggregation(90)
	if assert.NotNil(t, got90, "90 days = %+v\nwant %+v", got90, want90) {
		assert.Equal(t, want90, *got90, "90 days = %+v\nwant %+v", got90, want90)
	}
	cents, err := e.Aggregation(90).DepositAmountTotal.Cents()
	assert.NoError(t, err, "deposit total cents = %d, %v", cents, err)
	assert.Equal(t, int64(1350000), cents, "deposit total cents = %d, %v", cents, err)
	e2 := sum.Summary[1]
	assert.False(t, e2.SelectedAccount, "second entry: %+v", e2)
	assert.Equal(t, "9876543210", e2.AccountNumber, "second entry: %+v", e2)
	assert.NotNil(t, e2.Aggregations, "second entry: %+v", e2)
	assert.Empty(t, e2.Aggregations, "second entry: %+v", e2)
}

// An respond with no summary array at all is a *ResponseError; an empty array
// is a valid respond with no accounts.
func TestAccounts_SummaryShape(t *testing.T) {
	for _, body := range []string{`{}`, `{"customerId":"c1","lastUpdated":1}`, `{"customerId":"c1","summary":null}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/accountSummary"}, 200, body)
		_, err := c.Accounts.Summary(context.Background(), "T1")
		var re *ResponseError
		if assert.ErrorAs(t, err, &re, "body %s: err = %v, want *ResponseError", body, err) {
			assert.Equal(t, "/transactions/T1/accountSummary", re.Path, "body %s: err = %v, want *ResponseError", body, err)
		}
		assert.ErrorIs(t, err, ErrInvalidResponse, "body %s: err = %v, want *ResponseError", body, err)
	}

	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/accountSummary"}, 200, `{"customerId":"c1","summary":[]}`)
	sum, err := c.Accounts.Summary(context.Background(), "T1")
	require.NoError(t, err, "empty summary: %+v, %v", sum, err)
	require.Equal(t, "c1", sum.CustomerID, "empty summary: %+v, %v", sum, err)
	require.Empty(t, sum.Summary, "empty summary: %+v, %v", sum, err)
}

// Unit tests of Accounts.Verify, Feedback and ListSelected, and WithExpand
// (error mapping, retries and undecodable responses: their rows in
// endpoints(), endpoints_test.go).

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

func TestAccounts_ListSelected(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/accounts"}, 200, selectedAccountsJSON)
	list, err := c.Accounts.ListSelected(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	require.Len(t, list, 1)
	a := list[0]
	assert.Equal(t, "2012345678", a.AccountNumber)
	assert.Equal(t, "5678", a.AccountNumberLastFour)
	assert.Equal(t, 1, a.Type, "1.0 reads as 1")
	assert.Equal(t, "tok-1", a.Token)
	require.NotNil(t, a.Verification)
	assert.Equal(t, 2, a.Verification.Type)

	for body, ok := range map[string]bool{`{"accounts":[]}`: true, `[]`: true, `{}`: false, `{"accounts":{}}`: false} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/accounts"}, 200, body)
		list, err := c.Accounts.ListSelected(context.Background(), "T1")
		if ok {
			require.NoError(t, err, body)
			assert.Empty(t, list)
		} else {
			assert.ErrorIs(t, err, ErrInvalidResponse, body)
		}
	}
}

// assertNoAccountData fails if text shows the account number or IBAN.
func assertNoAccountData(t *testing.T, text, number, iban string) {
	t.Helper()
	if len(number) >= 5 {
		assert.NotContains(t, text, number)
	}
	if len(iban) >= 5 {
		assert.NotContains(t, text, iban)
		assert.NotContains(t, text, iban[4:])
	}
}
