// Package tolerant is the reflective reading of a JSON value into a models
// type, field by field as the SDK reads responses (see DecodeUnset). The
// SDK itself no longer reads responses with it: internal/decode does, in
// one pass, with decoders generated from the models (and agrees with the
// rules below). It stays for its one remaining user,
// models.VerifiedAttribute.UnmarshalJSON, which a merchant's own
// json.Unmarshal calls (models cannot import internal/decode, which
// imports models), and as the written statement of the rules that
// internal/decode's tests hold the generated decoder to.
package tolerant

import (
	"github.com/bankpay/bankpay-go/internal/jsonr"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// FieldError is a response field of the wrong JSON type: Path is its JSON
// path ("transaction.status", "summary[0].days"). The message names the
// path and the kinds involved, never the value (responses carry account
// numbers and tax ids).
type FieldError struct {
	Path string
	// Want is the kind the Go field holds ("an integer", "a string", "an object"…).
	Want string
	// Got is the JSON kind received ("an object", "a non-numeric string"…).
	Got string
	// Err is always nil: the decoder's own error quotes the value, which
	// may be an account number or a key a hostile server echoed.
	Err error
}

// Error names the field and the kinds, not the value.
func (e *FieldError) Error() string {
	path := e.Path
	if path == "" {
		path = "(response)"
	}
	return fmt.Sprintf("field %s: want %s, got %s", path, e.Want, e.Got)
}

// Unwrap returns the field decoder's error, if any.
func (e *FieldError) Unwrap() error { return e.Err }

// Decode decodes a JSON response into v (a pointer) tolerantly, as the SDK
// reads every response: a Go integer field (codes, counts, days, tiers,
// recordVersion) takes a JSON number, a numeric string ("2") or a
// whole-valued float (2.0); a Go string field also takes a number or a
// boolean (kept as written); a Go bool field also takes "true" or "false";
// an empty string is the zero value. Unknown fields are ignored.
//
// A value no reading fits (an object for an amount, "abc" for a count) is
// never read as a silent zero: the field is left unset, as if the response
// had not sent it, at the nearest level that can say unset (see Unset), and
// only a field the result cannot do without fails the decode with a
// *FieldError naming its JSON path. Decode does not report what it left
// unset; DecodeUnset does.
func Decode(data []byte, v any) error {
	_, err := DecodeUnset(data, v, "")
	return err
}

// DecodeAt is Decode for an object found at path: errors name path first
// ("transaction" gives "transaction.status").
func DecodeAt(data []byte, v any, path string) error {
	_, err := DecodeUnset(data, v, path)
	return err
}

// Unset is a response field Decode left unset: a value was received that
// its Go type cannot hold. Path is the JSON path of the field left unset,
// Cause the value that could not be held (its path and kinds, never the
// value).
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

// DecodeUnset is DecodeAt, and also returns the fields it left unset.
//
// The rule, one for every response: a value of field f that f's Go type
// cannot hold leaves f unset, unless
//   - f is tagged `wire:"required"`: the identity of its object (a
//     transaction's id, status, type and amount), which must decode; or
//   - f is tagged `wire:"zero"`: its Go zero is a value (account type 0 is
//     Other), so unset would read as that value. A field whose zero is a
//     value and that should be left unset by itself has a type that can
//     say unset instead (a pointer: customer.vip, payment.authorizationStatus).
//
// In those cases the object holding f cannot be read, and the same rule
// applies to the field holding that object, up to the result: a
// payment.account whose type is an object is left unset whole (nil), and a
// transaction whose status is "abc" fails. A pointer, slice, map, string
// (empty is "not given") or plain number field can say unset.
//
// A string field tagged `wire:"text=name"` receives the received text of
// its sibling field name when name is left unset and was a scalar (a
// string as is, a number or boolean as written): customer.vip "gold" leaves
// VIP nil and VIPText "gold".
//
// A string slice tagged `wire:"anytext"` takes items of any JSON shape: a
// string as is, a number or boolean as written, an object or array as its
// compact JSON text; a value that is not an array is one item.
func DecodeUnset(data []byte, v any, path string) ([]Unset, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, errors.New("tolerant.Decode: v must be a non-nil pointer")
	}
	// Fast path: a response in the exact types (the spec's shape) reads as
	// encoding/json reads it, which Decode agrees with (FuzzDecodeAgreesWithStrict).
	if json.Unmarshal(data, v) == nil {
		return nil, nil
	}
	rv.Elem().SetZero() // drop what the failed pass filled in
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	n := normalizer{fields: map[reflect.Type]map[string]fieldInfo{}}
	tree, err := n.normalize(tree, rv.Type().Elem(), path, nil)
	if err != nil {
		return nil, err
	}
	norm, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(norm, v); err != nil {
		// Not expected after normalize; still name what json names.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &FieldError{Path: join(path, te.Field), Want: te.Type.String(), Got: "a JSON " + te.Value}
		}
		return nil, err
	}
	for _, t := range n.texts {
		setAt(rv.Elem(), t.steps, t.text)
	}
	return n.unset, nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldInfo is what the normalizer needs of a struct field.
type fieldInfo struct {
	typ      reflect.Type
	index    []int
	required bool   // wire:"required"
	zero     bool   // wire:"zero"
	anyText  bool   // wire:"anytext"
	textOf   string // wire:"text=name": the JSON name whose text it keeps
}

// step is one step from the decoded value to a nested one: a struct field
// (index), a slice element (elem) or a map value (key).
type step struct {
	index []int
	elem  int
	key   string
	kind  byte // 'f', 'e' or 'k'
}

// text is a string to set after decoding: the received text of a field left
// unset, for its wire:"text=…" sibling at steps.
type text struct {
	steps []step
	text  string
}

// normalizer holds the field tables of the struct types met in one Decode,
// and what it left unset (per call: no state outlives it).
type normalizer struct {
	fields map[reflect.Type]map[string]fieldInfo
	unset  []Unset
	texts  []text
}

// normalize rewrites the decoded JSON value x into the form encoding/json
// reads into a value of type t, or reports why it cannot. When it cannot,
// what it recorded inside x (fields left unset, texts to set) is dropped
// with it: its holder reports x itself.
func (n *normalizer) normalize(x any, t reflect.Type, path string, at []step) (any, error) {
	unset, texts := len(n.unset), len(n.texts)
	v, err := n.value(x, t, path, at)
	if err != nil {
		n.unset, n.texts = n.unset[:unset], n.texts[:texts]
	}
	return v, err
}

// value is normalize without the clean-up.
func (n *normalizer) value(x any, t reflect.Type, path string, at []step) (any, error) {
	if x == nil {
		return nil, nil
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// The type has its own decoder (Amount, codes, ProviderStatus,
		// VerifiedAttribute): run it to check the value.
		return checkUnmarshal(x, t, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return n.normalize(x, t.Elem(), path, at)
	case reflect.Interface:
		return x, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w, ok := WholeNumber(x)
		if !ok {
			return nil, &FieldError{Path: path, Want: "an integer", Got: kind(x)}
		}
		if w == "" {
			return nil, nil
		}
		return json.Number(w), nil
	case reflect.Float32, reflect.Float64:
		return number(x, path)
	case reflect.String:
		if s, ok := scalarText(x); ok {
			return s, nil
		}
		return nil, &FieldError{Path: path, Want: "a string", Got: kind(x)}
	case reflect.Bool:
		return boolean(x, path)
	case reflect.Slice, reflect.Array:
		arr, ok := x.([]any)
		if !ok {
			return nil, &FieldError{Path: path, Want: "an array", Got: kind(x)}
		}
		for i := range arr {
			v, err := n.normalize(arr[i], t.Elem(), path+"["+strconv.Itoa(i)+"]", append(at[:len(at):len(at)], step{kind: 'e', elem: i}))
			if err != nil {
				return nil, err
			}
			arr[i] = v
		}
		return arr, nil
	case reflect.Map:
		obj, ok := x.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			return nil, &FieldError{Path: path, Want: "an object", Got: kind(x)}
		}
		for k, e := range obj {
			v, err := n.normalize(e, t.Elem(), join(path, k), append(at[:len(at):len(at)], step{kind: 'k', key: k}))
			if err != nil {
				return nil, err
			}
			obj[k] = v
		}
		return obj, nil
	case reflect.Struct:
		obj, ok := x.(map[string]any)
		if !ok {
			return nil, &FieldError{Path: path, Want: "an object", Got: kind(x)}
		}
		return obj, n.object(obj, t, path, at)
	}
	return x, nil
}

// checkUnmarshal runs the json.Unmarshaler of t on x, to check it: x, or
// the error naming path.
func checkUnmarshal(x any, t reflect.Type, path string) (any, error) {
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	dst := reflect.New(t).Interface().(json.Unmarshaler)
	if err := dst.UnmarshalJSON(raw); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			inner := *fe
			inner.Path = join(path, fe.Path)
			return nil, &inner
		}
		return nil, &FieldError{Path: path, Want: "a valid " + t.Name(), Got: kind(x)}
	}
	return x, nil
}

// number is x read as a JSON number: a number, or a string holding one
// ("" is nil).
func number(x any, path string) (any, error) {
	switch v := x.(type) {
	case json.Number:
		return v, nil
	case string:
		if v == "" {
			return nil, nil
		}
		if n := strings.TrimSpace(v); json.Valid([]byte(n)) && (n[0] == '-' || (n[0] >= '0' && n[0] <= '9')) {
			return json.Number(n), nil
		}
	}
	return nil, &FieldError{Path: path, Want: "a number", Got: kind(x)}
}

// boolean is x read as a boolean: a bool, or a string holding one ("" is
// nil).
func boolean(x any, path string) (any, error) {
	switch v := x.(type) {
	case bool:
		return v, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return b, nil
		} else if v == "" {
			return nil, nil
		}
	}
	return nil, &FieldError{Path: path, Want: "a boolean", Got: kind(x)}
}

// object normalizes the members of obj, a JSON object read into struct type
// t, leaving unset the members that can be (see DecodeUnset).
func (n *normalizer) object(obj map[string]any, t reflect.Type, path string, at []step) error {
	fields, ok := n.fields[t]
	if !ok {
		fields = fieldsOf(t)
		n.fields[t] = fields
	}
	for k, e := range obj {
		f, ok := fields[k]
		if !ok {
			f, ok = fields[strings.ToLower(k)]
		}
		if !ok {
			delete(obj, k) // unknown: ignored, never an error
			continue
		}
		fpath := join(path, k)
		if f.anyText {
			switch arr := e.(type) {
			case []any:
				for i := range arr {
					arr[i] = anyText(arr[i])
				}
			case nil:
			default: // one item, not in an array
				e = []any{anyText(arr)}
			}
		}
		v, err := n.normalize(e, f.typ, fpath, append(at[:len(at):len(at)], step{kind: 'f', index: f.index}))
		if err == nil {
			obj[k] = v
			continue
		}
		var fe *FieldError
		if f.required || f.zero || !errors.As(err, &fe) {
			return err // the object cannot be read: its holder decides
		}
		delete(obj, k) // left unset, as if not sent
		n.unset = append(n.unset, Unset{Path: fpath, Cause: fe})
		if s, ok := scalarText(e); ok {
			for _, g := range fields {
				if g.textOf != "" && strings.EqualFold(g.textOf, k) {
					n.texts = append(n.texts, text{steps: append(at[:len(at):len(at)], step{kind: 'f', index: g.index}), text: s})
					break
				}
			}
		}
	}
	return nil
}

// scalarText is a string, number or boolean as text.
func scalarText(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case json.Number:
		return string(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// anyText is x as text: a scalar as scalarText, null as null, an object or
// array as its compact JSON.
func anyText(x any) any {
	if x == nil {
		return nil
	}
	if s, ok := scalarText(x); ok {
		return s
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // kept as written: "<" stays "<"
	if err := enc.Encode(x); err != nil {
		return x
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// setAt sets the string field at steps from v (the decoded value),
// allocating nil pointers on the way.
func setAt(v reflect.Value, steps []step, s string) {
	for _, st := range steps {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		switch st.kind {
		case 'f':
			v = v.FieldByIndex(st.index)
		case 'e':
			if st.elem >= v.Len() {
				return
			}
			v = v.Index(st.elem)
		case 'k':
			return // a map value is not addressable; no model keeps text there
		}
	}
	if v.Kind() == reflect.String && v.CanSet() {
		v.SetString(s)
	}
}

// WholeNumber reads x as a whole number: a JSON number or a numeric string,
// either possibly written as a float with a zero fraction (2.0, "2.0",
// 2e1). "" (with ok) means an empty string: the zero value.
func WholeNumber(x any) (string, bool) {
	var s string
	switch v := x.(type) {
	case json.Number:
		s = string(v)
	case string:
		s = strings.TrimSpace(v)
		if s == "" {
			return "", true
		}
	default:
		return "", false
	}
	return jsonr.WholeNumber(s)
}

// kind names the JSON kind of a decoded value, never the value itself.
func kind(x any) string {
	switch v := x.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case json.Number:
		if f, err := v.Float64(); err == nil && f != math.Trunc(f) {
			return "a fractional number"
		}
		return "a number"
	case string:
		if v == "" {
			return "an empty string"
		}
		return "a string"
	}
	return "null"
}

func join(path, name string) string {
	switch {
	case path == "":
		return name
	case name == "":
		return path
	}
	return path + "." + name
}

// fieldsOf maps a struct type's JSON field names (as written and lowercased,
// since encoding/json matches names without case) to their fields.
func fieldsOf(t reflect.Type) map[string]fieldInfo {
	m := map[string]fieldInfo{}
	addFields(t, nil, m)
	for k, f := range m {
		if _, ok := m[strings.ToLower(k)]; !ok {
			m[strings.ToLower(k)] = f
		}
	}
	return m
}

func addFields(t reflect.Type, index []int, m map[string]fieldInfo) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(index[:len(index):len(index)], i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && tag != "-" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ft, idx, m)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		info := fieldInfo{typ: f.Type, index: idx}
		for _, opt := range strings.Split(f.Tag.Get("wire"), ",") {
			switch {
			case opt == "required":
				info.required = true
			case opt == "zero":
				info.zero = true
			case opt == "anytext":
				info.anyText = true
			case strings.HasPrefix(opt, "text="):
				info.textOf = strings.TrimPrefix(opt, "text=")
			}
		}
		if tag == "-" {
			if info.textOf != "" {
				m["\x00text:"+f.Name] = info // not a JSON name: found by textOf only
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = info
		}
	}
}
