package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ProviderStatus is the status of the bank-side (payment provider)
// transaction: paymentProviderTransaction.status in answers and events, and
// payment.paymentProviderTransaction.status in redirects. The operator's
// codes are letters and digits (SW020, AC100, UC01); the spec's example
// writes a number (10). Any value is kept as received; Meaning describes the
// documented ones.
type ProviderStatus string

// Documented provider status codes (a selection; unknown codes are kept).
const (
	ProviderEstablished                 ProviderStatus = "SW010"
	ProviderCanceled                    ProviderStatus = "SW013"
	ProviderAuthorizationReceived       ProviderStatus = "SW020"
	ProviderAuthorizationDenied         ProviderStatus = "SW021"
	ProviderUserCanceledAtBankSelection ProviderStatus = "UC01"
)

// String returns the code as received.
func (s ProviderStatus) String() string { return string(s) }

// UnmarshalJSON accepts a string ("AC100"), a number (10, kept as "10") and
// null (left unchanged).
func (s *ProviderStatus) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = ProviderStatus(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("provider status: want a string or a number, got %s", clip(string(b)))
	}
	// A whole-valued float (10.0) is the number 10.
	if f, err := strconv.ParseFloat(string(n), 64); err == nil && f == float64(int64(f)) {
		*s = ProviderStatus(strconv.FormatInt(int64(f), 10))
		return nil
	}
	*s = ProviderStatus(n)
	return nil
}

// UnmarshalText keeps the text as received (form-encoded events, redirects).
func (s *ProviderStatus) UnmarshalText(b []byte) error {
	*s = ProviderStatus(b)
	return nil
}
