package jsonr

import (
	"strconv"
	"strings"
)

// Int reads s, a JSON number or the text of a numeric string, as a whole
// number: digits with an optional sign ("02", "+5"), or a decimal with no
// fraction (2.0, 2e1, "-1.50e2"), within int64. Surrounding space is
// ignored. ok is false for anything else.
func Int(s string) (int64, bool) {
	// Fast path: up to 18 digits, optionally signed.
	if n := len(s); n > 0 && n <= 18 {
		i, neg := 0, false
		if s[0] == '-' {
			i, neg = 1, true
		}
		if i < n {
			var v int64
			j := i
			for ; j < n && s[j] >= '0' && s[j] <= '9'; j++ {
				v = v*10 + int64(s[j]-'0')
			}
			if j == n {
				if neg {
					v = -v
				}
				return v, true
			}
		}
	}
	w, ok := WholeNumber(s)
	if !ok || w == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(w, 10, 64)
	return v, err == nil
}

// WholeNumber reads s, a JSON number or the text of a numeric string, as a
// whole number in canonical digits ("02" is "2", "2.0" and "2e0" are "2").
// "" (with ok) means an empty or blank string: the zero value.
func WholeNumber(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		// Canonical digits: "02" and "+5" are read by ParseInt but are no
		// JSON number literal.
		return strconv.FormatInt(n, 10), true
	}
	return wholeOfDecimal(s)
}

// wholeOfDecimal reads a JSON-style number (-?digits(.digits)?([eE][+-]?digits)?)
// that has no fraction and fits an int64 ("2.0", "2e1", "-1.50e2"), without
// building big numbers for huge exponents.
func wholeOfDecimal(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	mant, exp := strings.TrimPrefix(s, "-"), 0
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		e, err := strconv.Atoi(mant[i+1:])
		if err != nil || e > 30 || e < -30 {
			return "", false
		}
		mant, exp = mant[:i], e
	}
	whole, frac, dot := strings.Cut(mant, ".")
	if whole == "" || (dot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return "", false
	}
	digits, point := whole+frac, len(whole)+exp
	if point < 0 { // all fractional: whole only when zero
		if strings.Trim(digits, "0") == "" {
			return "0", true
		}
		return "", false
	}
	for len(digits) < point {
		digits += "0"
	}
	if strings.Trim(digits[point:], "0") != "" {
		return "", false // a fraction
	}
	out := strings.TrimLeft(digits[:point], "0")
	if out == "" {
		out = "0"
	}
	if neg && out != "0" {
		out = "-" + out
	}
	if _, err := strconv.ParseInt(out, 10, 64); err != nil {
		return "", false
	}
	return out, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxAmountExponent bounds the exponent of an amount written as a number:
// beyond it the number is kept as written (and fails Amount.Cents), rather
// than expanded into that many digits.
const maxAmountExponent = 40

// AmountOfNumber writes a JSON number as an amount with two decimals
// (10 is "10.00", 1e2 is "100.00"); a number with a fraction of a cent, or
// an exponent beyond ±40, is kept as written.
func AmountOfNumber(n string) string {
	if canonicalAmount(n) {
		return n
	}
	if s, ok := shortAmount(n); ok {
		return s
	}
	neg := strings.HasPrefix(n, "-")
	mant, exp := strings.TrimPrefix(n, "-"), 0
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		e, err := strconv.Atoi(mant[i+1:])
		if err != nil || e > maxAmountExponent || e < -maxAmountExponent {
			return n
		}
		mant, exp = mant[:i], e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	point := len(whole) + exp // the decimal point's position in digits
	if point < 0 {
		digits, point = strings.Repeat("0", -point)+digits, 0
	}
	if point > len(digits) {
		digits += strings.Repeat("0", point-len(digits))
	}
	whole = strings.TrimLeft(digits[:point], "0")
	frac = strings.TrimRight(digits[point:], "0")
	if len(frac) > 2 {
		return n // a fraction of a cent: not rounded
	}
	if whole == "" {
		whole = "0"
	}
	frac += strings.Repeat("0", 2-len(frac))
	if neg && (whole != "0" || frac != "00") {
		whole = "-" + whole
	}
	return whole + "." + frac
}

// canonicalAmount reports whether n is already what AmountOfNumber makes
// of it: digits without a needless leading zero, a point, two digits.
func canonicalAmount(n string) bool {
	d := len(n) - 3
	if d < 1 || n[d] != '.' || !allDigits(n[:d]) || !allDigits(n[d+1:]) {
		return false
	}
	return d == 1 || n[0] != '0'
}

// shortAmount is AmountOfNumber for the common short forms, in one
// allocation: digits without a needless leading zero, then no fraction or
// one or two fraction digits ("125", "125.5", "0.5").
func shortAmount(n string) (string, bool) {
	whole, frac, dot := strings.Cut(n, ".")
	if whole == "" || len(whole) > 18 || !allDigits(whole) || (len(whole) > 1 && whole[0] == '0') ||
		(dot && (frac == "" || len(frac) > 2 || !allDigits(frac))) {
		return "", false
	}
	var buf [24]byte
	b := append(buf[:0], whole...)
	b = append(b, '.')
	b = append(b, frac...)
	for len(frac) < 2 {
		b = append(b, '0')
		frac += "0"
	}
	return string(b), true
}
