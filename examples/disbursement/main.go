// Command disbursement shows the disbursement use case with account and
// routing numbers: the merchant establishes a Disbursement authorization
// directly with the user's account number and routing number (no user
// interface), pays out with a deposit, and follows the deposit through
// Authorized -> Processed -> Completed, 3 banking days after it was processed
// (weekends do not count), with the sandbox's clock standing in for time.
// A second deposit shows Denied, and the first one's reversal shows Reversed.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
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

// start is a Thursday: the deposit completes on the Tuesday after.
var start = time.Date(2025, time.January, 9, 15, 0, 0, 0, time.UTC)

func main() {
	exampleenv.Main("disbursement", run, exampleenv.WithSandboxOptions(bankpaytest.WithStartTime(start)))
}

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()
	c := env.Client

	env.Section("1. Establish a Disbursement authorization by account and routing number")
	p := &models.EstablishData{
		Description:       "Refund of overpayment",
		Currency:          models.USD,
		Amount:            "0.00", // no fixed amount: each deposit passes its own
		MerchantReference: exampleenv.Ref("disb-auth"),
		PaymentType:       models.PaymentTypeDisbursement,
		// Required by the OpenAPI for this establish, though no user is
		// redirected for a Disbursement.
		ReturnURL:       "https://shop.example/payouts/return",
		CancelURL:       "https://shop.example/payouts/cancel",
		NotificationURL: events.URL,
		Account: &models.Account{
			AccountNumber: bankpaytest.AccountVerified, // a sandbox account
			RoutingNumber: bankpaytest.SandboxRoutingNumber,
			Type:          1,
		},
		Customer: &models.Customer{ExternalID: "cust-314", Name: "Alex Brown"},
	}
	env.Call("Transactions.Establish(Disbursement, account ...%s, routing %s, amount %s)",
		p.Account.AccountNumber[len(p.Account.AccountNumber)-4:], p.Account.RoutingNumber, p.Amount)
	auth, err := c.Transactions.Establish(ctx, p)
	if err != nil {
		return fmt.Errorf("establish: %w", err)
	}
	env.Result("%s", exampleenv.DescribeEstablished(auth))
	env.Note("the establish response is abbreviated (status 0, message Authorized); Get shows the authorization's status")
	if err := expect(ctx, env, auth.TransactionID, models.StatusAuthorized); err != nil {
		return err
	}
	env.Note("keep the transactionId %s for the deposits", auth.TransactionID)
	if err := env.Flush(ctx); err != nil {
		return err
	}

	env.Section("2. Deposit")
	dp := &bankpay.DepositParams{MerchantReference: exampleenv.Ref("disb"), AuthorizationAmount: auth.Amount}
	env.Call("Transactions.Deposit(%s) without an amount on a 0.00 authorization", auth.TransactionID)
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, dp)
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("deposit without amount: got %v, want a *bankpay.ValidationError", err)
	}
	env.Result("refused by the SDK, nothing sent: %v", err)

	dp.Amount = "42.50"
	env.Call("Transactions.Deposit(%s, amount %s, ref %s)", auth.TransactionID, dp.Amount, dp.MerchantReference)
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, dp)
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))

	return followDeposit(ctx, env, c, events, auth, dep)
}

// followDeposit follows the deposit through Authorized, Processed and Completed, then plays the network's other outcomes.
func followDeposit(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, auth, dep *models.Transaction) error {
	env.Section("3. Authorized -> Processed -> Completed")
	if err := env.Advance(ctx, time.Hour); err != nil {
		return err
	}
	if err := expect(ctx, env, dep.TransactionID, models.StatusProcessed); err != nil {
		return err
	}
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays-1); err != nil {
		return err
	}
	env.Note("the weekend does not count: still Processed after 2 banking days")
	if err := expect(ctx, env, dep.TransactionID, models.StatusProcessed); err != nil {
		return err
	}
	if err := env.AdvanceBankingDays(ctx, 1); err != nil {
		return err
	}
	if err := expect(ctx, env, dep.TransactionID, models.StatusCompleted); err != nil {
		return err
	}

	// The rest uses the sandbox's test hooks: on the real service the
	// network decides.
	if env.Sandbox == nil {
		return nil
	}
	return deniedAndReversed(ctx, env, c, events, auth, dep)
}

// deniedAndReversed plays the network denying and reversing deposits with the sandbox's test hooks.
func deniedAndReversed(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, auth, dep *models.Transaction) error {
	env.Section("4. Denied and Reversed (sandbox test hooks)")
	dp2 := &bankpay.DepositParams{MerchantReference: exampleenv.Ref("disb"), Amount: "10.00"}
	env.Call("Transactions.Deposit(%s, amount %s, ref %s)", auth.TransactionID, dp2.Amount, dp2.MerchantReference)
	dep2, err := c.Transactions.Deposit(ctx, auth.TransactionID, dp2)
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep2))
	env.Printf("[network] denies deposit %s (bankpaytest Server.Deny)\n", dep2.TransactionID)
	if err := env.Sandbox.Deny(dep2.TransactionID); err != nil {
		return err
	}
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays+1); err != nil {
		return err
	}
	if err := expect(ctx, env, dep2.TransactionID, models.StatusDenied); err != nil {
		return err
	}
	env.Printf("[network] the funds of %s cannot be deposited (bankpaytest Server.Reverse)\n", dep.TransactionID)
	if err := env.Sandbox.Reverse(dep.TransactionID); err != nil {
		return err
	}
	if err := env.Flush(ctx); err != nil {
		return err
	}
	if err := expect(ctx, env, dep.TransactionID, models.StatusReversed); err != nil {
		return err
	}
	for _, want := range []models.EventType{models.EventProcess, models.EventComplete, models.EventReverse} {
		if !events.Has(dep.TransactionID, want) {
			return fmt.Errorf("no %s event for %s: got %v", want, dep.TransactionID, exampleenv.EventTypes(events.EventsFor(dep.TransactionID)))
		}
	}
	if !events.Has(dep2.TransactionID, models.EventDeny) {
		return fmt.Errorf("no Deny event for %s", dep2.TransactionID)
	}
	return nil
}

// expect reads transaction id and checks its status.
func expect(ctx context.Context, env *exampleenv.Env, id string, want models.TransactionStatus) error {
	env.Call("Transactions.Get(%s)", id)
	t, err := env.Client.Transactions.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(t))
	if t.Status != want {
		return fmt.Errorf("transaction %s is %s, want %s", id, t.Status, want)
	}
	return nil
}
