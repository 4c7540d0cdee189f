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
	ref := fs.String("ref", "", "merchantReference of the cancellation (default: one is made and printed before sending)")
	msg := fs.String("message", "", "why, at most 40 characters")
	c, id, err := e.clientFor(fs, args, "one transaction id (an authorization, or a deposit or capture not yet processed)")
	if err != nil {
		return err
	}
	if err := e.moneyRef(ref, "cancel"); err != nil {
		return err
	}
	t, err := c.Transactions.Cancel(ctx, id, &bankpay.CancelParams{MerchantReference: *ref, Message: *msg})
	if bankpay.OutcomeUnknown(err) {
		// A cancellation makes no transaction of its own: the canceled
		// one's status says whether it took effect (get exits 0 either
		// way).
		return &unknownOutcome{err: err, lookup: "bankpay transactions get " + id,
			then: "if its status is Canceled (7), the cancel was made: do not cancel again; any other status: it was not made: " +
				"cancel again while the transaction can still be canceled (not yet processed)"}
	}
	if err != nil {
		return err
	}
	return e.printTransaction(t)
}
