package main

import (
	"context"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// runCapture runs "capture -ref REF -amount N.NN -split-token TOKEN
// AUTHORIZATION_ID": charges the customer of a Deferred or Instant
// authorization (Transactions.Capture), with the split token of its
// Authorize event, which an account using guaranteed payments needs. A
// capture is never retried once it may have reached the service.
func runCapture(ctx context.Context, e *env, args []string) error {
	fs := e.flags("capture")
	ref := fs.String("ref", "", "merchantReference of the capture (required; unique, so a repeat is refused instead of charging twice)")
	amount := fs.String("amount", "", "amount N.NN to collect (required)")
	token := fs.String("split-token", "", "splitToken of the authorization's Authorize event (guaranteed payments fail without it)")
	c, id, err := e.clientFor(fs, args, "one authorization transaction id")
	if err != nil {
		return err
	}
	if *token == "" {
		// Without it the SDK takes the capture for a money transfer, which
		// needs a beneficiary the command has no flags for.
		return usagef("-split-token is required: the splitToken of the authorization's Authorize event " +
			"(a money-transfer capture, with a beneficiary, is made with the SDK's Transactions.Capture)")
	}
	t, err := c.Transactions.Capture(ctx, id, &bankpay.CaptureParams{
		MerchantReference: *ref, Amount: models.Amount(*amount), SplitToken: *token})
	return e.finishMoneyCall(ctx, c, id, *ref, models.TypeCapture, t, err)
}
