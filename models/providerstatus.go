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

// Documented provider status codes: SW (checks before the payment is sent
// to the bank network), UC (the user canceled, by page), AC (the ACH / RTP
// life of the payment). Unknown codes are kept as received.
const (
	ProviderEstablished                 ProviderStatus = "SW010"
	ProviderCanceled                    ProviderStatus = "SW013"
	ProviderAuthorizationReceived       ProviderStatus = "SW020"
	ProviderAuthorizationDenied         ProviderStatus = "SW021"
	ProviderMerchantError               ProviderStatus = "SW051"
	ProviderBankError                   ProviderStatus = "SW052"
	ProviderNetworkError                ProviderStatus = "SW053"
	ProviderSuspiciousActivity          ProviderStatus = "SW054"
	ProviderNegativeData                ProviderStatus = "SW055"
	ProviderInvalidAccount              ProviderStatus = "SW056"
	ProviderExpiredSplitToken           ProviderStatus = "SW057"
	ProviderInstantRejectedRisk         ProviderStatus = "SW059"
	ProviderProcessorDown               ProviderStatus = "SW060"
	ProviderUserCanceledAtBankSelection ProviderStatus = "UC01"
	ProviderACPending                   ProviderStatus = "AC100"
	ProviderACDeclined                  ProviderStatus = "AC101"
	ProviderACApproved                  ProviderStatus = "AC102"
	ProviderACError                     ProviderStatus = "AC103"
	ProviderACVoided                    ProviderStatus = "AC104"
	ProviderACProcessed                 ProviderStatus = "AC105"
	ProviderACCollected                 ProviderStatus = "AC106"
	ProviderACAwaitingCapture           ProviderStatus = "AC107"
	ProviderACAwaitingApproval          ProviderStatus = "AC108"
	ProviderACSuspended                 ProviderStatus = "AC109"
	ProviderACInCollection              ProviderStatus = "AC110"
	ProviderACInResearch                ProviderStatus = "AC111"
	ProviderACDisputed                  ProviderStatus = "AC112"
	ProviderACInsufficientFunds         ProviderStatus = "AC113"
	ProviderACInvalidAccount            ProviderStatus = "AC114"
	ProviderACOtherReturn               ProviderStatus = "AC115"
	ProviderACNone                      ProviderStatus = "AC116"
	ProviderACExpired                   ProviderStatus = "AC117"
	ProviderACSettled                   ProviderStatus = "AC118"
)

// providerMeanings holds a short meaning of each documented code; the UC
// codes name the page of the bank flow where the user canceled.
var providerMeanings = map[ProviderStatus]string{
	ProviderEstablished:           "established",
	ProviderCanceled:              "canceled",
	ProviderAuthorizationReceived: "authorization received",
	ProviderAuthorizationDenied:   "authorization denied (for example not enough funds)",
	ProviderMerchantError:         "merchant error (integration or invalid request)",
	ProviderBankError:             "bank error",
	ProviderNetworkError:          "internal network error",
	ProviderSuspiciousActivity:    "suspicious activity",
	ProviderNegativeData:          "negative data on the user or account",
	ProviderInvalidAccount:        "invalid account",
	ProviderExpiredSplitToken:     "split token expired",
	ProviderInstantRejectedRisk:   "instant payment refused for risk",
	ProviderProcessorDown:         "bank or network processor unavailable",
	ProviderACPending:             "payment pending",
	ProviderACDeclined:            "payment declined",
	ProviderACApproved:            "payment approved",
	ProviderACError:               "payment error",
	ProviderACVoided:              "payment voided",
	ProviderACProcessed:           "payment processed",
	ProviderACCollected:           "payment collected",
	ProviderACAwaitingCapture:     "waiting for capture",
	ProviderACAwaitingApproval:    "waiting for approval",
	ProviderACSuspended:           "payment suspended",
	ProviderACInCollection:        "in collection",
	ProviderACInResearch:          "under research",
	ProviderACDisputed:            "payment disputed",
	ProviderACInsufficientFunds:   "not collected: not enough funds",
	ProviderACInvalidAccount:      "not collected: invalid or closed account",
	ProviderACOtherReturn:         "returned for another reason",
	ProviderACNone:                "no ACH status",
	ProviderACExpired:             "payment expired",
	ProviderACSettled:             "payment settled",
	"UC010":                       "user canceled",
	"UC01":                        "user canceled at bank selection",
	"UC02":                        "user canceled at login",
	"UC03":                        "user canceled after a failed login",
	"UC04":                        "user canceled at a challenge question",
	"UC05":                        "user canceled after wrong challenge answers",
	"UC06":                        "user canceled at multi-factor authentication",
	"UC07":                        "user canceled after a failed multi-factor authentication",
	"UC08":                        "user canceled at account selection",
	"UC09":                        "user canceled at an error page",
	"UC10":                        "user canceled at the partial account number page",
	"UC11":                        "user canceled at account location selection",
	"UC12":                        "user canceled: bank not in the list",
	"UC13":                        "user canceled at a login with captcha",
	"UC14":                        "user canceled at captcha validation",
	"UC15":                        "user canceled at manual account entry",
	"UC16":                        "user canceled at manual account confirmation",
	"UC17":                        "user canceled at micro-deposit confirmation",
	"UC18":                        "user canceled at micro-deposit validation",
	"UC19":                        "user canceled at account profile entry",
	"UC20":                        "user canceled at the no-dynamic-balance page",
	"UC21":                        "user canceled: partial account not supported",
	"UC22":                        "user canceled at the security script page",
	"UC23":                        "user canceled: account not supported",
}

// Meaning returns a short description of a documented code, or "" for an
// unknown one.
func (s ProviderStatus) Meaning() string { return providerMeanings[s] }

// UserCanceled reports whether s is one of the UC codes (the user canceled
// the bank flow).
func (s ProviderStatus) UserCanceled() bool {
	return len(s) >= 3 && s[:2] == "UC" && s[2] >= '0' && s[2] <= '9'
}

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
