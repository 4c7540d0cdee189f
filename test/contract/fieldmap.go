package contract

import (
	_ "embed"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

//go:embed testdata/fieldmap.txt
var fieldMapText []byte

//go:embed testdata/unread.txt
var unreadText []byte

// FieldMapFile and UnreadFile are the committed, reviewed maps (relative to
// this module's directory).
const (
	FieldMapFile = "testdata/fieldmap.txt"
	UnreadFile   = "testdata/unread.txt"
)

// FieldMap is the independent map from the OpenAPI's properties to the
// SDK's Go fields, written by hand and reviewed (testdata/fieldmap.txt),
// never derived from json tags: the value-by-value comparison takes the Go
// field a property must land in from here, so a misspelled or swapped json
// tag fails. Unread lists the properties the SDK deliberately does not read,
// each with its reason (testdata/unread.txt).
type FieldMap struct {
	// Fields maps a Go type ("models.Transaction") and a JSON property to
	// its Go field name; "VIP|VIPText" names a typed field and the field
	// that keeps the value as text when the typed one cannot hold it.
	Fields map[string]map[string]string
	// OffWire maps a Go type's fields that are not on the wire to why.
	OffWire map[string]map[string]string
	// Unread maps a Go type and a JSON property the SDK does not read to why.
	Unread map[string]map[string]string
	// Elsewhere maps a mapped property that no OpenAPI answer has (the
	// spec's shape, or a request's) to where it comes from.
	Elsewhere map[string]map[string]string
}

// LoadFieldMap parses the committed map and unread list.
func LoadFieldMap() (*FieldMap, error) { return ParseFieldMap(fieldMapText, unreadText) }

// ParseFieldMap parses a map ("Type property Field" or "Type - Field
// reason…" rows) and an unread list ("Type property reason…" rows); blank
// lines and lines starting with # are skipped.
func ParseFieldMap(fields, unread []byte) (*FieldMap, error) {
	m := &FieldMap{Fields: map[string]map[string]string{}, OffWire: map[string]map[string]string{}, Unread: map[string]map[string]string{},
		Elsewhere: map[string]map[string]string{}}
	put := func(into map[string]map[string]string, typ, key, val string) error {
		if into[typ] == nil {
			into[typ] = map[string]string{}
		}
		if _, dup := into[typ][key]; dup {
			return fmt.Errorf("contract: %s %s listed twice", typ, key)
		}
		into[typ][key] = val
		return nil
	}
	for i, line := range strings.Split(string(fields), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		var err error
		switch {
		case len(f) >= 4 && f[1] == "-":
			err = put(m.OffWire, f[0], f[2], strings.Join(f[3:], " "))
		case len(f) == 3 && f[1] != "-":
			err = put(m.Fields, f[0], f[1], f[2])
		case len(f) >= 4 && f[1] != "-" && strings.HasPrefix(f[3], "("):
			if err = put(m.Fields, f[0], f[1], f[2]); err == nil {
				err = put(m.Elsewhere, f[0], f[1], strings.Trim(strings.Join(f[3:], " "), "()"))
			}
		default:
			err = fmt.Errorf("contract: %s line %d: want \"Type property Field [(where)]\" or \"Type - Field reason\": %q", FieldMapFile, i+1, line)
		}
		if err != nil {
			return nil, err
		}
	}
	for i, line := range strings.Split(string(unread), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("contract: %s line %d: want \"Type property reason\": %q", UnreadFile, i+1, line)
		}
		if err := put(m.Unread, f[0], f[1], strings.Join(f[2:], " ")); err != nil {
			return nil, err
		}
		if _, both := m.Fields[f[0]][f[1]]; both {
			return nil, fmt.Errorf("contract: %s %s is both mapped and unread", f[0], f[1])
		}
	}
	return m, nil
}

// Lookup returns the Go field (and the text field, if any) of property
// prop of type t, and whether the map has it.
func (m *FieldMap) Lookup(t reflect.Type, prop string) (field, text string, ok bool) {
	v, ok := m.Fields[t.String()][prop]
	if !ok {
		return "", "", false
	}
	field, text, _ = strings.Cut(v, "|")
	return field, text, true
}

// IsUnread reports a property of type t the SDK deliberately does not read.
func (m *FieldMap) IsUnread(t reflect.Type, prop string) bool {
	_, ok := m.Unread[t.String()][prop]
	return ok
}

// CheckModels checks the map against the Go types reachable from roots:
// every field a row names exists; every exported field of every struct
// type reached is mapped or listed as off the wire; every type the map
// names is reached. It returns each problem.
func (m *FieldMap) CheckModels(roots ...reflect.Type) []string {
	var out []string
	reached := map[string]bool{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		t = deref(t)
		if t.Kind() != reflect.Struct || reached[t.String()] || t.PkgPath() == "time" {
			return
		}
		reached[t.String()] = true
		mapped := map[string]bool{}
		for prop, v := range m.Fields[t.String()] {
			for _, name := range strings.Split(v, "|") {
				f, ok := t.FieldByName(name)
				if !ok {
					out = append(out, fmt.Sprintf("%s: property %q maps to a field %s the type does not have", t, prop, name))
					continue
				}
				mapped[name] = true
				visit(f.Type)
			}
		}
		for name := range m.OffWire[t.String()] {
			if _, ok := t.FieldByName(name); !ok {
				out = append(out, fmt.Sprintf("%s: off-wire field %s does not exist", t, name))
			}
			mapped[name] = true
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.IsExported() && !mapped[f.Name] {
				out = append(out, fmt.Sprintf("%s: field %s is in neither the map nor its off-wire rows", t, f.Name))
			}
		}
	}
	for _, r := range roots {
		visit(r)
	}
	for _, set := range []map[string]map[string]string{m.Fields, m.OffWire, m.Unread} {
		for typ := range set {
			if !reached[typ] {
				out = append(out, fmt.Sprintf("%s: the map names a type no answer reaches", typ))
			}
		}
	}
	sort.Strings(out)
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return t
		}
		t = t.Elem()
	}
	return t
}

// SchemaProperties returns the properties of s, those of its allOf, oneOf
// and anyOf included.
func SchemaProperties(s *base.Schema) map[string]*base.Schema {
	out := map[string]*base.Schema{}
	var add func(s *base.Schema, depth int)
	add = func(s *base.Schema, depth int) {
		if s == nil || depth > 8 {
			return
		}
		if s.Properties != nil {
			for k, p := range s.Properties.FromOldest() {
				if _, ok := out[k]; !ok {
					out[k] = p.Schema()
				}
			}
		}
		for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range group {
				add(sub.Schema(), depth+1)
			}
		}
	}
	add(s, 0)
	return out
}

// MapCoverage records, for the check against the extract, which rows of
// the map and the unread list a schema walk used.
type MapCoverage struct {
	Used map[string]bool // "Type property"
}

// CheckSchema walks schema beside the Go type t: every property of every
// object must be mapped (then the walk goes on into the field) or unread;
// it returns each property that is neither, as "Type property (at path)".
func (m *FieldMap) CheckSchema(schema *base.Schema, t reflect.Type, path string, cov *MapCoverage) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(s *base.Schema, t reflect.Type, path string)
	walk = func(s *base.Schema, t reflect.Type, path string) {
		if s == nil {
			return
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
			walk(ItemsSchema(s), t.Elem(), path+"[]")
			return
		}
		if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
			return
		}
		key := t.String() + " " + path
		if seen[key] {
			return
		}
		seen[key] = true
		props := SchemaProperties(s)
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			row := t.String() + " " + k
			if field, _, ok := m.Lookup(t, k); ok {
				cov.Used[row] = true
				if f, ok := t.FieldByName(field); ok {
					walk(props[k], f.Type, join(path, k))
				}
				continue
			}
			if m.IsUnread(t, k) {
				cov.Used[row] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s %s (at %s): neither mapped to a Go field nor listed as unread", t, k, orRoot(join(path, k))))
		}
	}
	walk(schema, t, path)
	return out
}

// PartSchema returns the part of an answer's schema the SDK's result of type
// t is read from, and the type to walk it with: the items of a page or a
// list (the schema's one array property), the object under a wrapper
// property the map does not have for t.
func PartSchema(fm *FieldMap, schema *base.Schema, t reflect.Type) (*base.Schema, reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Page[") {
		f, _ := t.FieldByName("Items")
		t = f.Type
	}
	props := SchemaProperties(schema)
	switch t.Kind() {
	case reflect.Slice:
		if len(schema.Type) > 0 && schema.Type[0] == "array" {
			return schema, t
		}
		var arrays []*base.Schema
		for _, p := range props {
			if p != nil && len(p.Type) > 0 && p.Type[0] == "array" {
				arrays = append(arrays, p)
			}
		}
		if len(arrays) == 1 {
			return arrays[0], t
		}
	case reflect.Struct:
		if len(props) == 1 {
			for k, p := range props {
				if _, _, mapped := fm.Lookup(t, k); !mapped && p != nil && len(SchemaProperties(p)) > 0 {
					return p, t
				}
			}
		}
	}
	return schema, t
}

// reshapeTarget reports a map row that names where a Reshape row of the
// allow-list puts a property (not a property of the OpenAPI itself).
func reshapeTarget(rs []*Reshape, typ, prop string) bool {
	for _, r := range rs {
		for _, into := range r.Into {
			if into == prop && typ != "" {
				return true
			}
		}
	}
	return false
}

// op0Reshapes returns the Reshape of every allow-list row.
func op0Reshapes() []*Reshape {
	var out []*Reshape
	for _, d := range AllowList {
		if d.Reshape != nil {
			out = append(out, d.Reshape)
		}
	}
	return out
}
