package bankpay

import (
	"context"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
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

// Unit tests of Accounts.ListSelected (error mapping, retries and
// undecodable responses: its row in endpoints(), endpoints_test.go).

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
