// Command payout shows the instant payout use case: the merchant signs
// Deferred establish data for the front-end SDK, the user authorizes at their
// bank and is redirected to the merchant's returnUrl, the merchant verifies
// the redirect's signature, then pays out to the user's account with a deposit
// asking for an instant payout, and follows the deposit's events to
// Completed.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("payout", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()
	c := env.Client

	env.Section("1. Sign the establish data on the server")
	d := &models.EstablishData{
		Description:       "Winnings payout",
		Currency:          models.USD,
		Amount:            "150.00", // the maximum paid out with this authorization
		MerchantReference: exampleenv.Ref("payout-auth"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   events.URL,
		Customer:          &models.Customer{ExternalID: "player-1001", Name: "Jane Doe", Email: "jane@example.com"},
	}
	env.Call("Client.SignEstablishData(Deferred, 150.00 USD, ref %s)", d.MerchantReference)
	if err := c.SignEstablishData(d); err != nil {
		return fmt.Errorf("SignEstablishData: %w", err)
	}
	env.Result("requestSignature %s (the access key never leaves the server)", d.RequestSignature)

	env.Section("2. The user authorizes in the bank-selection interface")
	redirect, err := env.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	if err := env.Flush(ctx); err != nil {
		return err
	}

	env.Section("3. Verify the redirect on the returnUrl handler")
	env.Call("bankpay.VerifyRedirect(returnUrl as requested, creds)")
	r, err := bankpay.VerifyRedirect(redirect, env.Creds)
	if err != nil {
		return fmt.Errorf("VerifyRedirect: %w", err)
	}
	env.Result("signature valid (%s): transaction %s status %s, instant payout available %t, account verified %t",
		r.Algorithm, r.TransactionID, r.Status, r.InstantPayoutAvailable, r.AccountVerified)
	if r.Status != models.StatusAuthorized || r.MerchantReference != d.MerchantReference {
		return fmt.Errorf("redirect: status %s, reference %q: want Authorized for %q", r.Status, r.MerchantReference, d.MerchantReference)
	}
	// A tampered redirect is refused: never trust the parameters before the
	// check.
	if _, err := bankpay.VerifyRedirect(strings.Replace(redirect, "&requestSignature=", "x&requestSignature=", 1), env.Creds); err == nil {
		return fmt.Errorf("a tampered redirect was accepted")
	} else {
		env.Note("the same URL with one byte added is refused: %v", err)
	}

	env.Call("Transactions.Get(%s)", r.TransactionID)
	auth, err := c.Transactions.Get(ctx, r.TransactionID)
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(auth))
	pp := auth.Payment.PaymentProvider
	env.Result("bank %s (%s), instantPayoutAvailable %t", pp.Name, pp.PaymentProviderID, pp.InstantPayoutAvailable)

	return payOut(ctx, env, c, events, auth, pp)
}

// payOut deposits against the verified authorization and follows the deposit's events.
func payOut(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, auth *models.Transaction, pp *models.PaymentProvider) error {
	env.Section("4. Pay out with a deposit")
	p := &bankpay.DepositParams{
		MerchantReference:    exampleenv.Ref("payout"),
		Amount:               models.AmountFromCents(12550),
		InstantPayoutRequest: pp.InstantPayoutAvailable,
		AuthorizationAmount:  auth.Amount, // lets the SDK check the maximum before sending
	}
	env.Call("Transactions.Deposit(%s, amount %s, instantPayoutRequest %t, ref %s)", auth.TransactionID, p.Amount, p.InstantPayoutRequest, p.MerchantReference)
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, p)
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))
	if dep.TransactionType != models.TypeDeposit || dep.Status != models.StatusAuthorized || dep.OriginalTransactionID != auth.TransactionID {
		return fmt.Errorf("deposit: got %s", exampleenv.DescribeTxn(dep))
	}

	env.Call("Transactions.Deposit again with the same merchantReference (a retry after a timeout, say)")
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	if !errors.Is(err, bankpay.ErrDuplicate) {
		return fmt.Errorf("repeated deposit: got %v, want ErrDuplicate", err)
	}
	env.Result("refused, nothing paid twice: %v", err)

	env.Section("5. Follow the deposit's events")
	// An instant payout deposit names its processor (RTP).
	return follow(ctx, env, events, dep.TransactionID, dep.PaymentProcessorType != "")
}

// follow moves the sandbox clock until the deposit completes, printing the
// events, and reads the deposit back.
func follow(ctx context.Context, env *exampleenv.Env, events *exampleenv.Receiver, id string, instant bool) error {
	if instant {
		env.Note("an instant payout settles in real time: Processed and Completed as soon as the network picks it up")
		if err := env.Advance(ctx, time.Minute); err != nil {
			return err
		}
	} else {
		env.Note("the network picks the deposit up, then it completes %d banking days later", bankpaytest.CompletionBankingDays)
		if err := env.Advance(ctx, time.Minute); err != nil {
			return err
		}
		if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays); err != nil {
			return err
		}
	}
	env.Call("Transactions.Get(%s)", id)
	dep, err := env.Client.Transactions.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("get deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))
	if dep.Status != models.StatusCompleted {
		return fmt.Errorf("deposit is %s, want Completed", dep.Status)
	}
	if !events.Has(id, models.EventProcess) || !events.Has(id, models.EventComplete) {
		return fmt.Errorf("events for the deposit: %v, want Process and Complete", exampleenv.EventTypes(events.EventsFor(id)))
	}
	return nil
}
