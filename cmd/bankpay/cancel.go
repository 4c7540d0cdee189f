package main

import (
	"context"

	bankpay "github.com/bankpay/bankpay-go"
)

// runCancel runs "cancel [-ref REF] [-message TEXT] TRANSACTION_ID": cancels
// an authorization, or a deposit or capture the network has not picked up
// yet (Transactions.Cancel); once it has, the service refuses and the money
// comes back with refund (a capture) or reclaim (a deposit). It is never
// retried once it may have reached the service.
func runCancel(ctx context.Context, e *env, args []string) error {
	fs := e.flags("cancel")
	ref := fs.String("ref", "", "merchantReference of the cancellation")
	msg := fs.String("message", "", "why, at most 40 characters")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one transaction id (an authorization, or a deposit or capture not yet processed)")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	t, err := c.Transactions.Cancel(ctx, fs.Arg(0), &bankpay.CancelParams{MerchantReference: *ref, Message: *msg})
	if err != nil {
		return err
	}
	return e.printTransaction(t)
}
