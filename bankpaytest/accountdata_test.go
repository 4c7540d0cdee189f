package bankpaytest_test

import (
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

func cents(t *testing.T, a models.Amount) int64 {
	t.Helper()
	s := string(a)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	c, err := models.Amount(s).Cents()
	require.NoError(t, err, "amount %q: %v", a, err)
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
	require.NotNil(t, acct, "balance account %+v", acct)
	require.NotEmpty(t, acct.ProviderID, "balance account %+v", acct)
	require.NotEmpty(t, acct.NameOnAccount, "balance account %+v", acct)
	require.GreaterOrEqual(t, len(acct.AccountNumber), 8, "balance account %+v", acct)
	require.Equal(t, bankpaytest.SandboxRoutingNumber, acct.RoutingNumber, "balance account %+v", acct)
	require.True(t, acct.Verified, "balance account %+v", acct)
	require.NotNil(t, acct.Verification, "balance account %+v", acct)
	require.NotNil(t, acct.Verification.HasEnoughFunds, "balance account %+v", acct)
	require.True(t, *acct.Verification.HasEnoughFunds, "balance account %+v", acct)
	balance := cents(t, bal.AccountBalance.Amount)
	require.GreaterOrEqual(t, balance, int64(0), "balance %+v", bal.AccountBalance)
	require.Equal(t, bal.AccountBalance.Amount, bal.AccountBalance.Available, "balance %+v", bal.AccountBalance)
	require.Equal(t, models.USD, bal.AccountBalance.Currency, "balance %+v", bal.AccountBalance)

	var user wire.BankUserEnvelope
	c.get("/transactions/"+id+"/payment/paymentProvider/user").wantOK(t, &user)
	u := user.User
	require.Len(t, u.Name, 1, "user %+v", u)
	require.Equal(t, acct.NameOnAccount, u.Name[0], "user %+v", u)
	require.Len(t, u.Address, 1, "user %+v", u)
	require.Len(t, u.Phone, 1, "user %+v", u)
	require.Len(t, u.Email, 1, "user %+v", u)

	var sum models.AccountSummary
	c.get("/transactions/"+id+"/accountSummary").wantOK(t, &sum)
	cust, _ := srv.Customer("ret-cust")
	require.NotEmpty(t, sum.CustomerID, "summary %+v", sum)
	require.Equal(t, cust.CustomerID, sum.CustomerID, "summary %+v", sum)
	require.True(t, sum.LastUpdated.Time() == friday, "summary %+v", sum)
	require.Len(t, sum.Summary, 1, "summary %+v", sum)
	e := sum.Summary[0]
	require.True(t, e.SelectedAccount, "entry %+v", e)
	require.Equal(t, acct.AccountNumber, e.AccountNumber, "entry %+v", e)
	require.Equal(t, acct.RoutingNumber, e.RoutingNumber, "entry %+v", e)
	require.Equal(t, acct.NameOnAccount, e.NameOnAccount, "entry %+v", e)
	require.Equal(t, models.USD, e.Currency, "entry %+v", e)
	a7, a30, a90 := e.Aggregation(7), e.Aggregation(30), e.Aggregation(90)
	require.NotNil(t, a7, "aggregations %+v", e.Aggregations)
	require.NotNil(t, a30, "aggregations %+v", e.Aggregations)
	require.NotNil(t, a90, "aggregations %+v", e.Aggregations)
	require.Len(t, e.Aggregations, 3, "aggregations %+v", e.Aggregations)
	// One history: nested windows agree.
	require.LessOrEqual(t, a7.DepositCount, a30.DepositCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a30.DepositCount, a90.DepositCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a7.WithdrawalCount, a30.WithdrawalCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a30.WithdrawalCount, a90.WithdrawalCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a7.OverdraftCount, a30.OverdraftCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a30.OverdraftCount, a90.OverdraftCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a7.NSFCount, a30.NSFCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.LessOrEqual(t, a30.NSFCount, a90.NSFCount, "counts not nested: %+v %+v %+v", a7, a30, a90)
	require.NotZero(t, a90.DepositCount, "90 days without activity: %+v", a90)
	require.NotZero(t, a90.WithdrawalCount, "90 days without activity: %+v", a90)
	for _, p := range [][2]*models.Aggregation{{a7, a30}, {a30, a90}} {
		in, out := p[0], p[1]
		msg := []any{"%d-day figures exceed %d-day ones: %+v %+v", in.Days, out.Days, in, out}
		require.LessOrEqual(t, cents(t, in.DepositAmountTotal), cents(t, out.DepositAmountTotal), msg...)
		require.LessOrEqual(t, cents(t, in.WithdrawalAmountTotal), cents(t, out.WithdrawalAmountTotal), msg...)
		require.LessOrEqual(t, cents(t, in.DepositAmountMax), cents(t, out.DepositAmountMax), msg...)
		require.LessOrEqual(t, cents(t, in.WithdrawalAmountMax), cents(t, out.WithdrawalAmountMax), msg...)
		require.LessOrEqual(t, cents(t, in.OverdraftAmountTotal), cents(t, out.OverdraftAmountTotal), msg...)
		require.LessOrEqual(t, cents(t, in.NSFFeeAmountTotal), cents(t, out.NSFFeeAmountTotal), msg...)
		require.LessOrEqual(t, cents(t, in.BalanceMax), cents(t, out.BalanceMax), msg...)
		require.GreaterOrEqual(t, cents(t, in.BalanceMin), cents(t, out.BalanceMin), msg...)
		require.GreaterOrEqual(t, in.ActivityEarliestDate, out.ActivityEarliestDate, msg...)
	}
	for _, a := range []*models.Aggregation{a7, a30, a90} {
		lo, hi, avg := cents(t, a.BalanceMin), cents(t, a.BalanceMax), cents(t, a.BalanceAvg)
		require.LessOrEqual(t, lo, avg, "%d days: avg %d outside [%d, %d]", a.Days, avg, lo, hi)
		require.LessOrEqual(t, avg, hi, "%d days: avg %d outside [%d, %d]", a.Days, avg, lo, hi)
		// The current balance is the last day's closing balance.
		require.GreaterOrEqual(t, balance, lo, "%d days: balance %d outside [%d, %d]", a.Days, balance, lo, hi)
		require.LessOrEqual(t, balance, hi, "%d days: balance %d outside [%d, %d]", a.Days, balance, lo, hi)
		if a.DepositCount > 0 {
			require.LessOrEqual(t, cents(t, a.DepositAmountMax), cents(t, a.DepositAmountTotal), "%d days: %+v", a.Days, a)
			require.False(t, a.ActivityLatestDate.Time().After(friday), "%d days: %+v", a.Days, a)
		}
		require.False(t, a.ActivityEarliestDate.Time().Before(friday.Add(-time.Duration(a.Days)*24*time.Hour)),
			"%d days: activity from %v", a.Days, a.ActivityEarliestDate)
		if a.OverdraftCount == 0 {
			require.Equal(t, int64(0), cents(t, a.OverdraftAmountTotal), "%d days: overdraft/NSF %+v", a.Days, a)
		}
		require.Equal(t, a.NSFCount*35_00, int(cents(t, a.NSFFeeAmountTotal)), "%d days: overdraft/NSF %+v", a.Days, a)
	}

	// Deterministic: the same transaction id gives the same figures in
	// another server, and the clock does not change them.
	srv.Advance(72 * time.Hour)
	var again models.AccountSummary
	c.get("/transactions/"+id+"/accountSummary").wantOK(t, &again)
	srv2 := newServer(t)
	c2 := newAPI(t, srv2, srv2.Credentials())
	_, txn2 := c2.authorize(uiData("ret-1", models.PaymentTypeRetrieval, ""), bankpaytest.OutcomeAuthorize)
	require.Equal(t, id, txn2.TransactionID, "transaction ids differ: %s %s", txn2.TransactionID, id)
	var other models.AccountSummary
	c2.get("/transactions/"+id+"/accountSummary").wantOK(t, &other)
	for i := range e.Aggregations {
		require.Equal(t, e.Aggregations[i], again.Summary[0].Aggregations[i], "aggregation %d not deterministic", i)
		require.Equal(t, e.Aggregations[i], other.Summary[0].Aggregations[i], "aggregation %d not deterministic", i)
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
