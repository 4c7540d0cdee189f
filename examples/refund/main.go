// Command refund shows a payment refunded in two parts: the user authorizes
// a Deferred payment at their bank, the merchant captures it with the split
// token of the Authorize event, the capture completes, then the merchant
// refunds part of it and later the rest, reading the capture's balance and
// the events that follow each step.
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

func main() { exampleenv.Main("refund", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()
	c := env.Client

	env.Section("1. The user authorizes the payment")
	d := &models.EstablishData{
		Description:       "Order 1042",
		Currency:          models.USD,
		Amount:            "75.00",
		MerchantReference: exampleenv.Ref("order-1042"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   events.URL,
	}
	r, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	// The Authorize event carries the split token the capture needs.
	var splitToken string
	for _, ev := range events.EventsFor(r.TransactionID) {
		if ev.EventType == models.EventAuthorize && ev.Transaction != nil {
			splitToken = ev.Transaction.SplitToken
		}
	}
	if splitToken == "" {
		return fmt.Errorf("no split token in the Authorize event of %s", r.TransactionID)
	}
	env.Note("the Authorize event carried splitToken (%d characters)", len(splitToken))

	env.Section("2. Collect the payment")
	env.Call("Transactions.Capture(%s, 75.00, splitToken)", r.TransactionID)
	capture, err := c.Transactions.Capture(ctx, r.TransactionID, &bankpay.CaptureParams{
		MerchantReference: exampleenv.Ref("order-1042-pay"),
		Amount:            "75.00",
		SplitToken:        splitToken,
	})
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(capture))
	env.Call("Transactions.Refund(%s) before the money is collected", capture.TransactionID)
	if _, err := c.Transactions.Refund(ctx, capture.TransactionID, &bankpay.RefundParams{Amount: "10.00"}); !errors.Is(err, bankpay.ErrBadRequest) {
		return fmt.Errorf("refund of an unpaid capture: got %v, want ErrBadRequest", err)
	} else {
		env.Result("refused: %v (cancel a capture not yet processed instead)", err)
	}
	env.Note("the network picks the capture up, then it completes %d banking days later", bankpaytest.CompletionBankingDays)
	if err := env.Advance(ctx, time.Minute); err != nil {
		return err
	}
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays); err != nil {
		return err
	}
	if err := show(ctx, env, capture.TransactionID, models.StatusCompleted); err != nil {
		return err
	}

	return refundPart(ctx, env, c, events, capture)
}

// refundPart refunds part of the capture, then the rest.
func refundPart(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, capture *models.Transaction) error {
	env.Section("3. Refund part of it")
	part := &bankpay.RefundParams{MerchantReference: exampleenv.Ref("order-1042-rf1"), Amount: "30.00"}
	env.Call("Transactions.Refund(%s, %s, ref %s)", capture.TransactionID, part.Amount, part.MerchantReference)
	r1, err := c.Transactions.Refund(ctx, capture.TransactionID, part)
	if err != nil {
		return fmt.Errorf("refund: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(r1))
	if err := env.Flush(ctx); err != nil {
		return err
	}
	if err := show(ctx, env, capture.TransactionID, models.StatusPartiallyRefunded); err != nil {
		return err
	}

	env.Call("Transactions.Refund(%s, 50.00): more than is left", capture.TransactionID)
	_, err = c.Transactions.Refund(ctx, capture.TransactionID, &bankpay.RefundParams{Amount: "50.00"})
	var apiErr *bankpay.APIError
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("refund over the balance: got %v, want an *bankpay.APIError", err)
	}
	env.Result("HTTP %d, code %d: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)

	return refundRest(ctx, env, c, events, capture, r1)
}

// refundRest refunds what the first refund left, then follows both refunds to the customer's account.
func refundRest(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, capture, r1 *models.Transaction) error {
	env.Section("4. Refund the rest")
	env.Call("Transactions.Refund(%s, no amount: the balance)", capture.TransactionID)
	r2, err := c.Transactions.Refund(ctx, capture.TransactionID, nil)
	if err != nil {
		return fmt.Errorf("refund: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(r2))
	if err := env.Flush(ctx); err != nil {
		return err
	}
	if err := show(ctx, env, capture.TransactionID, models.StatusRefunded); err != nil {
		return err
	}

	env.Section("5. The refunds reach the customer's account")
	if err := env.Advance(ctx, time.Minute); err != nil {
		return err
	}
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays); err != nil {
		return err
	}
	for _, id := range []string{capture.TransactionID, r1.TransactionID, r2.TransactionID} {
		env.Result("events for %s: %v", id, exampleenv.EventTypes(events.EventsFor(id)))
	}
	if n := len(events.EventsFor(capture.TransactionID)); n != 4 || !events.Has(capture.TransactionID, models.EventRefund) {
		return fmt.Errorf("capture events %v, want Process, Complete, Refund, Refund", exampleenv.EventTypes(events.EventsFor(capture.TransactionID)))
	}
	return nil
}

// show reads transaction id back and checks its status.
func show(ctx context.Context, env *exampleenv.Env, id string, want models.TransactionStatus) error {
	env.Call("Transactions.Get(%s)", id)
	t, err := env.Client.Transactions.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(t))
	env.Result("paid %s, refunded %s, balance %s", t.Paid, t.Refunded, t.Balance)
	if t.Status != want {
		return fmt.Errorf("transaction %s is %s, want %s", id, t.Status, want)
	}
	return nil
}
