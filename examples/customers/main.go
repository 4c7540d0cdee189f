// Command customers shows the customer records of a merchant: create one
// before any payment, read it back, list and filter the records, ask
// whether a shopper already pays with the service (to offer bank payment
// first), and, after the shopper authorizes, compare the record with what
// the bank holds and correct it.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"fmt"
	"strings"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("customers", run) }

// resultNames are the customer-verification results.
var resultNames = map[int]string{-1: "inconclusive", 0: "no match", 1: "partial match", 2: "match"}

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client
	ext := exampleenv.Ref("shopper")
	email := strings.ToLower(ext) + "@example.net"

	env.Section("1. Create a customer")
	env.Call("Customers.Create(externalId %s, name, email, phone, address)", ext)
	cust, err := c.Customers.Create(ctx, &bankpay.CustomerParams{
		ExternalID: ext, Name: "Zed Quill", Email: email, Phone: "+15125550177",
		Address: &models.Address{Address1: "9 Elm St", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	env.Result("customer %s created at %s", cust.CustomerID, cust.CreatedAt)

	env.Call("Customers.Get(%s)", cust.CustomerID)
	got, err := c.Customers.Get(ctx, cust.CustomerID)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	env.Result("%s, %s, externalId %s", got.Name, got.Email, got.ExternalID)

	env.Call("Customers.List(externalId %s)", ext)
	list, err := c.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: ext})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	env.Result("%d customer(s) with that externalId", len(list))
	if len(list) != 1 || list[0].CustomerID != cust.CustomerID {
		return fmt.Errorf("list: got %d customers, want the one created", len(list))
	}

	env.Section("2. Is the shopper a known user of the service?")
	env.Call("Customers.Lookup(%s)", email)
	known, err := c.Customers.Lookup(ctx, email, "")
	if err != nil {
		return fmt.Errorf("lookup: %w", err)
	}
	env.Result("known: %t (a customer record is not a payment)", known)

	env.Section("3. The shopper authorizes; compare the record with the bank's data")
	r, err := env.Authorization(ctx, &models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: exampleenv.Ref("customers"),
		PaymentType: models.PaymentTypeRetrieval, Description: "Link your bank account",
		ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		Customer: &models.Customer{ExternalID: ext},
	}, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	env.Call("Customers.Lookup(%s)", email)
	if known, err = c.Customers.Lookup(ctx, email, ""); err != nil {
		return fmt.Errorf("lookup: %w", err)
	}
	env.Result("known: %t", known)
	if !known {
		return fmt.Errorf("lookup after the authorization: not known")
	}

	if err := showMatches(ctx, env, r.TransactionID); err != nil {
		return err
	}
	env.Call("Accounts.User(%s, WithExpand(customer.segmentedName))", r.TransactionID)
	u, err := c.Accounts.User(ctx, r.TransactionID, bankpay.WithExpand("customer.segmentedName"))
	if err != nil {
		return fmt.Errorf("accounts.User: %w", err)
	}
	if u.SegmentedName == nil || len(u.Name) == 0 || len(u.Email) == 0 {
		return fmt.Errorf("accounts.User: no segmented name, name or email")
	}
	env.Result("the bank holds %s (first name %s, last name %s)", u.Name[0], u.SegmentedName.FirstName, u.SegmentedName.LastName)

	env.Call("Customers.Update(%s, the bank's name and email)", cust.CustomerID)
	if _, err := c.Customers.Update(ctx, cust.CustomerID, &bankpay.CustomerParams{Name: u.Name[0], Email: u.Email[0]}); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	env.Result("updated")
	return showMatches(ctx, env, r.TransactionID)
}

func showMatches(ctx context.Context, env *exampleenv.Env, transactionID string) error {
	env.Call("Identity.CustomerVerification(%s)", transactionID)
	matches, err := env.Client.Identity.CustomerVerification(ctx, transactionID)
	if err != nil {
		return fmt.Errorf("customerVerification: %w", err)
	}
	for _, m := range matches {
		env.Result("%s: %s", m.Attribute, resultNames[m.Result])
	}
	return nil
}
