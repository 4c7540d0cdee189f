package form

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"
)

// A plan encodes one struct type exactly as go-querystring (v1.2) followed
// by Dotted and url.Values.Encode do, for the types it can: fields of
// string, bool and integer kinds, and nested structs, each directly or
// through one pointer. Names, escaped names and options are worked out once
// per type; a call walks the fields with reflect (no allocation) and writes
// the form straight into its []byte.
//
// Anything else (slices, maps, floats, time.Time, interfaces, embedded
// structs, query.Encoder, fmt.Formatter or error types, the "int" option,
// pointers to pointers) makes the type unplanned, and Body uses Values.
//
// Why a second encoder beside go-querystring (issue 11 asks for one codec
// unless the benchmark shows a pair over 1.10x without it): with
// go-querystring alone the Deposit pair measured sdk/base CPU 1.036-1.124
// (mean 1.088 over 12 interleaved runs, several over 1.10) and +22
// allocations against the baseline (target +15), from 1.00-1.06 and +5 with
// the plan; a capture body took 6 us and 60 allocations against 0.4 us and
// 2. FuzzBodyOfSDKParams (the root package's decode_test.go) keeps the two
// in agreement.
type plan struct{ fields []*field }

type field struct {
	index     int
	key       string // the dotted name
	escKey    string // url.QueryEscape(key)
	omitEmpty bool
	ptr       bool         // the field is a pointer to its value
	kind      reflect.Kind // of the value: String, Bool, Int*, Uint* or Struct
	stringer  bool         // the value's type has String(), which fmt.Sprint calls
	fields    []*field     // of a Struct
}

// plans caches *plan, or nil for an unplanned type, by struct type.
var plans sync.Map

const maxPlanDepth = 8

var (
	encoderType   = reflect.TypeFor[query.Encoder]()
	stringerType  = reflect.TypeFor[fmt.Stringer]()
	formatterType = reflect.TypeFor[fmt.Formatter]()
	errorType     = reflect.TypeFor[error]()
	timeType      = reflect.TypeFor[time.Time]()
)

// planOf returns the plan of v's struct type and the struct, when v is a
// non-nil pointer to a struct, or a struct, of a planned type.
func planOf(v any) (*plan, reflect.Value, bool) {
	val := reflect.ValueOf(v)
	if val.Kind() == reflect.Pointer {
		if val.IsNil() {
			return nil, val, false
		}
		val = val.Elem()
	}
	if val.Kind() != reflect.Struct {
		return nil, val, false
	}
	t := val.Type()
	if p, ok := plans.Load(t); ok {
		pl := p.(*plan)
		return pl, val, pl != nil
	}
	fields, ok := planFields(t, "", 0)
	var pl *plan
	if ok {
		pl = &plan{fields: fields}
	}
	plans.Store(t, pl)
	return pl, val, pl != nil
}

// Planned reports whether Body encodes v from a plan rather than through
// Values. It is for tests: the SDK's own test checks that its form params
// are planned (FuzzBodyOfSDKParams in the root package), from there so that
// this package's tests do not build the SDK again for themselves.
func Planned(v any) bool {
	_, _, ok := planOf(v)
	return ok
}

// planFields mirrors go-querystring's reflectValue for struct type t under
// scope (a go-querystring scoped name, parent[child]).
func planFields(t reflect.Type, scope string, depth int) ([]*field, bool) {
	if depth > maxPlanDepth {
		return nil, false
	}
	var out []*field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false
		}
		if sf.PkgPath != "" { // unexported
			continue
		}
		tag := sf.Tag.Get("url")
		if tag == "-" {
			continue
		}
		opts := strings.Split(tag, ",")
		name := opts[0]
		if name == "" {
			name = sf.Name
		}
		if scope != "" {
			name = scope + "[" + name + "]"
		}
		f := &field{index: i, key: Dotted(name)}
		f.escKey = url.QueryEscape(f.key)
		for _, o := range opts[1:] {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "int":
				return nil, false
			}
		}
		ft := sf.Type
		if ft.Implements(encoderType) {
			return nil, false
		}
		if ft.Kind() == reflect.Pointer {
			f.ptr, ft = true, ft.Elem()
		}
		if ft == timeType {
			return nil, false
		}
		switch f.kind = ft.Kind(); f.kind {
		case reflect.Struct:
			sub, ok := planFields(ft, name, depth+1)
			if !ok {
				return nil, false
			}
			f.fields = sub
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if ft.Implements(formatterType) || ft.Implements(errorType) {
				return nil, false
			}
			f.stringer = ft.Implements(stringerType)
		default:
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

// pair is one name=value of the form, the value not yet escaped.
type pair struct {
	f     *field
	value string
}

// encode writes the form of val, sorted by name like url.Values.Encode.
func (p *plan) encode(val reflect.Value) []byte {
	ps := p.collect(val, p.fields, make([]pair, 0, 16))
	// A stable insertion sort by name keeps the values of a repeated name
	// in field order, as url.Values does. Forms have a few dozen fields.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].f.key < ps[j-1].f.key; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	n := 0
	for _, q := range ps {
		n += len(q.f.escKey) + len(q.value) + 2
	}
	buf := make([]byte, 0, n+n/4)
	for i, q := range ps {
		if i > 0 {
			buf = append(buf, '&')
		}
		buf = append(buf, q.f.escKey...)
		buf = append(buf, '=')
		buf = append(buf, url.QueryEscape(q.value)...)
	}
	return buf
}

// collect appends the pairs of val's fields, in go-querystring's order.
func (p *plan) collect(val reflect.Value, fields []*field, ps []pair) []pair {
	for _, f := range fields {
		v := val.Field(f.index)
		if f.ptr {
			if v.IsNil() {
				if !f.omitEmpty {
					ps = append(ps, pair{f: f}) // go-querystring writes "name="
				}
				continue
			}
			v = v.Elem()
		} else if f.omitEmpty && isEmpty(v) {
			continue
		}
		var s string
		switch {
		case f.kind == reflect.Struct:
			ps = p.collect(v, f.fields, ps)
			continue
		case f.stringer: // what fmt.Sprint prints
			s = v.Interface().(fmt.Stringer).String()
		case f.kind == reflect.String:
			s = v.String()
		case f.kind == reflect.Bool:
			s = strconv.FormatBool(v.Bool())
		case v.CanInt():
			s = strconv.FormatInt(v.Int(), 10)
		default:
			s = strconv.FormatUint(v.Uint(), 10)
		}
		ps = append(ps, pair{f: f, value: s})
	}
	return ps
}

// isEmpty is go-querystring's isEmptyValue for the kinds a plan has.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	}
	return false
}
