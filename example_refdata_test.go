package bankpay_test

import (
	"context"
	"errors"
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func ExamplePaymentProvidersService_List() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// Pages are read as the loop asks for more; break stops reading.
	for pp, err := range c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Countries: []string{"CA"}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(pp.PaymentProviderID, pp.Name, pp.SubType)
	}
	// Output:
	// 200010001 Maple Demo Bank 1000
	// 200010002 Northern Credit Union 2000
}

func ExampleDisputesService_Create() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// A collected capture the user's bank returned: the Dispute event
	// names it (transactionId) and the amount returned (amountReturned).
	d := models.EstablishData{Currency: models.USD, Amount: "50.00", MerchantReference: "order-77",
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
		Customer: &models.Customer{Name: "Maria Garcia", Address: &models.Address{Address1: "200 Oak Ave", City: "Austin",
			State: "TX", Zip: "73301", Country: "US"}}}
	_ = c.SignEstablishData(&d)
	_, auth, _ := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	capture, err := c.Transactions.Capture(ctx, auth.TransactionID, &bankpay.CaptureParams{MerchantReference: "order-77-cap",
		Amount: "50.00", Beneficiary: &models.Beneficiary{Name: "Luis Garcia", Address: &models.Address{Country: "MX"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.AdvanceBankingDays(4)
	_ = srv.Dispute(capture.TransactionID)

	// A key of the merchant's own makes a repeated request the same one:
	// it recovers once, and gets the same transaction.
	p := &bankpay.DisputeParams{TransactionID: capture.TransactionID, Amount: "50.00", IdempotencyKey: "recover-order-77"}
	rec, err := c.Disputes.Create(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := c.Disputes.Create(ctx, p)
	fmt.Println(models.TypeRepresentment == rec.TransactionType, rec.Amount, again.TransactionID == rec.TransactionID)

	// The same key with another body is refused.
	p.Amount = "10.00"
	_, err = c.Disputes.Create(ctx, p)
	var apiErr *bankpay.APIError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// true 50.00 true
	// true 422
}
