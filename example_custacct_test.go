package bankpay_test

import (
	"context"
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func ExampleCustomersService_Lookup() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// Early in the funnel: offer bank payment first to known users.
	known, err := c.Customers.Lookup(ctx, "new.shopper@example.net", "+15125550123")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("known:", known)

	_, err = c.Customers.Lookup(ctx, "not an email", "")
	fmt.Println(err)
	// Output:
	// known: false
	// bankpay: invalid email: must be an email address (local@domain)
}

func ExampleAccountsService_Verify() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	a, err := c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{
		AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber,
	}, bankpay.WithExpand("account.paymentProvider"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("...%s verified %t, score %d, bank %s\n", a.AccountNumber, a.Verified, *a.Verification.Score, a.PaymentProvider.Name)

	// After paying it by ACH, report the outcome.
	err = c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{
		Token: a.Token, Status: models.StatusCompleted, SubStatus: "R00", Amount: "25.00", Currency: models.USD,
	})
	fmt.Println("feedback:", err)
	// Output:
	// ...0010 verified true, score 10, bank Demo Bank
	// feedback: <nil>
}
