package form

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"
)

// Query is Values(v) for the query structs of the SDK's lists, from a plan
// worked out once per type (like Body's): the names and options come from
// the `url` tags as go-querystring reads them, and a call walks the fields
// with reflect, without go-querystring's per-field interface values,
// fmt.Sprint and scoped names (a page of a list took 42 allocations to
// encode its params through go-querystring, 7 with the plan; see
// docs/performance.md, Lists). A plan covers flat structs (no nesting
// scope) of string and integer fields without String methods, time.Time
// with the omitempty and unixmilli options (as t.UnixMilli(): go-querystring's
// t.UnixNano()/1e6 overflows after 2262), slices of strings, embedded structs (directly
// or through a pointer) and fields that implement query.Encoder (not
// through a pointer, not omitempty);
// any other type goes through Values. TestQueryMatchesValues keeps the two
// in agreement.
func Query(v any) (url.Values, error) {
	val := reflect.ValueOf(v)
	if val.Kind() != reflect.Pointer || val.IsNil() || val.Elem().Kind() != reflect.Struct {
		return Values(v)
	}
	val = val.Elem()
	pl := planQuery(val.Type())
	if !pl.planned {
		return Values(v)
	}
	q := url.Values{}
	if err := pl.encode(val, pl.fields, q); err != nil {
		return nil, err
	}
	return q, nil
}

// QueryPlanned reports whether Query encodes v (a pointer to a struct)
// from a plan, rather than through Values.
func QueryPlanned(v any) bool {
	val := reflect.ValueOf(v)
	if val.Kind() != reflect.Pointer || val.IsNil() || val.Elem().Kind() != reflect.Struct {
		return false
	}
	return planQuery(val.Elem().Type()).planned
}

// planQuery returns the plan of struct type t, made once.
func planQuery(t reflect.Type) *queryPlan {
	if p, ok := queryPlans.Load(t); ok {
		return p.(*queryPlan)
	}
	fields, planned := queryFields(t, 0)
	p, _ := queryPlans.LoadOrStore(t, &queryPlan{fields: fields, planned: planned})
	return p.(*queryPlan)
}

// queryPlans caches *queryPlan by struct type.
var queryPlans sync.Map

type queryPlan struct {
	fields  []*queryField
	planned bool
}

// queryField is one field of a planned query struct.
type queryField struct {
	index     int
	key       string
	omitEmpty bool
	kind      queryKind
	embedded  []*queryField // of an embedded struct
	ptr       bool          // an embedded struct through a pointer
}

type queryKind int

const (
	kindString queryKind = iota
	kindInt
	kindTimeMilli
	kindStrings
	kindEncoder
	kindEmbedded
)

// queryFields plans struct type t, or reports that it cannot.
func queryFields(t reflect.Type, depth int) ([]*queryField, bool) {
	if depth > maxPlanDepth {
		return nil, false
	}
	var out []*queryField
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.PkgPath != "" && !sf.Anonymous {
			continue
		}
		tag := sf.Tag.Get("url")
		if tag == "-" {
			continue
		}
		opts := strings.Split(tag, ",")
		f := &queryField{index: i, key: opts[0]}
		ft := sf.Type
		if f.key == "" && sf.Anonymous {
			if ft.Kind() == reflect.Pointer {
				f.ptr, ft = true, ft.Elem()
			}
			if ft.Kind() != reflect.Struct {
				return nil, false
			}
			sub, ok := queryFields(ft, depth+1)
			if !ok {
				return nil, false
			}
			f.kind, f.embedded, f.key = kindEmbedded, sub, sf.Name
			out = append(out, f)
			continue
		}
		if f.key == "" {
			f.key = sf.Name // as go-querystring names an untagged field
		}
		if strings.ContainsAny(f.key, "[]") {
			return nil, false
		}
		unixMilli := false
		for _, o := range opts[1:] {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "unixmilli":
				unixMilli = true
			default:
				return nil, false
			}
		}
		var ok bool
		if f.kind, ok = kindOf(ft, f.omitEmpty, unixMilli); !ok {
			return nil, false
		}
		out = append(out, f)
	}
	return embeddedLast(out), true
}

// kindOf is how a field of type ft with the tag's options is encoded, or
// false for one the plan leaves to go-querystring.
func kindOf(ft reflect.Type, omitEmpty, unixMilli bool) (queryKind, bool) {
	var k queryKind
	switch {
	case ft == timeType && unixMilli:
		k = kindTimeMilli
	case ft.Kind() != reflect.Pointer && ft.Implements(encoderType) && !omitEmpty:
		k = kindEncoder
	case reflect.PointerTo(ft).Implements(encoderType), ft.Implements(stringerType), ft.Implements(formatterType), ft.Implements(errorType):
		return 0, false
	case ft.Kind() == reflect.String:
		k = kindString
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
		k = kindInt
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String && !ft.Elem().Implements(stringerType):
		k = kindStrings
	default:
		return 0, false
	}
	if unixMilli && (k != kindTimeMilli || !omitEmpty) {
		return 0, false // the zero time: go-querystring's UnixNano overflows
	}
	return k, true
}

// embeddedLast orders fields as go-querystring encodes them: the embedded
// structs after the other fields (breadth-first), the order of a repeated
// name's values.
func embeddedLast(fields []*queryField) []*queryField {
	direct := make([]*queryField, 0, len(fields))
	var embedded []*queryField
	for _, f := range fields {
		if f.kind == kindEmbedded {
			embedded = append(embedded, f)
		} else {
			direct = append(direct, f)
		}
	}
	return append(direct, embedded...)
}

// encode adds the values of val's fields to q.
func (p *queryPlan) encode(val reflect.Value, fields []*queryField, q url.Values) error {
	for _, f := range fields {
		v := val.Field(f.index)
		switch f.kind {
		case kindEmbedded:
			if f.ptr {
				if v.IsNil() { // go-querystring writes it as an untagged nil pointer
					q[f.key] = append(q[f.key], "")
					continue
				}
				v = v.Elem()
			}
			if err := p.encode(v, f.embedded, q); err != nil {
				return err
			}
		case kindEncoder: // v is addressable: Query takes a pointer
			if err := v.Addr().Interface().(query.Encoder).EncodeValues(f.key, &q); err != nil {
				return err
			}
		case kindString:
			if s := v.String(); s != "" || !f.omitEmpty {
				q[f.key] = append(q[f.key], s)
			}
		case kindInt:
			if n := v.Int(); n != 0 || !f.omitEmpty {
				q[f.key] = append(q[f.key], strconv.FormatInt(n, 10))
			}
		case kindTimeMilli:
			if t := v.Addr().Interface().(*time.Time); !t.IsZero() || !f.omitEmpty {
				q[f.key] = append(q[f.key], strconv.FormatInt(t.UnixMilli(), 10))
			}
		case kindStrings:
			for i := range v.Len() {
				q[f.key] = append(q[f.key], v.Index(i).String())
			}
		}
	}
	return nil
}
