package bankpay

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/bankpay/bankpay-go/models"
)

// Validators shared by the service methods. Each returns a *ValidationError
// naming the wire field (dotted for nested fields); none repeats the value,
// which may be personal data.

// required rejects an empty string.
func required(field, v string) error {
	if v == "" {
		return invalid(field, "is required")
	}
	return nil
}

// absent handles a value that may be left out: it reports whether the value
// is empty, with an "is required" error when must is set.
func absent(field string, empty, must bool) (bool, error) {
	if empty && must {
		return true, invalid(field, "is required")
	}
	return empty, nil
}

// checkMerchantReference checks a merchantReference the SDK sends (establish
// data, deposit, capture); an empty one is an error only when must is set.
//
// The service signs an event notification over its URL-decoded body, so a
// merchantReference that decodes to "&" or "=" could be re-encoded by an
// attacker into extra fields that still verify: the signed
// "merchantReference=ord-1%26errorCode%3D330" is the same message as
// "merchantReference=ord-1&errorCode=330". "%" and "+" are refused because
// they change meaning under that decoding, and control characters because
// they have no place in a reference (and break logs and headers).
func checkMerchantReference(field, ref string, must bool) error {
	if empty, err := absent(field, ref == "", must); empty {
		return err
	}
	if strings.ContainsFunc(ref, isUnsafeReferenceRune) {
		return invalid(field, "must not contain '&', '=', '%', '+' or control characters")
	}
	return nil
}

func isUnsafeReferenceRune(r rune) bool {
	switch r {
	case '&', '=', '%', '+':
		return true
	}
	return unicode.IsControl(r)
}

// zeroAmount is the amount of an authorization without a fixed amount.
const zeroAmount models.Amount = "0.00"

// checkAmount checks an amount; an empty one is an error only when must is set.
func checkAmount(field string, a models.Amount, must bool) error {
	if empty, err := absent(field, a == "", must); empty {
		return err
	}
	if _, err := models.ParseAmount(string(a)); err != nil {
		return &ValidationError{Field: field, Reason: "must be a decimal with two places, like 10.00"}
	}
	return nil
}

// checkPositiveAmount is checkAmount for an amount that moves money: it must
// also be above zero (the service refuses a deposit or capture of 0.00,
// which ParseAmount accepts; ParseAmount already refuses a minus sign).
func checkPositiveAmount(field string, a models.Amount, must bool) error {
	if err := checkAmount(field, a, must); err != nil {
		return err
	}
	if a == zeroAmount {
		return invalid(field, "must be greater than 0.00")
	}
	return nil
}

// checkCurrency accepts USD and CAD; an empty currency is an error only when must is set.
func checkCurrency(field string, c models.Currency, must bool) error {
	if empty, err := absent(field, c == "", must); empty {
		return err
	}
	if c != models.USD && c != models.CAD {
		return invalid(field, "must be USD or CAD")
	}
	return nil
}

// checkVIP accepts nil (unset), 0 (not VIP) and positive tiers.
func checkVIP(field string, vip *int) error {
	if vip != nil && *vip < 0 {
		return invalid(field, "must be 0 (not VIP) or a positive tier")
	}
	return nil
}

// checkURL accepts an absolute http(s) URL; an empty one is an error only when must is set.
func checkURL(field, raw string, must bool) error {
	_, err := parseHTTPURL(field, raw, must)
	return err
}

// parseHTTPURL is checkURL returning the parsed URL (nil when empty).
func parseHTTPURL(field, raw string, must bool) (*url.URL, error) {
	if empty, err := absent(field, raw == "", must); empty {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, invalid(field, "must be an absolute http(s) URL")
	}
	return u, nil
}

// checkRedirectURL is checkURL for a returnUrl or cancelUrl: its own query
// must be readable and must not repeat a parameter or use a name that
// VerifyRedirect refuses or fills from the service's parameters (see
// Redirect), or every redirect to it would be refused.
func checkRedirectURL(field, raw string, must bool) error {
	u, err := parseHTTPURL(field, raw, must)
	if err != nil || u == nil || u.RawQuery == "" {
		return err
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return invalid(field, "must have a well-formed query")
	}
	for k, vs := range q {
		if len(vs) > 1 || reservedRedirectKey(k) {
			return invalid(field, "must not repeat a query parameter nor use a name of the redirect, establish data or notifications (see Redirect)")
		}
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
