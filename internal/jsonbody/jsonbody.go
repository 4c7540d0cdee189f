// Package jsonbody encodes JSON request bodies: the bytes encoding/json's
// Marshal writes, for a pointer to a struct made of strings, booleans,
// integers and nested structs (directly or through one pointer), from a
// plan worked out once per type instead of encoding/json's per-call
// reflective walk, pooled state and copy of its result.
//
// Why a second encoder beside encoding/json: on the loopback benchmark,
// where the caller's caches are cold after each round trip, Tokenize's
// json.Marshal of its 100-byte body was about 5% of the caller's CPU
// (sdk/ogen 1.02-1.03 with it, 0.98 with the body's bytes given, over 20
// interleaved runs each); see docs/performance.md.
//
// Whatever the plan cannot write exactly as encoding/json does goes to
// encoding/json: a field of any other kind (floats, slices, maps,
// interfaces, pointers to pointers, json.Number), or of a type with its own MarshalJSON
// or MarshalText, is encoded by json.Marshal; a struct type with an
// embedded field, a field option other than omitempty, a name that is not
// plain, or two fields of one name is encoded whole by json.Marshal; so
// is a string with a character encoding/json escapes.
package jsonbody

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
)

// Marshal is json.Marshal(v), written from v's plan when v is a non-nil
// pointer to a struct of a planned type. Per call it looks the plan up by
// v's type and reads the fields at the offsets the plan holds: no
// reflective walk.
func Marshal(v any) ([]byte, error) {
	t := reflect.TypeOf(v)
	if p := ptrPlanFor(t); p != nil {
		if ptr := reflect.ValueOf(v).UnsafePointer(); ptr != nil {
			return p.appendTo(make([]byte, 0, p.sizeHint()), ptr)
		}
	}
	return json.Marshal(v)
}

// ptrPlanFor is the plan of the struct t points to, nil when t is not a
// pointer to a planned struct type. The cache is keyed by the pointer
// type, so that a call looks it up without going through its element.
func ptrPlanFor(t reflect.Type) *plan {
	if t == nil {
		return nil
	}
	if p, ok := ptrPlans.Load(t); ok {
		return p.(*plan)
	}
	var p *plan
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		p = planFor(t.Elem())
	}
	ptrPlans.Store(t, p)
	return p
}

// kind is how a field of a plan is written.
type kind uint8

const (
	kString kind = iota + 1
	kBool
	kInt
	kUint
	kStruct // a struct value: never empty for omitempty, as in encoding/json
	kOther  // json.Marshal of the field's address
)

// field is one field of a plan.
type field struct {
	off       uintptr      // the field's offset in its struct
	typ       reflect.Type // the field's type
	key       string       // `"name":`, escaped as encoding/json escapes it
	omitEmpty bool
	ptr       bool // the field is a pointer to its value (nil: null)
	kind      kind
	size      uint8 // a kInt's or kUint's size in bytes
	sub       *plan // a kStruct's
}

// plan is the fields of one struct type, in their order.
type plan struct {
	fields []field
	// size is the longest body written from this plan yet (up to
	// maxHint): the next one's buffer is made that large, so that it is
	// not grown as it is written.
	size atomic.Int32
}

// Buffer sizes of a plan's bodies (sizeHint).
const (
	minHint = 128
	maxHint = 4 << 10
)

// sizeHint is the capacity to make for p's next body.
func (p *plan) sizeHint() int {
	return max(int(p.size.Load()), minHint)
}

// wrote records that a body of n bytes was written from p.
func (p *plan) wrote(n int) {
	if n <= maxHint && int32(n) > p.size.Load() {
		p.size.Store(int32(n))
	}
}

// plans caches *plan, or nil for a type json.Marshal encodes, by struct
// type; ptrPlans the same by pointer type (Marshal's lookup). Like
// encoding/json's own cache of encoders, they only ever grow by the
// types the SDK sends.
var plans, ptrPlans sync.Map

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	// numberType is written by encoding/json as a number, not a string.
	numberType = reflect.TypeFor[json.Number]()
)

// planFor is t's plan, worked out on first use; nil when encoding/json
// must encode t.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := build(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

// marshals reports whether encoding/json calls a method of t (or of *t,
// as it does for an addressable value) to encode it.
func marshals(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		return pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
	}
	return false
}

// build works out the plan of struct type t; nil when the type is not
// planned. A type whose plan is being worked out (building: a recursive
// type) is not planned where it recurs.
func build(t reflect.Type, building map[reflect.Type]bool) *plan {
	if t.Kind() != reflect.Struct || marshals(t) || building[t] {
		return nil
	}
	building[t] = true
	defer delete(building, t)
	p := &plan{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		name, omitEmpty, ok := tagOf(sf)
		if !ok {
			return nil
		}
		if name == "" || !sf.IsExported() {
			continue
		}
		if seen[name] {
			return nil
		}
		seen[name] = true
		key, _ := json.Marshal(name)
		f := field{off: sf.Offset, typ: sf.Type, key: string(key) + ":", omitEmpty: omitEmpty}
		f.kind, f.ptr, f.sub = kindOf(sf.Type, building)
		if f.kind == kInt || f.kind == kUint {
			f.size = uint8(elem(sf.Type).Size())
		}
		p.fields = append(p.fields, f)
	}
	return p
}

// tagOf reads sf's json tag: its name ("" to skip the field), whether it
// has omitempty, and false when the plan cannot follow it (another option,
// or a name that is not plain).
func tagOf(sf reflect.StructField) (name string, omitEmpty, ok bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, opts, _ := cut(tag)
	for opts != "" {
		var opt string
		opt, opts, _ = cut(opts)
		if opt != "omitempty" {
			return "", false, false
		}
		omitEmpty = true
	}
	if name == "" {
		name = sf.Name
	}
	for _, c := range []byte(name) {
		// ASCII letters and digits, and the punctuation encoding/json
		// takes in a name (isValidTag), whose key it writes HTML-escaped
		// as json.Marshal writes the name (build).
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(namePunct, c) >= 0) {
			return "", false, false
		}
	}
	return name, omitEmpty, true
}

// namePunct is the punctuation encoding/json allows in a field's name.
const namePunct = "!#$%&()*+-./:;<=>?@[]^_{|}~ "

func cut(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// elem is the type t points to, or t when it is not a pointer.
func elem(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// kindOf is how a field of type t is written: its kind, whether through a
// pointer, and a struct's plan.
func kindOf(t reflect.Type, building map[reflect.Type]bool) (kind, bool, *plan) {
	if marshals(t) {
		return kOther, false, nil
	}
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
		if marshals(t) {
			return kOther, false, nil
		}
	}
	switch t.Kind() {
	case reflect.String:
		if t == numberType { // a number, unquoted, checked: encoding/json's
			return kOther, false, nil
		}
		return kString, ptr, nil
	case reflect.Bool:
		return kBool, ptr, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kInt, ptr, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kUint, ptr, nil
	case reflect.Struct:
		if sub := build(t, building); sub != nil {
			return kStruct, ptr, sub
		}
	}
	return kOther, false, nil
}

// Planned reports whether Marshal writes v from a plan rather than with
// json.Marshal: v is a pointer to a struct type the plan follows.
func Planned(v any) bool { return ptrPlanFor(reflect.TypeOf(v)) != nil }
