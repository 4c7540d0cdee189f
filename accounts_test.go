package bankpay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

const accountBalanceJSON = `{"accountBalance":{"account":{
  "providerId":"200005501","paymentProvider":{"paymentProviderId":"051000017"},
  "nameOnAccount":"John Smith","name":"Demo Checking Account","type":1,"profile":1,
  "accountNumber":"1234567890","iban":"GB29NWBK60161331926819","routingNumber":"124003116","verified":true,
  "verification":{"verified":true,"type":3,"score":8,"thirdPartyScore":750,"verificationDate":"1700000000000","hasEnoughFunds":true}}}}`

func TestAccountsBalance(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET",
		Path: "/api/v1/transactions/1002581234567/payment/paymentProvider/account/balance"}, 200, accountBalanceJSON)

	bal, err := c.Accounts.Balance(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	a := bal.Account
	if a.ProviderID != "200005501" || a.PaymentProvider == nil || a.PaymentProvider.PaymentProviderID != "051000017" {
		t.Errorf("provider: %+v", a)
	}
	if a.NameOnAccount != "John Smith" || a.Name != "Demo Checking Account" || a.Type != 1 || a.Profile != 1 {
		t.Errorf("names/type: %+v", a)
	}
	if a.AccountNumber != "1234567890" || a.IBAN != "GB29NWBK60161331926819" || a.RoutingNumber != "124003116" || !a.Verified {
		t.Errorf("numbers: %+v", a)
	}
	v := a.Verification
	if v == nil || !v.Verified || v.Type != 3 || v.Score == nil || *v.Score != 8 ||
		v.ThirdPartyScore == nil || *v.ThirdPartyScore != 750 || v.HasEnoughFunds == nil || !*v.HasEnoughFunds {
		t.Fatalf("verification: %+v", v)
	}
	if !v.VerificationDate.Time().Equal(time.UnixMilli(1700000000000)) {
		t.Errorf("verificationDate = %v", v.VerificationDate)
	}
}

func TestAccountsBalanceMissingAccount(t *testing.T) {
	for _, body := range []string{`{}`, `{"accountBalance":null}`, `{"accountBalance":{}}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/account/balance"}, 200, body)
		_, err := c.Accounts.Balance(context.Background(), "T1")
		var re *ResponseError
		if !errors.Is(err, ErrInvalidResponse) || !errors.As(err, &re) || re.Method != "GET" {
			t.Errorf("body %s: err = %v, want *ResponseError", body, err)
		}
	}
}

const bankUserJSON = `{"user":{
  "name":["John Smith","J. Smith"],
  "address":[{"address1":"2000 Broadway St","address2":"Apt 2","city":"Redwood City","state":"CA","zip":"94063","country":"US"},
             {"address1":"1 Main St","city":"Boston","state":"MA","zip":"02110","country":"US"}],
  "phone":["+14155550100"],
  "email":["john@example.com","js@example.org"]}}`

func TestAccountsUser(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/payment/paymentProvider/user"}, 200, bankUserJSON)

	u, err := c.Accounts.User(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	if len(u.Name) != 2 || u.Name[0] != "John Smith" || u.Name[1] != "J. Smith" {
		t.Errorf("name = %q", u.Name)
	}
	want0 := models.Address{Address1: "2000 Broadway St", Address2: "Apt 2", City: "Redwood City", State: "CA", Zip: "94063", Country: "US"}
	if len(u.Address) != 2 || u.Address[0] != want0 || u.Address[1].Zip != "02110" || u.Address[1].City != "Boston" {
		t.Errorf("address = %+v", u.Address)
	}
	if len(u.Phone) != 1 || u.Phone[0] != "+14155550100" {
		t.Errorf("phone = %q", u.Phone)
	}
	if len(u.Email) != 2 || u.Email[0] != "john@example.com" || u.Email[1] != "js@example.org" {
		t.Errorf("email = %q", u.Email)
	}
}

func TestAccountsUserEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/paymentProvider/user"}, 200, `{"users":{}}`)
	if _, err := c.Accounts.User(context.Background(), "T1"); !errors.Is(err, ErrInvalidResponse) {
		t.Fatalf("err = %v, want ErrInvalidResponse", err)
	}
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

func TestAccountsSummary(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/accountSummary"}, 200, accountSummaryJSON)

	sum, err := c.Accounts.Summary(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	if sum.CustomerID != "cust-778" || !sum.LastUpdated.Time().Equal(time.UnixMilli(1700000000000)) {
		t.Errorf("header: %+v", sum)
	}
	if len(sum.Summary) != 2 {
		t.Fatalf("summary entries = %d", len(sum.Summary))
	}
	e := sum.Summary[0]
	if !e.SelectedAccount || e.Currency != models.USD || e.NameOnAccount != "John Smith" ||
		e.AccountNumber != "1234567890" || e.RoutingNumber != "124003116" || len(e.Aggregations) != 3 {
		t.Fatalf("entry: %+v", e)
	}
	want7 := models.Aggregation{Days: 7, ActivityEarliestDate: 1699395200000, ActivityLatestDate: 1699999000000,
		BalanceMax: "2500.75", BalanceMin: "100.00", BalanceAvg: "1200.10",
		DepositCount: 2, DepositAmountTotal: "1500.00", DepositAmountMax: "1000.00",
		WithdrawalCount: 3, WithdrawalAmountTotal: "450.25", WithdrawalAmountMax: "300.00",
		OverdraftCount: 0, OverdraftAmountTotal: "0.00", NSFCount: 0, NSFFeeAmountTotal: "0.00"}
	if got := e.Aggregation(7); got == nil || *got != want7 {
		t.Errorf("7 days = %+v\nwant %+v", got, want7)
	}
	want30 := models.Aggregation{Days: 30, ActivityEarliestDate: 1697408000000, ActivityLatestDate: 1699999000000,
		BalanceMax: "3100.00", BalanceMin: "-25.50", BalanceAvg: "1400.33",
		DepositCount: 6, DepositAmountTotal: "4500.00", DepositAmountMax: "1500.00",
		WithdrawalCount: 14, WithdrawalAmountTotal: "3980.40", WithdrawalAmountMax: "900.00",
		OverdraftCount: 1, OverdraftAmountTotal: "25.50", NSFCount: 1, NSFFeeAmountTotal: "35.00"}
	if got := e.Aggregation(30); got == nil || *got != want30 {
		t.Errorf("30 days = %+v\nwant %+v", got, want30)
	}
	want90 := models.Aggregation{Days: 90, ActivityEarliestDate: 1692224000000, ActivityLatestDate: 1699999000000,
		BalanceMax: "5200.00", BalanceMin: "-80.00", BalanceAvg: "1650.90",
		DepositCount: 18, DepositAmountTotal: "13500.00", DepositAmountMax: "2000.00",
		WithdrawalCount: 40, WithdrawalAmountTotal: "12900.10", WithdrawalAmountMax: "1200.00",
		OverdraftCount: 3, OverdraftAmountTotal: "130.00", NSFCount: 2, NSFFeeAmountTotal: "70.00"}
	if got := e.Aggregation(90); got == nil || *got != want90 {
		t.Errorf("90 days = %+v\nwant %+v", got, want90)
	}
	if cents, err := e.Aggregation(90).DepositAmountTotal.Cents(); err != nil || cents != 1350000 {
		t.Errorf("deposit total cents = %d, %v", cents, err)
	}
	if e2 := sum.Summary[1]; e2.SelectedAccount || e2.AccountNumber != "9876543210" || e2.Aggregations == nil || len(e2.Aggregations) != 0 {
		t.Errorf("second entry: %+v", e2)
	}
}

// An respond with no summary array at all is a *ResponseError; an empty array
// is a valid respond with no accounts.
func TestAccountsSummaryShape(t *testing.T) {
	for _, body := range []string{`{}`, `{"customerId":"c1","lastUpdated":1}`, `{"customerId":"c1","summary":null}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/accountSummary"}, 200, body)
		_, err := c.Accounts.Summary(context.Background(), "T1")
		var re *ResponseError
		if !errors.As(err, &re) || !errors.Is(err, ErrInvalidResponse) || re.Path != "/transactions/T1/accountSummary" {
			t.Errorf("body %s: err = %v, want *ResponseError", body, err)
		}
	}

	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/accountSummary"}, 200, `{"customerId":"c1","summary":[]}`)
	sum, err := c.Accounts.Summary(context.Background(), "T1")
	if err != nil || sum.CustomerID != "c1" || len(sum.Summary) != 0 {
		t.Fatalf("empty summary: %+v, %v", sum, err)
	}
}
