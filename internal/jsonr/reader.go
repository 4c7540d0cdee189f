// Package jsonr is a small JSON reader: one forward pass over the bytes of
// a response, handing out object members, array elements and scalar values
// as the generated decoders (internal/decode) ask for them, and checking
// the syntax of everything it passes, skipped values included. It keeps no
// state between readers and uses the standard library only.
package jsonr

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
)

// MaxDepth is the deepest nesting a reader accepts (encoding/json's limit).
const MaxDepth = 10000

// Kind is the kind of the next JSON value.
type Kind byte

// Kinds of JSON values.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Name names the kind as an error says it ("an object"), never the value.
func (k Kind) Name() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "invalid JSON"
}

// Reader reads one JSON document. The zero Reader is not usable: call Reset.
type Reader struct {
	buf   []byte
	str   string // buf as one string: values without escapes are substrings of it
	pos   int
	depth int
	err   error
	stack []byte // open brackets while skipping
	key   []byte // the last member name, when it had escapes
}

// Reset starts reading data. Strings the reader returns share one copy of
// data, made here.
func (r *Reader) Reset(data []byte) {
	*r = Reader{buf: data, str: string(data), stack: r.stack[:0], key: r.key[:0]}
}

// ResetNoCopy starts reading data without the copy Reset makes: for a
// reader that only checks and skips (String and Number, which return
// parts of the copy, must not be called).
func (r *Reader) ResetNoCopy(data []byte) {
	*r = Reader{buf: data, stack: r.stack[:0], key: r.key[:0]}
}

// Err is the first syntax error met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset is the position of the reader in the data.
func (r *Reader) Offset() int { return r.pos }

func (r *Reader) fail(msg string) {
	if r.err == nil {
		r.err = &SyntaxError{Offset: r.pos, msg: msg}
	}
	r.pos = len(r.buf) // nothing more is read
}

// SyntaxError is data that is not JSON. Its message gives the offset and
// what was expected, never the data.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.msg)
}

// ErrTooDeep is JSON nested deeper than MaxDepth.
var ErrTooDeep = errors.New("invalid JSON: nested too deep")

func (r *Reader) space() {
	for r.pos < len(r.buf) {
		switch c := r.buf[r.pos]; {
		case c > ' ': // what follows space is nearly always here
			return
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.pos++
		default:
			return
		}
	}
}

// Peek returns the kind of the next value without reading it.
func (r *Reader) Peek() Kind {
	r.space()
	if r.pos >= len(r.buf) {
		return Invalid
	}
	switch c := r.buf[r.pos]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || (c >= '0' && c <= '9'):
		return Number
	}
	return Invalid
}

// End checks that nothing but space follows the top-level value.
func (r *Reader) End() error {
	if r.err != nil {
		return r.err
	}
	r.space()
	if r.pos != len(r.buf) {
		r.fail("data after the top-level value")
	}
	return r.err
}

// Open reads the '{' or '[' (c) that starts the next value.
func (r *Reader) open(c byte) bool {
	r.space()
	if r.pos >= len(r.buf) || r.buf[r.pos] != c {
		r.fail("want " + string(c))
		return false
	}
	r.depth++
	if r.depth > MaxDepth {
		r.err, r.pos = ErrTooDeep, len(r.buf)
		return false
	}
	r.pos++
	return true
}

// FirstKey opens an object and reads its first member's name; ok is false
// for an empty object (then read whole) or an error.
func (r *Reader) FirstKey() (key []byte, ok bool) {
	if !r.open('{') {
		return nil, false
	}
	r.space()
	if r.pos < len(r.buf) && r.buf[r.pos] == '}' {
		r.pos++
		r.depth--
		return nil, false
	}
	return r.name()
}

// NextKey reads the next member's name after a member's value; ok is false
// at the object's end (then read whole) or an error.
func (r *Reader) NextKey() (key []byte, ok bool) {
	r.space()
	if r.pos >= len(r.buf) {
		r.fail("object not closed")
		return nil, false
	}
	switch r.buf[r.pos] {
	case ',':
		r.pos++
		return r.name()
	case '}':
		r.pos++
		r.depth--
		return nil, false
	}
	r.fail("want , or }")
	return nil, false
}

// name reads a member name and its ':'. The name is valid until the next
// name is read.
func (r *Reader) name() ([]byte, bool) {
	r.space()
	if r.pos >= len(r.buf) || r.buf[r.pos] != '"' {
		r.fail("want a member name")
		return nil, false
	}
	start, end, plain := r.scanString()
	if r.err != nil {
		return nil, false
	}
	var key []byte
	if plain {
		key = r.buf[start:end]
	} else {
		s, ok := unquote(r.buf[start-1 : end+1])
		if !ok {
			r.fail("invalid string")
			return nil, false
		}
		r.key = append(r.key[:0], s...)
		key = r.key
	}
	r.space()
	if r.pos >= len(r.buf) || r.buf[r.pos] != ':' {
		r.fail("want :")
		return nil, false
	}
	r.pos++
	return key, true
}

// FirstElem opens an array; ok is false for an empty array (then read
// whole) or an error.
func (r *Reader) FirstElem() bool {
	if !r.open('[') {
		return false
	}
	r.space()
	if r.pos < len(r.buf) && r.buf[r.pos] == ']' {
		r.pos++
		r.depth--
		return false
	}
	return true
}

// NextElem moves past the ',' before the next element; false at the
// array's end (then read whole) or an error.
func (r *Reader) NextElem() bool {
	r.space()
	if r.pos >= len(r.buf) {
		r.fail("array not closed")
		return false
	}
	switch r.buf[r.pos] {
	case ',':
		r.pos++
		return true
	case ']':
		r.pos++
		r.depth--
		return false
	}
	r.fail("want , or ]")
	return false
}

// scanString reads the string at r.pos (its '"'): the bounds of its
// content, and whether it is plain (printable ASCII without escapes, its
// text as written). A control character or an unclosed string is an error.
func (r *Reader) scanString() (start, end int, plain bool) {
	r.pos++
	start, plain = r.pos, true
	b := r.buf
	for i := r.pos; i < len(b); i++ {
		i = plainRun(b, i)
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			r.pos = i + 1
			return start, i, plain
		case c == '\\':
			plain = false
			if !validEscape(r.buf, i+1) {
				r.pos = i
				r.fail("invalid escape in a string")
				return 0, 0, false
			}
			i++
		case c < 0x20:
			r.pos = i
			r.fail("control character in a string")
			return 0, 0, false
		case c >= 0x80:
			plain = false
		}
	}
	r.fail("string not closed")
	return 0, 0, false
}

// plainRun is the end of the run of plain bytes (plainByte) of b from i:
// eight at a time while eight are left (the first byte that is not plain
// sets the high bit of its byte of m, and no byte before it does: a
// borrow only carries upwards), then one look-up each.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		low := x - 0x2020202020202020                           // below ' '
		quote := (x ^ 0x2222222222222222) - 0x0101010101010101  // '"'
		escape := (x ^ 0x5c5c5c5c5c5c5c5c) - 0x0101010101010101 // '\\'
		m := (low | quote | escape | x) & 0x8080808080808080    // x: not ASCII
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// plainByte marks the bytes a plain string is made of: printable ASCII
// other than '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// String reads a string value.
func (r *Reader) String() (string, bool) {
	r.space()
	if r.pos >= len(r.buf) || r.buf[r.pos] != '"' {
		r.fail("want a string")
		return "", false
	}
	start, end, plain := r.scanString()
	if r.err != nil {
		return "", false
	}
	if plain {
		return r.str[start:end], true
	}
	s, ok := unquote(r.buf[start-1 : end+1])
	if !ok {
		r.pos = start
		r.fail("invalid string")
	}
	return s, ok
}

// unquote decodes a quoted JSON string with escapes or non-ASCII bytes as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
func unquote(q []byte) (string, bool) {
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}

// Number reads a number value, as written.
func (r *Reader) Number() (string, bool) {
	start, ok := r.scanNumber()
	if !ok {
		return "", false
	}
	return r.str[start:r.pos], true
}

// scanNumber reads a number value, returning where it starts.
func (r *Reader) scanNumber() (int, bool) {
	r.space()
	start := r.pos
	i := r.pos
	b := r.buf
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		r.pos = i
		r.fail("invalid number")
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.pos = i
			r.fail("invalid number")
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.pos = i
			r.fail("invalid number")
			return 0, false
		}
	}
	r.pos = i
	return start, true
}

// Bool reads true or false.
func (r *Reader) Bool() (bool, bool) {
	r.space()
	if r.lit("true") {
		return true, true
	}
	if r.lit("false") {
		return false, true
	}
	r.fail("invalid literal")
	return false, false
}

// Null reads null.
func (r *Reader) Null() bool {
	r.space()
	if r.lit("null") {
		return true
	}
	r.fail("invalid literal")
	return false
}

func (r *Reader) lit(s string) bool {
	if len(r.buf)-r.pos >= len(s) && string(r.buf[r.pos:r.pos+len(s)]) == s {
		r.pos += len(s)
		return true
	}
	return false
}

// Scalar reads a string, number or boolean as text (a string as is, a
// number or boolean as written), or null as "" with null true. ok is false
// for an object or array, which is skipped.
func (r *Reader) Scalar() (text string, k Kind, ok bool) {
	switch k = r.Peek(); k {
	case String:
		text, ok = r.String()
	case Number:
		text, ok = r.Number()
	case Bool:
		var b bool
		if b, ok = r.Bool(); ok {
			text = "false"
			if b {
				text = "true"
			}
		}
	case Null:
		ok = r.Null()
	default:
		r.Skip()
		return "", k, false
	}
	return text, k, ok
}

// Raw reads the next value whole and returns it as written, checked.
func (r *Reader) Raw() []byte {
	r.space()
	start := r.pos
	r.Skip()
	if r.err != nil {
		return nil
	}
	return r.buf[start:r.pos]
}

// Skip reads the next value, whatever it is, checking its syntax.
func (r *Reader) Skip() {
	r.stack = r.stack[:0]
	for r.err == nil {
		switch r.Peek() {
		case Object:
			if _, ok := r.FirstKey(); ok {
				r.stack = append(r.stack, '}')
				continue
			}
		case Array:
			if r.FirstElem() {
				r.stack = append(r.stack, ']')
				continue
			}
		case String:
			r.scanString()
		case Number:
			r.scanNumber()
		case Bool:
			r.Bool()
		case Null:
			r.Null()
		default:
			r.fail("want a value")
			return
		}
		// a value ended: close what ends with it
		for len(r.stack) > 0 && r.err == nil {
			top := r.stack[len(r.stack)-1]
			var more bool
			if top == '}' {
				_, more = r.NextKey()
			} else {
				more = r.NextElem()
			}
			if more {
				break
			}
			r.stack = r.stack[:len(r.stack)-1]
		}
		if len(r.stack) == 0 {
			return
		}
	}
}

// validEscape reports whether b[i:] starts what may follow a backslash in
// a JSON string: one of "\/bfnrt, or u and four hex digits.
func validEscape(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	switch b[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if i+4 >= len(b) {
			return false
		}
		for _, c := range b[i+1 : i+5] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}
