// Package decode reads every REST response and notification body of the
// SDK in one pass over its bytes (internal/jsonr), with decoders generated
// from the models types (zz_generated.go, go generate). It reads both
// shapes the service sends, wrapped ({"transaction":{…}}) and bare, and
// each field as the SDK reads every response:
//
//   - a code (status, types, payment type) or an integer takes a JSON
//     number, a numeric string ("02", "+5") or a whole double (1.0), a
//     code also its name ("Authorized"); an empty string is the zero value;
//   - a string takes a number or a boolean too, kept as written (a
//     required one, an identity, no boolean, and blanks are empty);
//   - a boolean takes "true" or "false" too;
//   - an amount takes a string as is or a number with two decimals; a
//     required one (a transaction's) must be a decimal amount, "10",
//     "10.5" or "10.00" (decimal), or its object is unreadable;
//   - null (and "" for a number or a boolean) leaves a field as it is.
//
// A value no reading fits is never a silent zero: the field is left unset
// and reported (Unset: its JSON path and the kinds, never the value), at
// the nearest level that can say unset: a field tagged wire:"zero" (its
// zero is a value) or wire:"required" (the identity of its object) makes
// its whole object unreadable instead, and its holder is left unset. A
// field tagged wire:"required" must also be present, not null and not
// empty. Unknown fields are ignored; names match as encoding/json matches
// them (exactly first, then without case).
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/jsonr"
)

//go:generate go run ./gen/cmd

// FieldError is a response field the result cannot do without: of a kind
// its Go type cannot hold, or (Got "") missing. The message names the JSON
// path and the kinds, never the value.
type FieldError struct {
	Path string
	// Want is what the Go field holds ("an integer", "a string"…).
	Want string
	// Got is the JSON kind received ("an object", "a string"…), or "" for
	// a value missing, null or empty.
	Got string
	// Required reports a field of the object's identity (wire:"required").
	Required bool
}

// Error names the field and the kinds, not the value.
func (e *FieldError) Error() string {
	path := e.Path
	if path == "" {
		path = "(response)"
	}
	if e.Got == "" {
		return fmt.Sprintf("field %s: missing (want %s)", path, e.Want)
	}
	return fmt.Sprintf("field %s: want %s, got %s", path, e.Want, e.Got)
}

// Unset is a response field left unset: a value was received that its Go
// type cannot hold. Path is the JSON path of the field left unset, Cause
// the value that could not be held.
type Unset struct {
	Path  string
	Cause *FieldError
}

// String names the field and why, never the value.
func (u Unset) String() string {
	if u.Cause.Path == u.Path {
		return u.Cause.Error()
	}
	return fmt.Sprintf("field %s left unset: %s", u.Path, u.Cause.Error())
}

// res is what a field reader made of a value.
type res uint8

const (
	ok    res = iota // held
	empty            // null or "": nothing (the field keeps its zero)
	bad              // of a kind the field cannot hold: skipped, d.cause says why
)

// seg is one step of the JSON path of the value being read: a member name,
// or an array index (name "").
type seg struct {
	name string
	idx  int
}

// Decoder is the state of one decode: the reader, the path to the value
// being read, what was left unset, and why the last value could not be
// held. Nothing outlives a call.
type Decoder struct {
	r     jsonr.Reader
	path  []seg
	unset []Unset
	cause FieldError
	seen  uint64 // the required fields seen of the object being read (bits)
	text  string // the scalar text of the last value not held (wire:"text=")
	texty bool

	// ints and bools are storage a caller lends for the *int and *bool
	// fields read (newInt, newBool), each slot handed out once; they are
	// dropped with the decoder (put).
	ints  []int
	bools []bool
}

// newInt is a pointer to x, in a slot of d.ints while one is left.
func (d *Decoder) newInt(x int) *int {
	var p *int
	if len(d.ints) > 0 {
		p, d.ints = &d.ints[0], d.ints[1:]
	} else {
		p = new(int) // not &x: x would be on the heap on every call
	}
	*p = x
	return p
}

// newBool is a pointer to x, in a slot of d.bools while one is left.
func (d *Decoder) newBool(x bool) *bool {
	var p *bool
	if len(d.bools) > 0 {
		p, d.bools = &d.bools[0], d.bools[1:]
	} else {
		p = new(bool)
	}
	*p = x
	return p
}

func (d *Decoder) reset(data []byte) {
	d.r.Reset(data)
	d.path, d.unset, d.text, d.texty, d.seen = d.path[:0], nil, "", false, 0
	d.ints, d.bools = nil, nil
}

func (d *Decoder) push(name string) { d.path = append(d.path, seg{name: name}) }
func (d *Decoder) pushIdx(i int)    { d.path = append(d.path, seg{idx: i}) }
func (d *Decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// pathTo is the JSON path of member name ("" for the current value).
func (d *Decoder) pathTo(name string) string {
	var b strings.Builder
	for _, s := range d.path {
		if s.name == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	if name != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
	}
	return b.String()
}

// bad skips a value of kind k that the field cannot hold (want), keeping
// its text when it is a scalar, and says so in d.cause (path set later).
func (d *Decoder) bad(k jsonr.Kind, want string) res {
	d.texty = false
	switch k {
	case jsonr.String, jsonr.Number, jsonr.Bool:
		d.text, _, d.texty = d.r.Scalar()
	default:
		d.r.Skip()
	}
	d.cause = FieldError{Want: want, Got: k.Name()}
	return bad
}

// badText is bad for a scalar already read as text.
func (d *Decoder) badText(k jsonr.Kind, text, want string) res {
	got := k.Name()
	if k == jsonr.String {
		got = "a non-numeric string"
		if want == "a boolean" {
			got = "a string"
		}
	}
	d.text, d.texty = text, true
	d.cause = FieldError{Want: want, Got: got}
	return bad
}

// leftUnset records that member name was left unset for d.cause.
func (d *Decoder) leftUnset(name string) {
	p := d.pathTo(name)
	c := d.cause
	if c.Path == "" {
		c.Path = p
	}
	d.unset = append(d.unset, Unset{Path: p, Cause: &c})
}

// fail makes d.cause the reason the object holding member name cannot be
// read, and returns false.
func (d *Decoder) fail(name string, required bool) bool {
	if d.cause.Path == "" {
		d.cause.Path = d.pathTo(name)
	}
	d.cause.Required = d.cause.Required || required
	return false
}

// missing fails the object for its required member name, absent, null or
// empty.
func (d *Decoder) missing(name, want string) bool {
	d.cause = FieldError{Path: d.pathTo(name), Want: want, Required: true}
	return false
}

// notDecimal fails the object for its required amount name, present but
// no decimal amount (the last value read: a repeated member wins, as in
// encoding/json).
func (d *Decoder) notDecimal(name string) bool {
	d.cause = FieldError{Path: d.pathTo(name), Want: "a decimal amount", Got: "a value that is none", Required: true}
	return false
}

// decimal reports whether an amount read is a decimal amount, as
// models.Amount holds one: an optional minus, digits, and optionally a
// point and digits ("10", "10.5", "10.00", "-1.25", "0.125"). Anything
// else is none: words ("abc", "NaN"), blanks, "1,00", "0x10", and a JSON
// number that cannot be written out in cents (1e400, kept as written).
func decimal(s string) bool {
	whole, frac, point := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	return whole != "" && allDigits(whole) && (!point || frac != "" && allDigits(frac))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// notKind skips a value that is not of the kind wanted (an object, an
// array) and says so in d.cause, at the current path; it returns false.
func (d *Decoder) notKind(k jsonr.Kind, want string) bool {
	d.bad(k, want)
	d.cause.Path = d.pathTo("")
	return false
}

// str reads a string field: a string, or a number or boolean as written.
func (d *Decoder) str() (string, res) {
	switch k := d.r.Peek(); k {
	case jsonr.String:
		s, _ := d.r.String()
		return s, ok // "" too: a string field holds it (and says nothing)
	case jsonr.Number, jsonr.Bool:
		s, _, _ := d.r.Scalar()
		return s, ok
	case jsonr.Null:
		d.r.Null()
		return "", empty
	default:
		return "", d.bad(k, "a string")
	}
}

// id reads a required string field, an identity: a string or a number
// as written; a boolean is no identity (bad).
func (d *Decoder) id() (string, res) {
	if k := d.r.Peek(); k == jsonr.Bool {
		return "", d.bad(k, "a string")
	}
	return d.str()
}

// integer reads an integer field: a number, a numeric string or a whole
// double. words, when not nil, reads a code's name, and a number outside 0
// to math.MaxInt32 is bad: the negative codes are the SDK's own
// (models.StatusUnknown, models.TypeUnknown), never the wire's, and a
// larger one would wrap in a 32-bit int (4294967298 reading as 2).
func (d *Decoder) integer(want string, words []word) (int64, res) {
	switch k := d.r.Peek(); k {
	case jsonr.Number:
		s, _ := d.r.Number()
		if n, ok2 := jsonr.Int(s); ok2 && (words == nil || codeRange(n)) {
			return n, ok
		}
		return 0, d.badText(k, s, want)
	case jsonr.String:
		s, _ := d.r.String()
		if strings.TrimSpace(s) == "" {
			return 0, empty
		}
		if n, ok2 := jsonr.Int(s); ok2 && (words == nil || codeRange(n)) {
			return n, ok
		}
		for _, w := range words {
			if strings.EqualFold(w.name, strings.TrimSpace(s)) {
				return w.code, ok
			}
		}
		return 0, d.badText(k, s, want)
	case jsonr.Null:
		d.r.Null()
		return 0, empty
	default:
		return 0, d.bad(k, want)
	}
}

// codeRange reports whether n can be a code of the wire: 0 to
// math.MaxInt32, which every platform's int holds.
func codeRange(n int64) bool { return n >= 0 && n <= math.MaxInt32 }

// foldIndex is the index of the name in names (all ASCII) that k matches
// without case, as encoding/json matches a member's name when no name is
// exactly k, or -1. An ASCII k matches only names of its length; any other
// k may fold to ASCII ("\u212a" is K) and is compared with each.
func foldIndex(k []byte, names []string) int {
	ascii := true
	for _, c := range k {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for i, n := range names {
		if (!ascii || len(n) == len(k)) && bytes.EqualFold(k, []byte(n)) {
			return i
		}
	}
	return -1
}

// word is the name of a code.
type word struct {
	name string
	code int64
}

// boolean reads a boolean field: true, false, "true" or "false".
func (d *Decoder) boolean() (bool, res) {
	switch k := d.r.Peek(); k {
	case jsonr.Bool:
		b, _ := d.r.Bool()
		return b, ok
	case jsonr.String:
		s, _ := d.r.String()
		if s == "" {
			return false, empty
		}
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b, ok
		}
		return false, d.badText(k, s, "a boolean")
	case jsonr.Null:
		d.r.Null()
		return false, empty
	default:
		return false, d.bad(k, "a boolean")
	}
}

// amount reads an amount: a string as is, a number with two decimals.
func (d *Decoder) amount() (string, res) {
	switch k := d.r.Peek(); k {
	case jsonr.String:
		s, _ := d.r.String()
		return s, ok // "" too: a string field holds it (and says nothing)
	case jsonr.Number:
		s, _ := d.r.Number()
		return jsonr.AmountOfNumber(s), ok
	case jsonr.Null:
		d.r.Null()
		return "", empty
	default:
		return "", d.bad(k, "a valid Amount")
	}
}

// providerStatus reads a provider status: a string as is, a whole number
// as its digits, any other number as written.
func (d *Decoder) providerStatus() (string, res) {
	switch k := d.r.Peek(); k {
	case jsonr.String:
		s, _ := d.r.String()
		return s, ok // "" too: a string field holds it (and says nothing)
	case jsonr.Number:
		s, _ := d.r.Number()
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10), ok
		}
		return s, ok
	case jsonr.Null:
		d.r.Null()
		return "", empty
	default:
		return "", d.bad(k, "a valid ProviderStatus")
	}
}

// strings reads an array of strings (each as str); wire:"anytext" takes
// items of any shape (objects and arrays as their compact JSON) and a
// value that is not an array as one item.
func (d *Decoder) strs(dst *[]string, anyText bool) res {
	k := d.r.Peek()
	switch {
	case k == jsonr.Null:
		d.r.Null()
		*dst = nil
		return empty
	case k != jsonr.Array && anyText:
		s, r := d.anyText()
		if r == ok {
			*dst = append((*dst)[:0], s)
		}
		return ok
	case k != jsonr.Array:
		return d.bad(k, "an array")
	}
	out := (*dst)[:0]
	if out == nil {
		out = []string{}
	}
	failed := false
	for more, i := d.r.FirstElem(), 0; more; more, i = d.r.NextElem(), i+1 {
		if anyText {
			s, _ := d.anyText()
			out = append(out, s)
			continue
		}
		s, r := d.str()
		if r == bad && !failed {
			failed = true
			d.pushIdx(i)
			d.cause.Path = d.pathTo("")
			d.pop()
		}
		out = append(out, s)
	}
	if failed {
		return bad
	}
	*dst = out
	return ok
}

// anyText reads any value as text: a scalar as written, null as "", an
// object or array as its compact JSON (keys sorted, as encoding/json
// writes a map).
func (d *Decoder) anyText() (string, res) {
	switch d.r.Peek() {
	case jsonr.Object, jsonr.Array:
		raw := d.r.Raw()
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) != nil {
			return "", empty
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(x) != nil {
			return "", empty
		}
		return strings.TrimSuffix(b.String(), "\n"), ok
	}
	s, _, _ := d.r.Scalar()
	return s, ok
}

// ErrTooMany is a list holding more items than its limit.
var ErrTooMany = errors.New("too many items")
