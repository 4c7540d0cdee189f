// Command quickstart is a tour of the SDK's main flows, runnable on a fresh
// machine with nothing but Go:
//
//	go run ./examples/quickstart
//
// With no BANKPAY_* variables set it runs against an embedded bankpaytest
// sandbox (a real HTTP server on a loopback port, with a fake clock); set
// BANKPAY_ACCESS_ID, BANKPAY_ACCESS_KEY and BANKPAY_MERCHANT_ID (and
// BANKPAY_BASE_URL) to run the server-side steps against a real service.
//
// The tour: tokenize and verify an account; pay out by account and routing
// number (Disbursement establish, deposit, events until Completed); have a
// user authorize at their bank and verify the signed redirect; pay out
// instantly from that authorization; read account and cash-flow data from a
// Retrieval authorization; and handle errors. Each use case has its own,
// longer example next to this one.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("quickstart", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client
	events := env.StartReceiver() // a webhook handler (bankpay.NewWebhookHandler) on a loopback server

	env.Section("Tokenize and verify an account")
	env.Call("Accounts.Tokenize(account ...%s, routing %s, verifyAccount)", bankpaytest.AccountVerified[6:], bankpaytest.SandboxRoutingNumber)
	tk, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{
		AccountNumber: bankpaytest.AccountVerified,
		RoutingNumber: bankpaytest.SandboxRoutingNumber,
		VerifyAccount: true,
	})
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	v := tk.Account.Verification
	if v == nil || v.Score == nil {
		return fmt.Errorf("tokenize: no verification in the response")
	}
	env.Result("token %s, verified %t, score %d/10", tk.Account.Token, v.Verified, *v.Score)

	env.Section("Pay out by account and routing number")
	env.Call("Transactions.Establish(Disbursement, 0.00 USD, account ...%s)", bankpaytest.AccountVerified[6:])
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref("qs-disb-auth"),
		PaymentType:       models.PaymentTypeDisbursement,
		ReturnURL:         "https://shop.example/payouts/return", // required by the OpenAPI; no redirect for a Disbursement
		CancelURL:         "https://shop.example/payouts/cancel",
		NotificationURL:   events.URL,
		Account:           &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber},
	})
	if err != nil {
		return fmt.Errorf("establish: %w", err)
	}
	env.Result("%s", exampleenv.DescribeEstablished(auth))
	if err := env.Flush(ctx); err != nil {
		return err
	}
	ref := exampleenv.Ref("qs-disb")
	env.Call("Transactions.Deposit(%s, 75.00, ref %s)", auth.TransactionID, ref)
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: ref, Amount: "75.00"})
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))
	if env.Embedded() {
		if err := env.Advance(ctx, time.Minute); err != nil {
			return err
		}
		if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays); err != nil {
			return err
		}
	}
	env.Call("Transactions.Get(%s)", dep.TransactionID)
	dep, err = c.Transactions.Get(ctx, dep.TransactionID)
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))
	if env.Embedded() && (dep.Status != models.StatusCompleted || !events.Has(dep.TransactionID, models.EventComplete)) {
		return fmt.Errorf("the deposit is %s with events %v, want Completed", dep.Status, exampleenv.EventTypes(events.EventsFor(dep.TransactionID)))
	}

	return typedErrors(ctx, env, c, events, auth.TransactionID)
}

// typedErrors shows an API error and a validation error, then goes on with the instant payout.
func typedErrors(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, authID string) error {
	env.Section("Errors are typed")
	env.Call("Accounts.Tokenize(account 1003750000) - a sandbox error trigger")
	_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1003750000", RoutingNumber: bankpaytest.SandboxRoutingNumber})
	var apiErr *bankpay.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, bankpay.ErrUnauthorized) {
		return fmt.Errorf("error trigger: got %v, want ErrUnauthorized", err)
	}
	env.Result("errors.Is(err, bankpay.ErrUnauthorized): HTTP %d, code %d", apiErr.StatusCode, apiErr.Code)
	env.Call("Transactions.Deposit(%s) with amount %q", authID, "12.5")
	_, err = c.Transactions.Deposit(ctx, authID, &bankpay.DepositParams{MerchantReference: exampleenv.Ref("qs"), Amount: "12.5"})
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("bad amount: got %v, want a *bankpay.ValidationError", err)
	}
	env.Result("*bankpay.ValidationError on %s, nothing sent: %s", ve.Field, ve.Reason)

	return instantPayout(ctx, env, c, events)
}

// instantPayout has the user authorize at their bank, then pays out instantly when the bank allows it.
func instantPayout(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver) error {
	env.Section("The user authorizes at their bank; verify the redirect; pay out instantly")
	r, err := env.Authorization(ctx, &models.EstablishData{
		Currency:          models.USD,
		Amount:            "100.00",
		MerchantReference: exampleenv.Ref("qs-payout-auth"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   events.URL,
	}, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	ref := exampleenv.Ref("qs-payout")
	env.Call("Transactions.Deposit(%s, 60.00, instantPayoutRequest %t)", r.TransactionID, r.InstantPayoutAvailable)
	payout, err := c.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{
		MerchantReference: ref, Amount: "60.00", InstantPayoutRequest: r.InstantPayoutAvailable,
	})
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(payout))

	return accountData(ctx, env, c, events)
}

// accountData reads the account and its 7/30/90-day cash-flow figures after a Retrieval authorization.
func accountData(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver) error {
	env.Section("Account and cash-flow data after a Retrieval authorization")
	r, err := env.Authorization(ctx, &models.EstablishData{
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref("qs-retrieval"),
		PaymentType:       models.PaymentTypeRetrieval,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   events.URL,
	}, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	env.Call("Accounts.Balance(%s)", r.TransactionID)
	bal, err := c.Accounts.Balance(ctx, r.TransactionID)
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	env.Result("%s, %s: balance %s %s", bal.Account.NameOnAccount, bal.Account.Name, bal.Amount, bal.Currency)
	env.Call("Accounts.Summary(%s)", r.TransactionID)
	sum, err := c.Accounts.Summary(ctx, r.TransactionID)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	if len(sum.Summary) == 0 {
		return fmt.Errorf("summary: no account")
	}
	for _, days := range []int{7, 30, 90} {
		a := sum.Summary[0].Aggregation(days)
		if a == nil {
			return fmt.Errorf("summary: no %d-day aggregation", days)
		}
		env.Result("%2d days: %3d deposits totalling %9s, %3d withdrawals totalling %9s, average balance %s",
			days, a.DepositCount, a.DepositAmountTotal, a.WithdrawalCount, a.WithdrawalAmountTotal, a.BalanceAvg)
	}

	env.Printf("\n%d events received and verified by the webhook handler.\n", len(events.Events()))
	env.Printf("Next: go run ./examples/payout (or accountdata, cashflow, moneytransfer, identity, disbursement, tokenize, vip, webhooks).\n")
	return nil
}
