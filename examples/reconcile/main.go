// Command reconcile shows what to do when a payout's outcome is unknown:
// the deposit request reached the service, which made the deposit, but its
// response was lost on the way back (the embedded sandbox resets the
// connection after acting: bankpaytest's LoseResponse). The SDK returns a
// *bankpay.NetworkError with Sent true, and does not send the deposit again.
// Instead of paying again, the merchant finds the deposit with
// Transactions.FindByMerchantReference, from the authorization it was made
// against and its merchantReference (the list filter on
// payment.merchantReference is the authorization's reference, as the
// operator documents it: a deposit's own reference is matched by the SDK),
// and lists the authorization's deposits to see that it was paid once.
// Only ErrNotFound means "not made"; ErrIncomplete (the lookup could not
// read the whole list) means "look again", never "pay again".
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("reconcile", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client

	env.Section("1. A Disbursement authorization to pay out against")
	env.Call("Transactions.Establish(Disbursement, sandbox account, amount 0.00)")
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref("rec-auth"),
		PaymentType:       models.PaymentTypeDisbursement,
		ReturnURL:         "https://shop.example/payouts/return", // required by the OpenAPI; no redirect for a Disbursement
		CancelURL:         "https://shop.example/payouts/cancel",
		Account: &models.Account{
			AccountNumber: bankpaytest.AccountVerified, // a sandbox account
			RoutingNumber: bankpaytest.SandboxRoutingNumber,
			Type:          1,
		},
	})
	if err != nil {
		return fmt.Errorf("establish: %w", err)
	}
	env.Result("%s", exampleenv.DescribeEstablished(auth))

	env.Section("2. A deposit whose response is lost")
	p := &bankpay.DepositParams{MerchantReference: exampleenv.Ref("rec-payout"), Amount: "75.00"}
	if env.Embedded() {
		env.Sandbox.LoseResponse(http.MethodPost, "/transactions/"+auth.TransactionID+"/deposit")
		env.Note("the sandbox will make the deposit, then reset the connection before responding")
	} else {
		env.Note("a real service cannot be told to lose a response: this deposit's response arrives")
	}
	env.Call("Transactions.Deposit(%s, amount %s, ref %s)", auth.TransactionID, p.Amount, p.MerchantReference)
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	var ne *bankpay.NetworkError
	switch {
	case bankpay.OutcomeUnknown(err):
		if errors.As(err, &ne) {
			env.Result("*bankpay.NetworkError, Sent %t, after %d attempt(s): %v", ne.Sent, ne.Attempts, err)
		}
		env.Note("bankpay.OutcomeUnknown(err): the deposit may have been made. Do not pay again: find it by its reference.")
	case err != nil:
		return fmt.Errorf("deposit: %w", err)
	case env.Embedded():
		return fmt.Errorf("deposit: the response arrived, want a lost one")
	default:
		env.Result("deposit made")
	}

	return findDeposit(ctx, env, c, auth, p)
}

// findDeposit finds the deposit whose response was lost by its authorization and merchantReference, then checks it was paid once.
func findDeposit(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, auth *models.Transaction, p *bankpay.DepositParams) error {
	env.Section("3. Find the deposit from its authorization and merchantReference")
	env.Call("Transactions.FindByMerchantReference(originalTransactionId %s, type Deposit, ref %s)", auth.TransactionID, p.MerchantReference)
	dep, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
		OriginalTransactionID: auth.TransactionID, // what Deposit was called with
		Type:                  models.TypeDeposit, // what Deposit makes
		MerchantReference:     p.MerchantReference,
	})
	switch {
	case errors.Is(err, bankpay.ErrNotFound):
		// Not made: paying again, with the same merchantReference, is safe.
		return fmt.Errorf("the deposit was not found, but the sandbox made it")
	case errors.Is(err, bankpay.ErrIncomplete):
		// The scan could not prove it saw every transaction: the deposit
		// may exist (OutcomeUnknown still holds). Do not pay again; look it
		// up again later.
		return fmt.Errorf("find: %w", err)
	case err != nil:
		return fmt.Errorf("find: %w", err)
	}
	env.Result("found: %s", exampleenv.DescribeTxn(dep))
	if dep.TransactionType != models.TypeDeposit || dep.OriginalTransactionID != auth.TransactionID || dep.Amount != p.Amount {
		return fmt.Errorf("found %s, want the deposit of %s from %s", exampleenv.DescribeTxn(dep), p.Amount, auth.TransactionID)
	}
	env.Note("the deposit was made: record %s against the order and do not pay again", dep.TransactionID)

	env.Call("Transactions.FindByMerchantReference(originalTransactionId %s, type Deposit, a reference never used)", auth.TransactionID)
	_, err = c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
		OriginalTransactionID: auth.TransactionID, Type: models.TypeDeposit, MerchantReference: exampleenv.Ref("rec-never")})
	if !errors.Is(err, bankpay.ErrNotFound) {
		return fmt.Errorf("find an unused reference: got %v, want ErrNotFound", err)
	}
	env.Result("ErrNotFound: %v (every transaction made from the authorization was seen: such a deposit was not made; pay with that same reference)", err)

	// The wrong original proves nothing: a reclaim is made from the
	// deposit, never from the authorization.
	env.Call("Transactions.FindByMerchantReference(originalTransactionId %s, type Reclaim, ref %s)", auth.TransactionID, p.MerchantReference)
	_, err = c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
		OriginalTransactionID: auth.TransactionID, Type: models.TypeReclaim, MerchantReference: p.MerchantReference})
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) || ve.Field != "originalTransactionId" || errors.Is(err, bankpay.ErrNotFound) {
		return fmt.Errorf("find a reclaim from the authorization: got %v, want a *ValidationError on originalTransactionId", err)
	}
	env.Result("*bankpay.ValidationError: %v (not ErrNotFound: nothing was concluded)", err)

	env.Call("Transactions.List(payment.merchantReference %s)", p.MerchantReference)
	n := 0
	for _, err := range c.Transactions.List(ctx, &bankpay.TransactionListParams{MerchantReference: p.MerchantReference}) {
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		n++
	}
	env.Result("%d transactions: the filter is the payment's (the authorization's) reference, not the deposit's own", n)
	if env.Embedded() && n != 0 {
		return fmt.Errorf("%d transactions by the deposit's reference, want none (the operator's filter)", n)
	}

	return paidOnce(ctx, env, c, auth, p)
}

// paidOnce lists the authorization's deposits (one) and reads its payment.
func paidOnce(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, auth *models.Transaction, p *bankpay.DepositParams) error {
	env.Section("4. The authorization's deposits: paid once")
	env.Call("Transactions.List(originalTransactionId %s, transactionType Deposit)", auth.TransactionID)
	n := 0
	for t, err := range c.Transactions.List(ctx, &bankpay.TransactionListParams{
		OriginalTransactionID: auth.TransactionID,
		TransactionTypes:      []models.TransactionType{models.TypeDeposit},
	}) {
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		n++
		env.Result("%s", exampleenv.DescribeTxn(t))
	}
	if n != 1 {
		return fmt.Errorf("%d deposits, want 1", n)
	}
	env.Result("1 deposit")

	// The authorization's payment is Get's: Establish's answer carries
	// the authorization's id (the OpenAPI's answer has no payment).
	env.Call("Transactions.Get(%s)", auth.TransactionID)
	a, err := c.Transactions.Get(ctx, auth.TransactionID)
	if err != nil {
		return fmt.Errorf("get authorization: %w", err)
	}
	if a.Payment == nil {
		return fmt.Errorf("authorization %s has no payment", a.TransactionID)
	}
	env.Call("Payments.Get(%s)", a.Payment.PaymentID)
	pay, err := c.Payments.Get(ctx, a.Payment.PaymentID)
	if err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	env.Result("payment %s: pending %s, paid %s", pay.PaymentID, pay.Pending, pay.Paid)
	if env.Embedded() && pay.Pending != p.Amount {
		return fmt.Errorf("pending %s, want %s", pay.Pending, p.Amount)
	}
	return nil
}
