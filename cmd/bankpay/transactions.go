package main

import (
	"context"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// runTransactions runs "transactions get ID".
func runTransactions(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: get")
	}
	switch args[0] {
	case "get":
		fs := e.flags("transactions get")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usagef("want one transaction id")
		}
		c, err := e.client()
		if err != nil {
			return err
		}
		t, err := c.Transactions.Get(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		return e.printTransaction(t)
	}
	return usagef("unknown subcommand %q: want get", args[0])
}

// runDeposit runs "deposit -ref REF [-amount N.NN] [-instant] AUTHORIZATION_ID".
// A deposit is never retried once it may have reached the service.
func runDeposit(ctx context.Context, e *env, args []string) error {
	fs := e.flags("deposit")
	ref := fs.String("ref", "", "merchantReference of the deposit (required; unique, so a repeat is refused instead of paying twice)")
	amount := fs.String("amount", "", "amount N.NN (default: the authorization's amount)")
	instant := fs.Bool("instant", false, "ask for an instant payout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one authorization transaction id")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	t, err := c.Transactions.Deposit(ctx, fs.Arg(0), &bankpay.DepositParams{
		MerchantReference: *ref, Amount: models.Amount(*amount), InstantPayoutRequest: *instant})
	if err != nil {
		return err
	}
	return e.printTransaction(t)
}
