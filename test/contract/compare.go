package contract

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Comparison is the outcome of comparing a generated answer with what the
// SDK decoded from it.
type Comparison struct {
	// Mismatches name each value the answer holds for a field the model has
	// that did not come out equal ("payment.customer.vip: sent "x", got 0").
	Mismatches []string
	// Compared counts the values compared (leaves).
	Compared int
	// Unmodelled lists the answer's fields the SDK deliberately does not
	// read (listed in testdata/unread.txt; JSON paths, array indexes as []).
	Unmodelled map[string]bool
	// Unmapped lists the answer's fields neither the field map nor the
	// unread list has (each is a failure).
	Unmapped map[string]bool

	fm *FieldMap
}

// Compare walks the generated answer gen (plain JSON values, numbers as
// json.Number or float64) beside got, the SDK's result, field by field
// through the independent field map fm (never got's json tags): every value
// gen holds for a mapped property must come out equal in the Go field the
// map names; a property neither mapped nor listed as unread is Unmapped. Equal means the same text, or the same number (the
// SDK reads "7", 7 and 7.0 into an integer, and keeps a number written into
// a string field as its digits), or, for an empty or null value, the zero
// value. An array must keep its length; a value of the wrong shape (an
// object where the model has a string) is a mismatch.
func Compare(fm *FieldMap, gen any, got any) Comparison {
	c := Comparison{Unmodelled: map[string]bool{}, Unmapped: map[string]bool{}, fm: fm}
	c.walk("", gen, reflect.ValueOf(got))
	sort.Strings(c.Mismatches)
	return c
}

func (c *Comparison) fail(path string, gen any, got reflect.Value, why string) {
	g, _ := json.Marshal(gen)
	var v any = "<none>"
	if got.IsValid() && got.CanInterface() {
		v = got.Interface()
	}
	c.Mismatches = append(c.Mismatches, fmt.Sprintf("%s: sent %s, got %#v (%s)", orRoot(path), clip(string(g)), v, why))
}

func orRoot(p string) string {
	if p == "" {
		return "$"
	}
	return p
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (c *Comparison) walk(path string, gen any, got reflect.Value) {
	got = elem(got)
	if !got.IsValid() {
		if !isEmpty(gen) {
			c.fail(path, gen, got, "dropped")
		}
		c.Compared++
		return
	}
	switch got.Kind() {
	case reflect.Struct:
		if obj, ok := c.object(path, gen, got); ok {
			c.walkStruct(path, obj, got)
		}
	case reflect.Map:
		obj, _ := c.object(path, gen, got)
		for k, v := range obj {
			mv := got.MapIndex(reflect.ValueOf(k).Convert(got.Type().Key()))
			if !mv.IsValid() {
				c.Unmodelled[generalise(join(path, k))] = true
				continue
			}
			c.walk(join(path, k), v, mv)
		}
	case reflect.Slice, reflect.Array:
		if got.Type().Elem().Kind() == reflect.Uint8 { // []byte, json.RawMessage: the value as JSON text
			c.leaf(path, gen, got)
			return
		}
		arr, ok := gen.([]any)
		if !ok {
			if !isEmpty(gen) {
				c.fail(path, gen, got, "not an array")
			}
			return
		}
		if len(arr) != got.Len() {
			c.fail(path, gen, got, fmt.Sprintf("%d items sent, %d decoded", len(arr), got.Len()))
			return
		}
		for i := range arr {
			c.walk(fmt.Sprintf("%s[%d]", path, i), arr[i], got.Index(i))
		}
	default:
		c.leaf(path, gen, got)
	}
}

// elem follows got's pointers and interfaces: a nil pointer is the zero
// value of what it points to, a nil interface the invalid Value.
func elem(got reflect.Value) reflect.Value {
	for got.IsValid() && (got.Kind() == reflect.Pointer || got.Kind() == reflect.Interface) {
		if got.IsNil() {
			if got.Kind() == reflect.Interface {
				return reflect.Value{}
			}
			got = reflect.Zero(got.Type().Elem()) // a nil pointer compares as the zero value
			continue
		}
		got = got.Elem()
	}
	return got
}

// object is gen as the object got (a struct or map) is read from; a
// non-empty value of another shape is a mismatch.
func (c *Comparison) object(path string, gen any, got reflect.Value) (map[string]any, bool) {
	obj, ok := gen.(map[string]any)
	if !ok && !isEmpty(gen) {
		c.fail(path, gen, got, "not an object")
	}
	return obj, ok
}

// walkStruct compares each property of obj with the field of got the
// field map names for it.
func (c *Comparison) walkStruct(path string, obj map[string]any, got reflect.Value) {
	t := got.Type()
	for k, v := range obj {
		name, text, ok := c.fm.Lookup(t, k)
		if !ok {
			if c.fm.IsUnread(t, k) {
				c.Unmodelled[generalise(join(path, k))] = true
			} else {
				c.Unmapped[t.String()+" "+k+" (at "+generalise(join(path, k))+")"] = true
			}
			continue
		}
		fv := got.FieldByName(name)
		switch {
		case !fv.IsValid():
			c.fail(join(path, k), v, fv, "the map names a field "+t.String()+" has not: "+name)
		case text != "":
			c.walkText(join(path, k), v, fv, got.FieldByName(text))
		default:
			c.walk(join(path, k), v, fv)
		}
	}
}

// walkText compares v with fv, a typed field whose model also keeps the
// value as text (in textField) when the typed field cannot hold it: equal
// when the typed field is, or when it is unset and the text is the value
// as sent.
func (c *Comparison) walkText(path string, v any, fv, textField reflect.Value) {
	sub := Comparison{Unmodelled: c.Unmodelled, Unmapped: c.Unmapped, fm: c.fm}
	sub.walk(path, v, fv)
	c.Compared += sub.Compared
	if len(sub.Mismatches) == 0 || (fv.IsZero() && textField.String() == scalarText(v)) {
		return
	}
	c.Mismatches = append(c.Mismatches, sub.Mismatches...)
}

// leaf compares a scalar.
func (c *Comparison) leaf(path string, gen any, got reflect.Value) {
	c.Compared++
	switch gen.(type) {
	case map[string]any, []any:
		switch got.Kind() { // a value kept whole as JSON text
		case reflect.Slice:
			if jsonEqual(gen, got.Bytes()) {
				return
			}
		case reflect.String:
			if jsonEqual(gen, []byte(got.String())) {
				return
			}
		}
		c.fail(path, gen, got, "a "+kindOf(gen)+" read into a "+got.Type().String())
		return
	}
	want := scalarText(gen)
	var have string
	switch got.Kind() {
	case reflect.String:
		have = got.String()
	case reflect.Bool:
		have = strconv.FormatBool(got.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		have = strconv.FormatInt(got.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		have = strconv.FormatUint(got.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		have = strconv.FormatFloat(got.Float(), 'g', -1, 64)
	case reflect.Slice:
		have = string(got.Bytes())
	default:
		c.fail(path, gen, got, "unsupported kind "+got.Kind().String())
		return
	}
	if want == have || sameNumber(want, have) || (want == "" && got.IsZero()) {
		return
	}
	c.fail(path, gen, got, "changed")
}

func kindOf(v any) string {
	if _, ok := v.([]any); ok {
		return "array"
	}
	return "object"
}

// scalarText is a generated scalar as text: numbers as written, null as "".
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// sameNumber reports whether a and b are both decimal numbers of equal value
// ("7.0" and "7", "007" and "7", "12.5" and "12.50").
func sameNumber(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(strings.TrimSpace(a))
	y, ok2 := new(big.Rat).SetString(strings.TrimSpace(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		for _, e := range x {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	case []any:
		return len(x) == 0
	}
	return false
}

func jsonEqual(gen any, raw []byte) bool {
	var v any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	a, _ := json.Marshal(gen)
	b, _ := json.Marshal(v)
	return string(a) == string(b)
}

// generalise replaces array indexes in a path by [].
func generalise(p string) string {
	var b strings.Builder
	skip := false
	for _, r := range p {
		switch {
		case r == '[':
			b.WriteString("[]")
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ApplyReshape rewrites gen as the SDK reads it where r says the SDK
// flattens an object: at r.Path, the object's field k moves to the holding
// object's field r.Into[k] (fields not in Into stay under their dotted name,
// unmodelled). It returns how many objects were rewritten.
func ApplyReshape(gen any, r *Reshape) int {
	dot := strings.LastIndex(r.Path, ".")
	parent, key := r.Path[:max(dot, 0)], r.Path[dot+1:]
	n := 0
	for _, holder := range at(gen, parent) {
		obj, ok := holder[key].(map[string]any)
		if !ok {
			continue
		}
		delete(holder, key)
		for k, v := range obj {
			if into, ok := r.Into[k]; ok {
				holder[into] = v
			} else {
				holder[key+"."+k] = v
			}
		}
		n++
	}
	return n
}

// at returns the objects found at the generalised path p ("a.b[].c") in v.
func at(v any, p string) []map[string]any {
	cur := []any{v}
	if p != "" {
		for _, seg := range strings.Split(p, ".") {
			name, isArray := strings.CutSuffix(seg, "[]")
			var next []any
			for _, c := range cur {
				obj, ok := c.(map[string]any)
				if !ok {
					continue
				}
				child := obj[name]
				if isArray {
					arr, _ := child.([]any)
					next = append(next, arr...)
				} else if child != nil {
					next = append(next, child)
				}
			}
			cur = next
		}
	}
	var out []map[string]any
	for _, c := range cur {
		if obj, ok := c.(map[string]any); ok {
			out = append(out, obj)
		}
	}
	return out
}
