package models

import (
	"github.com/bankpay/bankpay-go/internal/jsonr"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Amount is a money amount as the service writes it: a decimal string with
// exactly two places, such as "10.00" or "0.00". The empty Amount means
// "not given". Amounts are never floats.
type Amount string

// errInvalidAmount is the error of a string that is not of the form N.NN.
var errInvalidAmount = errors.New("amount must be a non-negative decimal with two places, like 10.00")

// AmountFromCents returns the Amount for a whole number of cents: 1050 gives "10.50".
// A negative number of cents gives a negative amount, which Validate rejects.
func AmountFromCents(cents int64) Amount {
	sign := ""
	u := uint64(cents)
	if cents < 0 {
		sign = "-"
		u = uint64(-(cents + 1)) + 1 // safe for math.MinInt64
	}
	return Amount(fmt.Sprintf("%s%d.%02d", sign, u/100, u%100))
}

// ParseAmount checks s and returns it as an Amount.
func ParseAmount(s string) (Amount, error) {
	if err := validAmount(s); err != nil {
		return "", err
	}
	return Amount(s), nil
}

// validAmount reports whether s is a well formed amount to send: one or more
// digits (no superfluous leading zero), a dot and exactly two digits.
func validAmount(s string) error {
	dot := len(s) - 3
	if dot < 1 || s[dot] != '.' || len(s) > 22 {
		return fmt.Errorf("%w (got %q)", errInvalidAmount, clip(s))
	}
	for i := 0; i < len(s); i++ {
		if i == dot {
			continue
		}
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("%w (got %q)", errInvalidAmount, clip(s))
		}
	}
	if dot > 1 && s[0] == '0' {
		return fmt.Errorf("%w (got %q)", errInvalidAmount, clip(s))
	}
	return nil
}

// Cents returns the amount in cents. Unlike ParseAmount it accepts a leading
// minus sign, since responses carry negative figures (an overdrawn balance).
// It fails for a malformed amount or one that does not fit in an int64.
func (a Amount) Cents() (int64, error) {
	neg := strings.HasPrefix(string(a), "-")
	if neg {
		a = a[1:]
	}
	s := string(a)
	if err := validAmount(s); err != nil {
		return 0, err
	}
	whole, err := strconv.ParseInt(s[:len(s)-3], 10, 64)
	if err != nil || whole > (1<<63-1)/100-1 {
		return 0, fmt.Errorf("%w (out of range)", errInvalidAmount)
	}
	frac, _ := strconv.ParseInt(s[len(s)-2:], 10, 64)
	if neg {
		return -(whole*100 + frac), nil
	}
	return whole*100 + frac, nil
}

// UnmarshalJSON accepts a JSON string or a JSON number (some responses carry
// numbers). A number is read as the decimal it is, never through a float:
// 12.5 gives "12.50" and 1e2 "100.00". One that is not a whole number of
// cents (0.125), or has an exponent beyond ±40, is kept as
// written, so that Validate and Cents refuse it instead of rounding money.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = Amount(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("amount: %w", err)
	}
	*a = amountOfNumber(string(n))
	return nil
}

// amountOfNumber writes a JSON number with exactly two places
// (jsonr.AmountOfNumber, which the SDK's decoder uses too), or returns it as
// written when it has more significant places than two or a huge exponent.
func amountOfNumber(n string) Amount { return Amount(jsonr.AmountOfNumber(n)) }

func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
