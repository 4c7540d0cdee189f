// Command cashflow shows the cash flow data use case: after a Retrieval
// authorization the merchant reads the account summary, aggregated balance,
// deposit, withdrawal, overdraft and non-sufficient-funds figures over the
// last 7, 30 and 90 days, for an affordability or risk decision.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("cashflow", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()

	env.Section("1. A Retrieval authorization")
	d := &models.EstablishData{
		Description:       "Affordability check",
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref("cashflow"),
		PaymentType:       models.PaymentTypeRetrieval,
		ReturnURL:         "https://lender.example/bankpay/return",
		CancelURL:         "https://lender.example/bankpay/cancel",
		NotificationURL:   events.URL,
		Customer:          &models.Customer{ExternalID: "applicant-77", Name: "Sam Patel"},
	}
	r, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}

	env.Section("2. The account summary")
	env.Call("Accounts.Summary(%s)", r.TransactionID)
	s, err := env.Client.Accounts.Summary(ctx, r.TransactionID)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	env.Result("customer %s, last aggregated %s, %d account(s)", s.CustomerID, s.LastUpdated, len(s.Summary))
	if len(s.Summary) == 0 {
		return fmt.Errorf("the summary has no account")
	}
	for i := range s.Summary {
		e := &s.Summary[i]
		env.Result("account ...%s (routing %s), %s, selected %t, %s", last4(e.AccountNumber), e.RoutingNumber, e.NameOnAccount, e.SelectedAccount, e.Currency)
		if err := table(env, e); err != nil {
			return err
		}
	}

	env.Section("3. A decision from the figures")
	e := &s.Summary[0]
	d30 := e.Aggregation(30)
	income, _ := d30.DepositAmountTotal.Cents()
	spend, _ := d30.WithdrawalAmountTotal.Cents()
	env.Note("30 days: in %s, out %s, net %s; %d overdraft(s), %d NSF",
		d30.DepositAmountTotal, d30.WithdrawalAmountTotal, signed(income-spend), d30.OverdraftCount, d30.NSFCount)
	return nil
}

// table prints the 7/30/90-day aggregations side by side and checks that
// each period is there and the longer periods contain the shorter ones.
func table(env *exampleenv.Env, e *models.AccountEntry) error {
	var aggs [3]*models.Aggregation
	for i, days := range []int{7, 30, 90} {
		if aggs[i] = e.Aggregation(days); aggs[i] == nil {
			return fmt.Errorf("no %d-day aggregation", days)
		}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\t7 days\t30 days\t90 days\t")
	row := func(name string, f func(a *models.Aggregation) string) {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t\n", name, f(aggs[0]), f(aggs[1]), f(aggs[2]))
	}
	row("balance min", func(a *models.Aggregation) string { return string(a.BalanceMin) })
	row("balance avg", func(a *models.Aggregation) string { return string(a.BalanceAvg) })
	row("balance max", func(a *models.Aggregation) string { return string(a.BalanceMax) })
	row("deposits", func(a *models.Aggregation) string { return fmt.Sprint(a.DepositCount) })
	row("deposited", func(a *models.Aggregation) string { return string(a.DepositAmountTotal) })
	row("largest deposit", func(a *models.Aggregation) string { return string(a.DepositAmountMax) })
	row("withdrawals", func(a *models.Aggregation) string { return fmt.Sprint(a.WithdrawalCount) })
	row("withdrawn", func(a *models.Aggregation) string { return string(a.WithdrawalAmountTotal) })
	row("largest withdrawal", func(a *models.Aggregation) string { return string(a.WithdrawalAmountMax) })
	row("overdrafts", func(a *models.Aggregation) string { return fmt.Sprint(a.OverdraftCount) })
	row("overdrawn", func(a *models.Aggregation) string { return string(a.OverdraftAmountTotal) })
	row("NSF", func(a *models.Aggregation) string { return fmt.Sprint(a.NSFCount) })
	row("NSF fees", func(a *models.Aggregation) string { return string(a.NSFFeeAmountTotal) })
	if err := w.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		env.Printf("      %s\n", line)
	}
	for i := 1; i < 3; i++ {
		if aggs[i].DepositCount < aggs[i-1].DepositCount || aggs[i].WithdrawalCount < aggs[i-1].WithdrawalCount {
			return fmt.Errorf("the %d-day figures count less than the %d-day ones", aggs[i].Days, aggs[i-1].Days)
		}
	}
	return nil
}

func last4(n string) string {
	if len(n) <= 4 {
		return n
	}
	return n[len(n)-4:]
}

func signed(cents int64) string {
	if cents < 0 {
		return "-" + string(models.AmountFromCents(-cents))
	}
	return string(models.AmountFromCents(cents))
}
