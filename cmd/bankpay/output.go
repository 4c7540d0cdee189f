package main

import (
	"encoding/json"
	"fmt"
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
		return e.printJSON(t)
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

func timeString(m models.EpochMillis) string {
	if m == 0 {
		return ""
	}
	return m.Time().Format("2006-01-02T15:04:05.000Z07:00")
}
