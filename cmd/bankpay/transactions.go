package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// runTransactions runs "transactions get ID", "transactions find
// -original ID -ref REF -type TYPE" (the transaction a money-moving call made: after
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

// findTransaction runs "transactions find -original ID -ref REF -type
// TYPE": the transaction of type TYPE a money-moving command made (exit 0,
// printed), not made (exit 4: -original is of a type TYPE is made from and
// every transaction made from it was read), or unknown (exit 7, also when
// -original cannot be read). -original of a type TYPE is not made from is
// exit 2, nothing concluded. All three are required: without -original a
// deposit's reference would be looked up among the authorizations, and
// without -type a wrong -original would read as "not made".
func findTransaction(ctx context.Context, e *env, args []string) error {
	fs := e.flags("transactions find")
	ref := fs.String("ref", "", "merchantReference the call was made with (required)")
	original := fs.String("original", "", "the transaction the call was made against (required): the authorization for a deposit "+
		"or capture, the capture for a refund, the deposit for a reclaim (an authorization: transactions authorization -ref REF)")
	typ := fs.String("type", "", "the type of transaction the call makes (required): deposit, capture, refund, reclaim "+
		"or preauthorize, by name or number (6, 3, 4, 7, 10)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("want no argument but -original, -ref and -type")
	}
	if *original == "" || *ref == "" || *typ == "" {
		return usagef("want -original ID, -ref REF and -type TYPE: the transaction the call was made against, its reference " +
			"and the type of transaction it makes (an authorization by its reference: transactions authorization -ref REF)")
	}
	t, err := parseFindType(*typ)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	found, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: *original, Type: t, MerchantReference: *ref})
	if errors.Is(err, bankpay.ErrNotFound) {
		return fmt.Errorf("not made: %w (every transaction made from %s was read); make the call again with the same -ref", err, *original)
	}
	if err != nil {
		return err
	}
	return e.printTransaction(found)
}

// findTypes are the types transactions find -type takes, by the name of
// the command that makes each.
var findTypes = map[string]models.TransactionType{
	"deposit": models.TypeDeposit, "capture": models.TypeCapture, "refund": models.TypeRefund,
	"reclaim": models.TypeReclaim, "preauthorize": models.TypePreauthorization,
}

// parseFindType reads -type: a command's name (deposit, …, preauthorize),
// a type's name (Preauthorization) or its number; anything else, or a
// type no money call makes, is exit 2 naming the value.
func parseFindType(s string) (models.TransactionType, error) {
	t, ok := findTypes[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		t, ok = parseCode[models.TransactionType](strings.TrimSpace(s))
	}
	for _, v := range findTypes {
		if ok && v == t {
			return t, nil
		}
	}
	return 0, usagef("-type %q: want deposit, capture, refund, reclaim or preauthorize (or 6, 3, 4, 7, 10)", s)
}

// findTypeName is the -type name of t, as transactions find takes it.
func findTypeName(t models.TransactionType) string {
	for name, v := range findTypes {
		if v == t {
			return name
		}
	}
	return fmt.Sprint(int(t))
}

// errNoAuthorization: transactions authorization read every transaction
// of the payments with -ref and no authorization has it (exit 8).
var errNoAuthorization = errors.New("no authorization has this merchantReference " +
	"(this says nothing of a deposit, capture, refund or reclaim: transactions find -original ID -ref REF -type TYPE looks those up)")

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
	return e.finishMoneyCall(ctx, c, id, *ref, models.TypeRefund, t, err)
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
	return e.finishMoneyCall(ctx, c, id, *ref, models.TypeDeposit, t, err)
}
