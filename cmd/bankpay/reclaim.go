package main

import (
	"context"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// runReclaim runs "reclaim [-ref REF] -amount N.NN DEPOSIT_ID": takes back
// all or part of a completed deposit (Transactions.Reclaim; a deposit is
// not refunded). It is never retried once it may have reached the service.
func runReclaim(ctx context.Context, e *env, args []string) error {
	fs := e.flags("reclaim")
	ref := fs.String("ref", "", "merchantReference of the reclaim (default: one is made and printed before sending)")
	amount := fs.String("amount", "", "amount N.NN to take back (required; at most the deposit's balance)")
	c, id, err := e.clientFor(fs, args, "one deposit transaction id")
	if err != nil {
		return err
	}
	if err := e.moneyRef(ref, "reclaim"); err != nil {
		return err
	}
	t, err := c.Transactions.Reclaim(ctx, id, &bankpay.ReclaimParams{MerchantReference: *ref, Amount: models.Amount(*amount)})
	return e.finishMoneyCall(ctx, c, id, *ref, models.TypeReclaim, t, err)
}
