// Package paytype names the payment types (models.PaymentType) as
// establish data sends them and the signature covers them: one table for
// models (String, MarshalJSON, the parsing of a name), internal/sign and
// the CLI.
package paytype

import "strings"

// names are the names by code: models.PaymentTypeInstant (1) to
// models.PaymentTypeRetrieval (6).
var names = [...]string{1: "Instant", 2: "Deferred", 3: "Recurring", 4: "Disbursement", 5: "Verification", 6: "Retrieval"}

// Name returns the name of payment type code ("Deferred" for 2), or "" for
// the zero value or an unknown code.
func Name[T ~int](code T) string {
	if code <= 0 || int(code) >= len(names) {
		return ""
	}
	return names[code]
}

// Parse returns the code of a payment type's name, in any case ("deferred"
// is 2), and false when name is no payment type's.
func Parse(name string) (int, bool) {
	for code, n := range names {
		if n != "" && strings.EqualFold(n, name) {
			return code, true
		}
	}
	return 0, false
}
