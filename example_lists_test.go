package bankpay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// exampleAuthorization establishes a Disbursement authorization in srv.
func exampleAuthorization(c *bankpay.Client, ref string) (*models.Transaction, error) {
	return c.Transactions.Establish(context.Background(), &models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: ref,
		PaymentType: models.PaymentTypeDisbursement,
		ReturnURL:   "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		Account: &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
}

func ExampleTransactionsService_List() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-10")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, amount := range []models.Amount{"25.00", "10.00", "40.00"} {
		_, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{
			MerchantReference: fmt.Sprintf("payout-%d", i+1), Amount: amount})
		if err != nil {
			fmt.Println(err)
			return
		}
	}

	// The authorization's deposits, largest first, read a page of 2 at a
	// time as the loop goes.
	for t, err := range c.Transactions.List(ctx, &bankpay.TransactionListParams{
		OriginalTransactionID: auth.TransactionID,
		TransactionTypes:      []models.TransactionType{models.TypeDeposit},
		OrderBy:               "amount", SortOrder: "desc",
		Count: 2,
	}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.MerchantReference, t.Amount, t.Status)
	}
	// Output:
	// payout-3 40.00 Authorized
	// payout-1 25.00 Authorized
	// payout-2 10.00 Authorized
}

func ExampleTransactionsService_FindByMerchantReference() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-11")
	if err != nil {
		fmt.Println(err)
		return
	}

	// The sandbox makes the deposit, then loses its response.
	srv.LoseResponse(http.MethodPost, "/transactions/"+auth.TransactionID+"/deposit")
	p := &bankpay.DepositParams{MerchantReference: "payout-77", Amount: "25.00"}
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	var ne *bankpay.NetworkError
	if errors.As(err, &ne) && ne.Sent {
		// The outcome is unknown: find the deposit instead of paying again.
		dep, err := c.Transactions.FindByMerchantReference(ctx, p.MerchantReference)
		switch {
		case errors.Is(err, bankpay.ErrNotFound):
			fmt.Println("not made: pay again with the same merchantReference")
		case err != nil:
			fmt.Println("cannot tell yet:", err)
		default:
			fmt.Println("made:", dep.TransactionType, dep.Amount, dep.MerchantReference)
		}
	}
	// Output:
	// made: Deposit 25.00 payout-77
}

func ExamplePaymentsService_Get() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-12")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-9", Amount: "30.00"}); err != nil {
		fmt.Println(err)
		return
	}
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays + 1) // the deposit completes

	pay, err := c.Payments.Get(ctx, auth.Payment.PaymentID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pay.MerchantReference, "paid", pay.Paid, "pending", pay.Pending, "balance", pay.Balance)
	// Output:
	// payouts-week-12 paid 30.00 pending 0.00 balance 30.00
}
