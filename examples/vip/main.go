// Command vip shows VIP customer tiers, for merchants the operator configured
// for them: a tier is set for a new customer by establish data carrying
// customer.name and customer.vip, and changed or removed (tier 0) with the
// customer update calls, by the merchant's externalId or the service's
// customerId. A merchant not configured for VIP tiers is refused.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox (whose
// default merchant is configured for VIP tiers, and a second one is not).
package main

import (
	"context"
	"errors"
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

// plain is a second sandbox merchant, not configured for VIP tiers.
var plain = bankpaytest.Merchant{Credentials: bankpay.Credentials{
	AccessID: "PLAINMERCHANT0000001", AccessKey: bankpay.NewSecret("plain-merchant-key"), MerchantID: "1999999999",
}, NoVIP: true}

func main() {
	exampleenv.Main("vip", run, exampleenv.WithSandboxOptions(bankpaytest.WithMerchant(plain)))
}

func tier(n int) *int { return &n }

func show(c *models.Customer) string {
	v := "unset"
	if c.VIP != nil {
		v = fmt.Sprint(*c.VIP)
		if *c.VIP == 0 {
			v = "0 (not VIP)"
		}
	}
	return fmt.Sprintf("customer %s (externalId %s, %s): vip %s", c.CustomerID, c.ExternalID, c.Name, v)
}

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client
	ext := exampleenv.Ref("vip-player")

	env.Section("1. Set a tier by the merchant's externalId")
	env.Call("Customers.UpdateByExternalID(%s, name, vip 1)", ext)
	cust, err := c.Customers.UpdateByExternalID(ctx, ext, &bankpay.CustomerParams{
		Name: "Olivia Nguyen", Email: "olivia@example.com", VIP: tier(1),
	})
	if err != nil {
		return fmt.Errorf("UpdateByExternalID: %w", err)
	}
	env.Result("%s", show(cust))
	if cust.VIP == nil || *cust.VIP != 1 || cust.CustomerID == "" {
		return fmt.Errorf("after the update: %s, want vip 1 and a customerId", show(cust))
	}

	env.Section("2. Change it by the service's customerId")
	env.Call("Customers.Update(%s, vip 3)", cust.CustomerID)
	cust, err = c.Customers.Update(ctx, cust.CustomerID, &bankpay.CustomerParams{Name: "Olivia Nguyen", VIP: tier(3)})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	env.Result("%s", show(cust))

	env.Section("3. Remove VIP with tier 0")
	env.Call("Customers.Update(%s, vip 0) - sent as \"vip\":0", cust.CustomerID)
	cust, err = c.Customers.Update(ctx, cust.CustomerID, &bankpay.CustomerParams{Name: "Olivia Nguyen", VIP: tier(0)})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	env.Result("%s", show(cust))
	if cust.VIP == nil || *cust.VIP != 0 {
		return fmt.Errorf("after removing VIP: %s, want vip 0", show(cust))
	}

	env.Call("Customers.Update(%s, vip -1)", cust.CustomerID)
	_, err = c.Customers.Update(ctx, cust.CustomerID, &bankpay.CustomerParams{VIP: tier(-1)})
	if ve := (*bankpay.ValidationError)(nil); !errors.As(err, &ve) {
		return fmt.Errorf("negative tier: got %v, want a validation error", err)
	}
	env.Result("refused by the SDK, nothing sent: %v", err)

	if env.Sandbox == nil {
		env.Note("the next steps need the embedded sandbox (a user authorizing, a second merchant)")
		return nil
	}

	return tierFromEstablish(ctx, env, c, ext)
}

// tierFromEstablish sets a new customer's tier from establish data, then tries a merchant not configured for VIP tiers.
func tierFromEstablish(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, ext string) error {
	env.Section("4. A tier for a new customer from establish data")
	newExt := exampleenv.Ref("vip-new")
	d := &models.EstablishData{
		Description:       "Deposit",
		Currency:          models.USD,
		Amount:            "50.00",
		MerchantReference: exampleenv.Ref("vip-auth"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://casino.example/bankpay/return",
		CancelURL:         "https://casino.example/bankpay/cancel",
		Customer:          &models.Customer{ExternalID: newExt, Name: "Diego Kowalski", VIP: tier(2)},
	}
	if _, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize); err != nil {
		return err
	}
	// The service has no call that reads a customer record: the sandbox's
	// test hook shows it.
	rec, ok := env.Sandbox.Customer(newExt)
	if !ok {
		return fmt.Errorf("no customer %s after the authorization", newExt)
	}
	cust := &rec
	env.Printf("[sandbox] customer record: %s\n", show(cust))
	if cust.VIP == nil || *cust.VIP != 2 {
		return fmt.Errorf("customer from establish data: %s, want vip 2", show(cust))
	}

	env.Section("5. A merchant not configured for VIP tiers")
	other, err := bankpay.NewClient(plain.Credentials,
		bankpay.WithBaseURL(env.Sandbox.URL))
	if err != nil {
		return fmt.Errorf("NewClient: %w", err)
	}
	env.Call("Customers.UpdateByExternalID(%s, vip 1) as merchant %s", ext, plain.MerchantID)
	_, err = other.Customers.UpdateByExternalID(ctx, ext, &bankpay.CustomerParams{Name: "Olivia Nguyen", VIP: tier(1)})
	var apiErr *bankpay.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, bankpay.ErrBadRequest) {
		return fmt.Errorf("VIP for a merchant not configured for it: got %v, want ErrBadRequest", err)
	}
	env.Result("HTTP %d, code %d: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	return nil
}
