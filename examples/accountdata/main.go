// Command accountdata shows the account and user data use case: after the
// user authorizes a Retrieval at their bank, the merchant reads the bank
// account (number, routing number, balance, verification) and the personal
// data the bank holds about the user.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("accountdata", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()

	env.Section("1. A Retrieval authorization")
	d := &models.EstablishData{
		Description:       "Link your bank account",
		Currency:          models.USD,
		Amount:            "0.00",
		MerchantReference: exampleenv.Ref("link"),
		PaymentType:       models.PaymentTypeRetrieval,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   events.URL,
	}
	r, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	id := r.TransactionID

	env.Section("2. The bank account")
	env.Call("Accounts.Balance(%s)", id)
	bal, err := env.Client.Accounts.Balance(ctx, id)
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	a := bal.Account
	env.Result("%s at %s (provider %s), %q type %d", a.NameOnAccount, providerName(a), a.ProviderID, a.Name, a.Type)
	env.Result("account number %s, routing number %s, verified %t", mask(a.AccountNumber), a.RoutingNumber, a.Verified)
	env.Result("balance %s %s, available %s", bal.Amount, bal.Currency, bal.Available)
	if v := a.Verification; v != nil && v.HasEnoughFunds != nil {
		env.Result("verification type %d on %s, has enough funds %t", v.Type, v.VerificationDate, *v.HasEnoughFunds)
	}
	if a.AccountNumber == "" || a.RoutingNumber == "" {
		return fmt.Errorf("the balance response has no account or routing number")
	}

	env.Section("3. The user as the bank knows them")
	env.Call("Accounts.User(%s)", id)
	u, err := env.Client.Accounts.User(ctx, id)
	if err != nil {
		return fmt.Errorf("user: %w", err)
	}
	env.Result("names %s", strings.Join(u.Name, "; "))
	for _, ad := range u.Address {
		env.Result("address %s, %s, %s %s, %s", ad.Address1, ad.City, ad.State, ad.Zip, ad.Country)
	}
	env.Result("phones %s; emails %s", strings.Join(u.Phone, ", "), strings.Join(u.Email, ", "))
	if len(u.Name) == 0 {
		return fmt.Errorf("the bank-held user has no name")
	}
	env.Note("personal data: store what you need, never log it in production")
	return nil
}

func providerName(a *models.Account) string {
	if a.PaymentProvider != nil && a.PaymentProvider.Name != "" {
		return a.PaymentProvider.Name
	}
	return "the bank"
}

// mask shows the last four digits of an account number only.
func mask(n string) string {
	if len(n) <= 4 {
		return n
	}
	return strings.Repeat("*", len(n)-4) + n[len(n)-4:]
}
