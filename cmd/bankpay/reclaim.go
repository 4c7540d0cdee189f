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
	ref := fs.String("ref", "", "merchantReference of the reclaim")
	amount := fs.String("amount", "", "amount N.NN to take back (required; at most the deposit's balance)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one deposit transaction id")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	t, err := c.Transactions.Reclaim(ctx, fs.Arg(0), &bankpay.ReclaimParams{MerchantReference: *ref, Amount: models.Amount(*amount)})
	return e.finishMoneyCall(ctx, c, fs.Arg(0), *ref, t, err)
}
