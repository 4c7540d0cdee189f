package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/bankpay/bankpay-go/models"
)

// printJSON writes v as indented JSON.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printRows writes label/value rows as an aligned table.
func (e *env) printRows(rows [][2]string) error {
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		if r[1] == "" {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", r[0], r[1])
	}
	return w.Flush()
}

// printTransaction prints t as JSON or as a table of its main fields.
func (e *env) printTransaction(t *models.Transaction) error {
	if e.json {
		return e.printJSON(masked(t))
	}
	rows := [][2]string{
		{"transactionId", t.TransactionID},
		{"type", fmt.Sprintf("%s (%d)", t.TransactionType, int(t.TransactionType))},
		{"status", fmt.Sprintf("%s (%d)", t.Status, int(t.Status))},
		{"statusMessage", t.StatusMessage},
		{"amount", string(t.Amount) + " " + string(t.Currency)},
		{"merchantReference", t.MerchantReference},
		{"originalTransactionId", t.OriginalTransactionID},
		{"createdAt", timeString(t.CreatedAt)},
		{"updatedAt", timeString(t.UpdatedAt)},
	}
	if p := t.PaymentProviderTransaction; p != nil {
		rows = append(rows, [2]string{"providerStatus", string(p.Status) + " " + p.Status.Meaning()})
	}
	return e.printRows(rows)
}

// masked returns a copy of t whose full account number, tax id and date of
// birth are masked (the last 4 digits of the account number kept): the
// CLI's output lands in terminals, scripts' logs and tickets.
func masked(t *models.Transaction) *models.Transaction {
	cp := *t
	if p := t.Payment; p != nil {
		pc := *p
		if a := p.Account; a != nil {
			ac := *a
			ac.AccountNumber = lastFour(a.AccountNumber)
			pc.Account = &ac
		}
		if c := p.Customer; c != nil {
			cc := *c
			cc.TaxID, cc.DateOfBirth = redact(c.TaxID), redact(c.DateOfBirth)
			pc.Customer = &cc
		}
		cp.Payment = &pc
	}
	return &cp
}

// lastFour masks all but the last 4 characters of an account number.
func lastFour(s string) string {
	if len(s) <= 4 {
		return s
	}
	return strings.Repeat("*", len(s)-4) + s[len(s)-4:]
}

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

func timeString(m models.EpochMillis) string {
	if m == 0 {
		return ""
	}
	return m.Time().Format("2006-01-02T15:04:05.000Z07:00")
}

// printJSONLine writes v as one line of JSON (a stream of them: listen).
func (e *env) printJSONLine(v any) error {
	return json.NewEncoder(e.stdout).Encode(v)
}
