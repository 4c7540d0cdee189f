package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// runTransactions runs "transactions get ID", "transactions find
// -original ID -ref REF" (the transaction a money-moving call made: after
// exit code 5, before paying again), "transactions authorization -ref REF"
// and "transactions list".
func runTransactions(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: get, find, authorization or list")
	}
	switch args[0] {
	case "get":
		fs := e.flags("transactions get")
		c, id, err := e.clientFor(fs, args[1:], "one transaction id")
		if err != nil {
			return err
		}
		t, err := c.Transactions.Get(ctx, id)
		if err != nil {
			return err
		}
		return e.printTransaction(t)
	case "find":
		return findTransaction(ctx, e, args[1:])
	case "authorization":
		return findAuthorization(ctx, e, args[1:])
	case "list":
		return listTransactions(ctx, e, args[1:])
	}
	return usagef("unknown subcommand %q: want get, find, authorization or list", args[0])
}

// findTransaction runs "transactions find -original ID -ref REF": the
// transaction a money-moving command made (exit 0, printed), not made
// (exit 4: every transaction made from -original was read), or unknown
// (exit 7). -original is required: without it a deposit's reference would
// be looked up among the authorizations.
func findTransaction(ctx context.Context, e *env, args []string) error {
	fs := e.flags("transactions find")
	ref := fs.String("ref", "", "merchantReference the call was made with (required)")
	original := fs.String("original", "", "the transaction the call was made against (required): the authorization for a deposit "+
		"or capture, the capture for a refund, the deposit for a reclaim (an authorization: transactions authorization -ref REF)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("want no argument but -original and -ref")
	}
	if *original == "" || *ref == "" {
		return usagef("want -original ID and -ref REF: the transaction the call was made against and its reference " +
			"(an authorization by its reference: transactions authorization -ref REF)")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	t, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: *original, MerchantReference: *ref})
	if errors.Is(err, bankpay.ErrNotFound) {
		return fmt.Errorf("not made: %w (every transaction made from %s was read); make the call again with the same -ref", err, *original)
	}
	if err != nil {
		return err
	}
	return e.printTransaction(t)
}

// errNoAuthorization: transactions authorization read every transaction
// of the payments with -ref and no authorization has it (exit 8).
var errNoAuthorization = errors.New("no authorization has this merchantReference " +
	"(this says nothing of a deposit, capture, refund or reclaim: transactions find -original ID -ref REF looks those up)")

// findAuthorization runs "transactions authorization -ref REF": the
// authorization (Transactions.FindAuthorization) with that reference,
// after an establish whose response was lost.
func findAuthorization(ctx context.Context, e *env, args []string) error {
	fs := e.flags("transactions authorization")
	ref := fs.String("ref", "", "merchantReference of the authorization (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || *ref == "" {
		return usagef("want -ref REF and no argument")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	t, ok, err := c.Transactions.FindAuthorization(ctx, *ref)
	switch {
	case err != nil:
		return err
	case !ok:
		return errNoAuthorization
	}
	return e.printTransaction(t)
}

// listTransactions runs "transactions list [filters]": every matching
// transaction, read page by page (-limit caps how many are printed).
func listTransactions(ctx context.Context, e *env, args []string) error {
	fs := e.flags("transactions list")
	ref := fs.String("ref", "", "only the transactions of the payment with this merchantReference (payment.merchantReference: the authorization's)")
	original := fs.String("original", "", "only the transactions of this authorization (originalTransactionId)")
	since := fs.String("since", "", "only those created at or after this time (RFC 3339)")
	status := &codeList[models.TransactionStatus]{what: "status"}
	fs.Var(status, "status", "only these statuses, by name or code, comma-separated (Authorized or 2, Completed or 4, …)")
	typ := &codeList[models.TransactionType]{what: "type"}
	fs.Var(typ, "type", "only these transaction types, by name or code, comma-separated (Deposit or 6, Capture or 3, …)")
	limit := fs.Int("limit", 100, "print at most this many (0: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("want no arguments, only flags")
	}
	p := &bankpay.TransactionListParams{MerchantReference: *ref, OriginalTransactionID: *original}
	if *since != "" {
		t, err := time.Parse(time.RFC3339, *since)
		if err != nil {
			return usagef("-since: want an RFC 3339 time such as 2025-03-06T00:00:00Z")
		}
		p.CreatedAtStart = t
	}
	p.Statuses, p.TransactionTypes = status.codes, typ.codes
	c, err := e.client()
	if err != nil {
		return err
	}
	var rows []*models.Transaction
	for t, err := range c.Transactions.List(ctx, p) {
		if err != nil {
			return err
		}
		rows = append(rows, t)
		if *limit > 0 && len(rows) == *limit {
			break
		}
	}
	if e.json {
		out := make([]*models.Transaction, len(rows))
		for i, t := range rows {
			out[i] = masked(t)
		}
		return e.printJSON(out)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TRANSACTION\tTYPE\tSTATUS\tAMOUNT\tREFERENCE\tORIGINAL\tCREATED")
	for _, t := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\n", t.TransactionID, t.TransactionType, t.Status,
			t.Amount, t.Currency, t.MerchantReference, orDash(t.OriginalTransactionID), timeString(t.CreatedAt))
	}
	return w.Flush()
}

// runRefund runs "refund [-ref REF] [-amount N.NN] TRANSACTION_ID": a
// refund of a completed payment (the rest of it without -amount). It is
// never retried once it may have reached the service.
func runRefund(ctx context.Context, e *env, args []string) error {
	fs := e.flags("refund")
	ref := fs.String("ref", "", "merchantReference of the refund (default: one is made and printed before sending)")
	amount := fs.String("amount", "", "amount N.NN (default: what is left to refund)")
	c, id, err := e.clientFor(fs, args, "one transaction id (the capture or payment to refund)")
	if err != nil {
		return err
	}
	if err := e.moneyRef(ref, "refund"); err != nil {
		return err
	}
	t, err := c.Transactions.Refund(ctx, id, &bankpay.RefundParams{MerchantReference: *ref, Amount: models.Amount(*amount)})
	return e.finishMoneyCall(ctx, c, id, *ref, t, err)
}

// runDeposit runs "deposit -ref REF [-amount N.NN] [-instant] AUTHORIZATION_ID".
// A deposit is never retried once it may have reached the service.
func runDeposit(ctx context.Context, e *env, args []string) error {
	fs := e.flags("deposit")
	ref := fs.String("ref", "", "merchantReference of the deposit (required; unique, so a repeat is refused instead of paying twice)")
	amount := fs.String("amount", "", "amount N.NN (default: the authorization's amount)")
	instant := fs.Bool("instant", false, "ask for an instant payout")
	c, id, err := e.clientFor(fs, args, "one authorization transaction id")
	if err != nil {
		return err
	}
	t, err := c.Transactions.Deposit(ctx, id, &bankpay.DepositParams{
		MerchantReference: *ref, Amount: models.Amount(*amount), InstantPayoutRequest: *instant})
	return e.finishMoneyCall(ctx, c, id, *ref, t, err)
}
