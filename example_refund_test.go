package bankpay_test

import (
	"context"
	"fmt"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// A payment collected from a Pay authorization is refunded in two parts.
func ExampleTransactionsService_Refund() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// The user authorizes at their bank (played by the sandbox); the
	// Authorize event carries the split token the capture needs.
	d := models.EstablishData{Currency: models.USD, Amount: "60.00", MerchantReference: "order-77",
		PaymentType: models.PaymentTypeDeferred,
		ReturnURL:   "https://shop.example/return", CancelURL: "https://shop.example/cancel"}
	if err := c.SignEstablishData(&d); err != nil {
		fmt.Println(err)
		return
	}
	_, auth, err := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		fmt.Println(err)
		return
	}
	token := srv.EventsFor(auth.TransactionID)[0].Raw.Get("splitToken") // ev.Transaction.SplitToken in a webhook handler

	pay, err := c.Transactions.Capture(ctx, auth.TransactionID, &bankpay.CaptureParams{
		MerchantReference: "order-77-pay", Amount: "60.00", SplitToken: token})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.Advance(time.Minute) // the capture completes 3 banking days after it is processed
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)

	r, err := c.Transactions.Refund(ctx, pay.TransactionID, &bankpay.RefundParams{MerchantReference: "order-77-rf1", Amount: "20.00"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.TransactionType, r.Amount, "of", r.OriginalTransactionID == pay.TransactionID)
	got, _ := c.Transactions.Get(ctx, pay.TransactionID)
	fmt.Println(got.Status, "balance", got.Balance)

	// No amount: the rest.
	if _, err := c.Transactions.Refund(ctx, pay.TransactionID, nil); err != nil {
		fmt.Println(err)
		return
	}
	got, _ = c.Transactions.Get(ctx, pay.TransactionID)
	fmt.Println(got.Status, "refunded", got.Refunded)
	// Output:
	// Refund 20.00 of true
	// PartiallyRefunded balance 40.00
	// Refunded refunded 60.00
}
