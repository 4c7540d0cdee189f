package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ProviderStatus is the status of the bank-side (payment provider)
// transaction: paymentProviderTransaction.status in responses and events, and
// payment.paymentProviderTransaction.status in redirects. The operator's
// codes are letters and digits (SW020, AC100, UC01); the spec's example
// writes a number (10). Any value is kept as received; Meaning describes the
// documented ones.
type ProviderStatus string

// Provider status codes a merchant acts on. Meaning describes every
// documented code (SW: checks before the bank network, UC: the user
// canceled, AC: the ACH / RTP life of the payment). Unknown codes are kept
// as received.
const (
	ProviderAuthorizationDenied ProviderStatus = "SW021"
	ProviderInvalidAccount      ProviderStatus = "SW056"
	ProviderExpiredSplitToken   ProviderStatus = "SW057"
	ProviderInstantRejectedRisk ProviderStatus = "SW059"
	ProviderProcessorDown       ProviderStatus = "SW060"
	ProviderACDisputed          ProviderStatus = "AC112"
	ProviderACInsufficientFunds ProviderStatus = "AC113"
	ProviderACInvalidAccount    ProviderStatus = "AC114"
)

// providerMeanings holds a short meaning of each documented code; the UC
// codes name the page of the bank flow where the user canceled.
var providerMeanings = map[ProviderStatus]string{
	"SW010":                     "established",
	"SW013":                     "canceled",
	"SW020":                     "authorization received",
	ProviderAuthorizationDenied: "authorization denied (for example not enough funds)",
	"SW051":                     "merchant error (integration or invalid request)",
	"SW052":                     "bank error",
	"SW053":                     "internal network error",
	"SW054":                     "suspicious activity",
	"SW055":                     "negative data on the user or account",
	ProviderInvalidAccount:      "invalid account",
	ProviderExpiredSplitToken:   "split token expired",
	ProviderInstantRejectedRisk: "instant payment refused for risk",
	ProviderProcessorDown:       "bank or network processor unavailable",
	"AC100":                     "payment pending",
	"AC101":                     "payment declined",
	"AC102":                     "payment approved",
	"AC103":                     "payment error",
	"AC104":                     "payment voided",
	"AC105":                     "payment processed",
	"AC106":                     "payment collected",
	"AC107":                     "waiting for capture",
	"AC108":                     "waiting for approval",
	"AC109":                     "payment suspended",
	"AC110":                     "in collection",
	"AC111":                     "under research",
	ProviderACDisputed:          "payment disputed",
	ProviderACInsufficientFunds: "not collected: not enough funds",
	ProviderACInvalidAccount:    "not collected: invalid or closed account",
	"AC115":                     "returned for another reason",
	"AC116":                     "no ACH status",
	"AC117":                     "payment expired",
	"AC118":                     "payment settled",
	"UC010":                     "user canceled",
	"UC01":                      "user canceled at bank selection",
	"UC02":                      "user canceled at login",
	"UC03":                      "user canceled after a failed login",
	"UC04":                      "user canceled at a challenge question",
	"UC05":                      "user canceled after wrong challenge responses",
	"UC06":                      "user canceled at multi-factor authentication",
	"UC07":                      "user canceled after a failed multi-factor authentication",
	"UC08":                      "user canceled at account selection",
	"UC09":                      "user canceled at an error page",
	"UC10":                      "user canceled at the partial account number page",
	"UC11":                      "user canceled at account location selection",
	"UC12":                      "user canceled: bank not in the list",
	"UC13":                      "user canceled at a login with captcha",
	"UC14":                      "user canceled at captcha validation",
	"UC15":                      "user canceled at manual account entry",
	"UC16":                      "user canceled at manual account confirmation",
	"UC17":                      "user canceled at micro-deposit confirmation",
	"UC18":                      "user canceled at micro-deposit validation",
	"UC19":                      "user canceled at account profile entry",
	"UC20":                      "user canceled at the no-dynamic-balance page",
	"UC21":                      "user canceled: partial account not supported",
	"UC22":                      "user canceled at the security script page",
	"UC23":                      "user canceled: account not supported",
}

// Meaning returns a short description of a documented code, or "" for an
// unknown one.
func (s ProviderStatus) Meaning() string { return providerMeanings[s] }

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
