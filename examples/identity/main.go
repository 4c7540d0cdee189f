// Command identity shows identity verification (a beta of the service): an
// authorization created with kycType 1 gives access to the user's verified
// identity. The merchant waits for the identity events, reads the identity
// user and the verification detail, and then reports its own outcome:
// Registered (status 4 / 559) when it registered the user, Void (13 / 558)
// when it did not. Reads before the data-retrieved event fail with
// ErrIdentityNotReady.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox, whose demo
// bank plays an eligible user and a user who is not eligible.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("identity", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()

	env.Section("1. An eligible user: verify, read, register")
	id, err := authorize(ctx, env, events.URL, "kyc-ok", bankpaytest.OutcomeEligible)
	if err != nil {
		return err
	}
	env.Call("Identity.User(%s) before the identity data arrived", id)
	_, err = env.Client.Identity.User(ctx, id)
	if !errors.Is(err, bankpay.ErrIdentityNotReady) {
		return fmt.Errorf("identity read before the data: got %v, want ErrIdentityNotReady", err)
	}
	env.Result("errors.Is(err, bankpay.ErrIdentityNotReady): %v; wait for IdentityVerificationDataRetrieved", err)

	if err := waitVerified(ctx, env, events, id); err != nil {
		return err
	}
	u, err := readIdentity(ctx, env, id)
	if err != nil {
		return err
	}
	if !u.Eligible {
		return fmt.Errorf("the demo password's user is not eligible")
	}
	env.Call("Identity.Register(%s, %q)", id, "account opened")
	if err := env.Client.Identity.Register(ctx, id, "account opened"); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	env.Result("feedback Registered (status 4, subStatus 559) recorded: the transaction stays valid for the other APIs")

	env.Section("2. A user who is not eligible: read the detail, void")
	id, err = authorize(ctx, env, events.URL, "kyc-no", bankpaytest.OutcomeNotEligible)
	if err != nil {
		return err
	}
	if err := waitVerified(ctx, env, events, id); err != nil {
		return err
	}
	u, err = readIdentity(ctx, env, id)
	if err != nil {
		return err
	}
	if u.Eligible {
		return fmt.Errorf("the not-eligible outcome gave an eligible user")
	}
	env.Call("Identity.Void(%s, %q)", id, "identity could not be verified")
	if err := env.Client.Identity.Void(ctx, id, "identity could not be verified"); err != nil {
		return fmt.Errorf("void: %w", err)
	}
	env.Result("feedback Void (status 13, subStatus 558) recorded: the user is not treated as active")
	if env.Sandbox != nil {
		env.Note("the sandbox recorded %d feedback for %s", len(env.Sandbox.Feedback(id)), id)
	}
	return nil
}

// authorize creates an authorization with kycType 1 and has the user take
// outcome at the sandbox demo bank.
func authorize(ctx context.Context, env *exampleenv.Env, notify, ref string, outcome bankpaytest.Outcome) (string, error) {
	d := &models.EstablishData{
		Description:       "Open an account",
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref(ref),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://bank.example/onboarding/return",
		CancelURL:         "https://bank.example/onboarding/cancel",
		NotificationURL:   notify,
		KYCType:           models.KYCTypeIdentity,
	}
	r, err := env.Authorization(ctx, d, outcome)
	if err != nil {
		return "", err
	}
	return r.TransactionID, nil
}

// waitVerified lets time pass until CustomerIdentityVerified arrived: one
// IdentityVerificationDataRetrieved per provider comes first.
func waitVerified(ctx context.Context, env *exampleenv.Env, events *exampleenv.Receiver, id string) error {
	env.Note("waiting for the identity events")
	for i := 0; i < 10 && !events.Has(id, models.EventCustomerIdentityVerified); i++ {
		if err := env.Advance(ctx, bankpaytest.IdentityStep); err != nil {
			return err
		}
	}
	if !events.Has(id, models.EventCustomerIdentityVerified) {
		return fmt.Errorf("no CustomerIdentityVerified event for %s; got %v", id, exampleenv.EventTypes(events.EventsFor(id)))
	}
	return nil
}

func readIdentity(ctx context.Context, env *exampleenv.Env, id string) (*models.IdentityUser, error) {
	env.Call("Identity.User(%s)", id)
	u, err := env.Client.Identity.User(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("Identity.User: %w", err)
	}
	env.Result("%s, born %s, eligible %t", u.Name, u.DateOfBirth, u.Eligible)
	for _, a := range u.Address {
		env.Result("address %s, %s, %s %s, %s", a.Address1, a.City, a.State, a.Zip, a.Country)
	}
	env.Result("phones %s; emails %s; tax id %s", strings.Join(u.Phone, ", "), strings.Join(u.Email, ", "), maskTaxID(u.TaxID))

	env.Call("Identity.Detail(%s)", id)
	det, err := env.Client.Identity.Detail(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("Identity.Detail: %w", err)
	}
	for _, v := range det.Verification {
		env.Result("verification %q: result %d", v.VerificationName, v.Result)
	}
	for _, a := range det.Attribute {
		env.Result("attribute %-7s from %-4s verified %-5t by %d check(s)", a.Name, a.Source, a.Verified, len(a.Verification))
	}
	return u, nil
}

func maskTaxID(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return "***-**-" + s[len(s)-4:]
}
