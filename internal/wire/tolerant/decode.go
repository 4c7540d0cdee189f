package tolerant

import (
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
// an empty string is the zero value. Unknown fields are ignored. A value no
// reading fits (an object for an amount, "abc" for a status) is a
// *FieldError naming its JSON path, never a silent zero.
func Decode(data []byte, v any) error {
	return DecodeAt(data, v, "")
}

// DecodeAt is Decode for an object found at path: errors name path first
// ("transaction" gives "transaction.status").
func DecodeAt(data []byte, v any, path string) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("tolerant.Decode: v must be a non-nil pointer")
	}
	// Fast path: a response in the exact types (the spec's shape) reads as
	// encoding/json reads it, which Decode agrees with (FuzzDecodeAgreesWithStrict).
	if json.Unmarshal(data, v) == nil {
		return nil
	}
	rv.Elem().SetZero() // drop what the failed pass filled in
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("invalid JSON: data after the top-level value")
	}
	n := normalizer{fields: map[reflect.Type]map[string]reflect.Type{}}
	tree, err := n.normalize(tree, rv.Type().Elem(), path)
	if err != nil {
		return err
	}
	norm, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(norm, v); err != nil {
		// Not expected after normalize; still name what json names.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FieldError{Path: join(path, te.Field), Want: te.Type.String(), Got: "a JSON " + te.Value}
		}
		return err
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// normalizer holds the field tables of the struct types met in one Decode
// (per call: no state outlives it).
type normalizer struct {
	fields map[reflect.Type]map[string]reflect.Type
}

// normalize rewrites the decoded JSON value x into the form encoding/json
// reads into a value of type t, or reports why it cannot.
func (n *normalizer) normalize(x any, t reflect.Type, path string) (any, error) {
	if x == nil {
		return nil, nil
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// The type has its own decoder (Amount, EpochMillis, codes,
		// ProviderStatus, VerifiedAttribute): run it to check the value.
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
	switch t.Kind() {
	case reflect.Pointer:
		return n.normalize(x, t.Elem(), path)
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
	case reflect.String:
		switch v := x.(type) {
		case string:
			return v, nil
		case json.Number:
			return string(v), nil
		case bool:
			return strconv.FormatBool(v), nil
		}
		return nil, &FieldError{Path: path, Want: "a string", Got: kind(x)}
	case reflect.Bool:
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
	case reflect.Slice, reflect.Array:
		arr, ok := x.([]any)
		if !ok {
			return nil, &FieldError{Path: path, Want: "an array", Got: kind(x)}
		}
		for i := range arr {
			v, err := n.normalize(arr[i], t.Elem(), path+"["+strconv.Itoa(i)+"]")
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
			v, err := n.normalize(e, t.Elem(), join(path, k))
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
			v, err := n.normalize(e, f, join(path, k))
			if err != nil {
				return nil, err
			}
			obj[k] = v
		}
		return obj, nil
	}
	return x, nil
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
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s, true
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
// since encoding/json matches names without case) to their types.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	addFields(t, m)
	for k, ft := range m {
		if _, ok := m[strings.ToLower(k)]; !ok {
			m[strings.ToLower(k)] = ft
		}
	}
	return m
}

func addFields(t reflect.Type, m map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ft, m)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = f.Type
		}
	}
}
