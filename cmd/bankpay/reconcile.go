package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// alreadyDone is a money-moving call the service refused as a repeat of
// one it made (code 210, ErrDuplicate): exit code 6, after the transaction
// the first call made is printed (when reconciliation found it).
type alreadyDone struct {
	err   error
	shown bool // the transaction found was printed
	why   string
}

func (a *alreadyDone) Error() string {
	if a.shown {
		return fmt.Sprintf("already done: %v; the transaction it made is printed", a.err)
	}
	return fmt.Sprintf("already done: %v; %s", a.err, a.why)
}

func (a *alreadyDone) Unwrap() error { return a.err }

// finishMoneyCall ends a money-moving call (deposit, refund, capture,
// reclaim) made against original with merchantReference ref, which makes a
// transaction of type typ: it prints the
// transaction made, or, when the service refused the call as a repeat
// (ErrDuplicate), finds the transaction the first call made by
// reconciliation (Transactions.FindByMerchantReference) and prints it
// (exit 6, already done). A repeat whose reference no transaction made
// from original carries (the whole list read) is a refusal: exit 1. A
// lookup cut short is exit 7. An outcome unknown (bankpay.OutcomeUnknown)
// is exit 5, with the lookup that finds the call. Any other error is
// returned as it is.
func (e *env) finishMoneyCall(ctx context.Context, c *bankpay.Client, original, ref string, typ models.TransactionType, t *models.Transaction, err error) error {
	if err == nil {
		return e.printTransaction(t)
	}
	if bankpay.OutcomeUnknown(err) {
		return &unknownOutcome{err: err, lookup: fmt.Sprintf("bankpay transactions find -original %s -ref %s -type %s",
			shellWord(original), shellWord(ref), findTypeName(typ))}
	}
	if !errors.Is(err, bankpay.ErrDuplicate) {
		return err
	}
	found, ferr := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: original, Type: typ, MerchantReference: ref})
	switch {
	case ferr == nil:
		if perr := e.printTransaction(found); perr != nil {
			return perr
		}
		return &alreadyDone{err: err, shown: true}
	case errors.Is(ferr, bankpay.ErrNotFound):
		return fmt.Errorf("%w; no %s made from %s carries merchantReference %q: the reference was used for another one, and this call moved nothing", err, findTypeName(typ), original, ref)
	case errors.Is(ferr, bankpay.ErrAmbiguous):
		return &alreadyDone{err: err, why: "more than one transaction carries the reference: list them with bankpay transactions list -original " + original}
	}
	return fmt.Errorf("the service refused a repeat (%v), and looking up the transaction made before failed: %w", err, ferr)
}

// unknownOutcome is a money-moving call whose outcome is unknown
// (bankpay.OutcomeUnknown): exit code 5, with the command that finds what
// it made.
type unknownOutcome struct {
	err    error
	lookup string // the command that finds what the call made
	// then says what to do with the lookup's answer; empty: make the call
	// again only if the lookup exits 4 (transactions find).
	then string
}

func (u *unknownOutcome) Error() string { return u.err.Error() }

func (u *unknownOutcome) Unwrap() error { return u.err }

// moneyRef makes sure a money-moving command has a merchantReference, so
// that its outcome can always be looked up: *ref when -ref gave one,
// otherwise a new one, set in *ref and printed on standard error before
// anything is sent.
func (e *env) moneyRef(ref *string, command string) error {
	if *ref != "" {
		return nil
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("making a merchantReference: %w", err)
	}
	*ref = "cli-" + hex.EncodeToString(b)
	fmt.Fprintf(e.stderr, "bankpay %s: no -ref given: its merchantReference is %s (look the call up by it)\n", command, *ref)
	return nil
}

// shellWord is s as one word of a POSIX shell command line, to paste: as
// it is when it holds only characters no shell reads, otherwise in single
// quotes (a reference may hold spaces, ';', '$' or quotes).
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
