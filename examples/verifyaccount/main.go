// Command verifyaccount shows account verification without an
// authorization: the merchant verifies a payee's account, by routing and
// account number or by IBAN, before paying it by ACH, and afterwards
// reports how the payment went. A return for an invalid account makes the
// service's later verifications of that account fail.
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

func main() { exampleenv.Main("verifyaccount", run) }

func describe(a *models.Account) string {
	v := a.Verification
	return fmt.Sprintf("account ...%s: verified %t, score %d/10, token %s", a.AccountNumber, v.Verified, *v.Score, a.Token)
}

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client
	routing := bankpaytest.SandboxRoutingNumber

	env.Section("1. Verify an account by routing and account number")
	p := &bankpay.AccountVerifyParams{AccountNumber: "1000000008", RoutingNumber: routing, NameOnAccount: "Amara Okafor"}
	env.Call("Accounts.Verify(account ...0008, routing %s, WithExpand(account.paymentProvider))", routing)
	a, err := c.Accounts.Verify(ctx, p, bankpay.WithExpand("account.paymentProvider"))
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	env.Result("%s", describe(a))
	if a.PaymentProvider != nil {
		env.Result("bank: %s", a.PaymentProvider.Name)
	}

	env.Section("2. Report the ACH outcome")
	sent := time.Now()
	env.Call("Accounts.Feedback(token, Completed)")
	if err := c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{Token: a.Token, ExternalID: exampleenv.Ref("ach"),
		Status: models.StatusCompleted, SubStatus: "R00", Amount: "25.00", Currency: models.USD, SubmissionDate: sent}); err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	env.Result("recorded")
	env.Call("Accounts.Verify(the same account)")
	if a, err = c.Accounts.Verify(ctx, p); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	env.Result("%s (seen, no returns)", describe(a))

	env.Section("3. An IBAN, returned R03 (no account)")
	const iban = "GB82WEST12345698765432"
	env.Call("Accounts.Verify(IBAN GB82...)")
	ia, err := c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: iban})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	env.Result("%s", describe(ia))
	env.Call("Accounts.Feedback(token, Reversed, R03)")
	if err := c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{Token: ia.Token, Status: models.StatusReversed,
		SubStatus: "R03", SubmissionDate: sent, ReturnDate: sent.Add(48 * time.Hour)}); err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	env.Call("Accounts.Verify(IBAN GB82...)")
	if ia, err = c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: iban}); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	env.Result("%s", describe(ia))
	if ia.Verified {
		return fmt.Errorf("the returned account still verifies")
	}

	env.Section("4. Refused before sending")
	env.Call("Accounts.Verify(IBAN with a wrong check digit)")
	_, err = c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: "GB82WEST12345698765433"})
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("a bad IBAN: got %v, want a *bankpay.ValidationError", err)
	}
	env.Result("%v", err)
	return nil
}
