package bankpaytest_test

import (
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

func cents(t *testing.T, a models.Amount) int64 {
	t.Helper()
	s := string(a)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	c, err := models.Amount(s).Cents()
	if err != nil {
		t.Fatalf("amount %q: %v", a, err)
	}
	if neg {
		return -c
	}
	return c
}

func TestAccountData(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := uiData("ret-1", models.PaymentTypeRetrieval, "")
	d.Customer = &models.Customer{ExternalID: "ret-cust"}
	_, txn := c.authorize(d, bankpaytest.OutcomeAuthorize)
	id := txn.TransactionID

	var bal wire.AccountBalanceEnvelope
	c.get("/transactions/"+id+"/payment/paymentProvider/account/balance").wantOK(t, &bal)
	acct := bal.AccountBalance.Account
	if acct == nil || acct.ProviderID == "" || acct.NameOnAccount == "" || len(acct.AccountNumber) < 8 ||
		acct.RoutingNumber != bankpaytest.SandboxRoutingNumber || !acct.Verified || acct.Verification == nil ||
		acct.Verification.HasEnoughFunds == nil || !*acct.Verification.HasEnoughFunds {
		t.Fatalf("balance account %+v", acct)
	}
	balance := cents(t, bal.AccountBalance.Amount)
	if balance < 0 || bal.AccountBalance.Available != bal.AccountBalance.Amount || bal.AccountBalance.Currency != models.USD {
		t.Fatalf("balance %+v", bal.AccountBalance)
	}

	var user wire.BankUserEnvelope
	c.get("/transactions/"+id+"/payment/paymentProvider/user").wantOK(t, &user)
	u := user.User
	if len(u.Name) != 1 || u.Name[0] != acct.NameOnAccount || len(u.Address) != 1 || len(u.Phone) != 1 || len(u.Email) != 1 {
		t.Fatalf("user %+v", u)
	}

	var sum models.AccountSummary
	c.get("/transactions/"+id+"/accountSummary").wantOK(t, &sum)
	cust, _ := srv.Customer("ret-cust")
	if sum.CustomerID == "" || sum.CustomerID != cust.CustomerID || sum.LastUpdated.Time() != friday || len(sum.Summary) != 1 {
		t.Fatalf("summary %+v", sum)
	}
	e := sum.Summary[0]
	if !e.SelectedAccount || e.AccountNumber != acct.AccountNumber || e.RoutingNumber != acct.RoutingNumber || e.NameOnAccount != acct.NameOnAccount || e.Currency != models.USD {
		t.Fatalf("entry %+v", e)
	}
	a7, a30, a90 := e.Aggregation(7), e.Aggregation(30), e.Aggregation(90)
	if a7 == nil || a30 == nil || a90 == nil || len(e.Aggregations) != 3 {
		t.Fatalf("aggregations %+v", e.Aggregations)
	}
	// One history: nested windows agree.
	if !(a7.DepositCount <= a30.DepositCount && a30.DepositCount <= a90.DepositCount) ||
		!(a7.WithdrawalCount <= a30.WithdrawalCount && a30.WithdrawalCount <= a90.WithdrawalCount) ||
		!(a7.OverdraftCount <= a30.OverdraftCount && a30.OverdraftCount <= a90.OverdraftCount) ||
		!(a7.NSFCount <= a30.NSFCount && a30.NSFCount <= a90.NSFCount) {
		t.Fatalf("counts not nested: %+v %+v %+v", a7, a30, a90)
	}
	if a90.DepositCount == 0 || a90.WithdrawalCount == 0 {
		t.Fatalf("90 days without activity: %+v", a90)
	}
	for _, p := range [][2]*models.Aggregation{{a7, a30}, {a30, a90}} {
		in, out := p[0], p[1]
		if cents(t, in.DepositAmountTotal) > cents(t, out.DepositAmountTotal) ||
			cents(t, in.WithdrawalAmountTotal) > cents(t, out.WithdrawalAmountTotal) ||
			cents(t, in.DepositAmountMax) > cents(t, out.DepositAmountMax) ||
			cents(t, in.WithdrawalAmountMax) > cents(t, out.WithdrawalAmountMax) ||
			cents(t, in.OverdraftAmountTotal) > cents(t, out.OverdraftAmountTotal) ||
			cents(t, in.NSFFeeAmountTotal) > cents(t, out.NSFFeeAmountTotal) ||
			cents(t, in.BalanceMax) > cents(t, out.BalanceMax) ||
			cents(t, in.BalanceMin) < cents(t, out.BalanceMin) ||
			in.ActivityEarliestDate < out.ActivityEarliestDate {
			t.Fatalf("%d-day figures exceed %d-day ones: %+v %+v", in.Days, out.Days, in, out)
		}
	}
	for _, a := range []*models.Aggregation{a7, a30, a90} {
		lo, hi, avg := cents(t, a.BalanceMin), cents(t, a.BalanceMax), cents(t, a.BalanceAvg)
		if lo > avg || avg > hi {
			t.Fatalf("%d days: avg %d outside [%d, %d]", a.Days, avg, lo, hi)
		}
		// The current balance is the last day's closing balance.
		if balance < lo || balance > hi {
			t.Fatalf("%d days: balance %d outside [%d, %d]", a.Days, balance, lo, hi)
		}
		if a.DepositCount > 0 && (cents(t, a.DepositAmountMax) > cents(t, a.DepositAmountTotal) || a.ActivityLatestDate.Time().After(friday)) {
			t.Fatalf("%d days: %+v", a.Days, a)
		}
		if a.ActivityEarliestDate.Time().Before(friday.Add(-time.Duration(a.Days) * 24 * time.Hour)) {
			t.Fatalf("%d days: activity from %v", a.Days, a.ActivityEarliestDate)
		}
		if a.OverdraftCount == 0 && cents(t, a.OverdraftAmountTotal) != 0 || a.NSFCount*35_00 != int(cents(t, a.NSFFeeAmountTotal)) {
			t.Fatalf("%d days: overdraft/NSF %+v", a.Days, a)
		}
	}

	// Deterministic: the same transaction id gives the same figures in
	// another server, and the clock does not change them.
	srv.Advance(72 * time.Hour)
	var again models.AccountSummary
	c.get("/transactions/"+id+"/accountSummary").wantOK(t, &again)
	srv2 := newServer(t)
	c2 := newAPI(t, srv2, srv2.Credentials())
	_, txn2 := c2.authorize(uiData("ret-1", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeAuthorize)
	if txn2.TransactionID != id {
		t.Fatalf("transaction ids differ: %s %s", txn2.TransactionID, id)
	}
	var other models.AccountSummary
	c2.get("/transactions/"+id+"/accountSummary").wantOK(t, &other)
	for i := range e.Aggregations {
		if again.Summary[0].Aggregations[i] != e.Aggregations[i] || other.Summary[0].Aggregations[i] != e.Aggregations[i] {
			t.Fatalf("aggregation %d not deterministic", i)
		}
	}
}

func TestAccountDataRefusals(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	deferred := c.establish("disb", "1.00")
	_, canceled := c.authorize(uiData("ret-c", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeCancel)
	paths := []string{"/payment/paymentProvider/account/balance", "/payment/paymentProvider/user", "/accountSummary"}
	for _, id := range []string{deferred.TransactionID, canceled.TransactionID} {
		for _, p := range paths {
			c.get("/transactions/"+id+p).wantError(t, 400, 200)
		}
	}
}
