package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/renderer"
)

// WordsFile is the committed word list every generated string is drawn from
// (relative to this module's directory), so that runs are deterministic.
const WordsFile = "testdata/words.txt"

// Mode is how much of a schema an answer fills.
type Mode int

const (
	// Required renders the properties a schema lists as required (all of
	// them when it lists none): the smallest answers the contract allows.
	Required Mode = iota
	// All renders every property.
	All
)

func (m Mode) String() string {
	if m == All {
		return "all"
	}
	return "required"
}

// Generate renders one answer for schema with libopenapi's renderer, seeded
// with seed and drawing words from the committed word list, then applies the
// generator's fixes: a string of format int64 or int32 becomes digits (the
// renderer ignores those formats); a schema that allows any value gets a
// word, an object, a number or null in turn (the renderer writes null); and
// a number the OpenAPI types as a double at a property the allow-list names
// in a "number-whole/…" row (a count, code, id or epoch time, which the SDK
// reads into an integer: see WholeNumber) is whole, written as a double
// ("7.0"); a double anywhere else stays as drawn. It returns the IDs of the
// rows that did so. The same seed and mode give the same answer.
func Generate(schema *base.Schema, seed int64, mode Mode) (any, []string, error) {
	r := renderer.CreateRendererUsingDictionary(WordsFile)
	if mode == All {
		r.DisableRequiredCheck()
	}
	r.SetSeed(seed)
	v, err := r.RenderSchemaWithError(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("contract: render: %w", err)
	}
	// A round trip through JSON gives the plain types (map[string]any,
	// []any, float64) the fixes walk.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("contract: render: %w", err)
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return nil, nil, err
	}
	f := &fixer{rng: rand.New(rand.NewSource(seed)), whole: map[string]bool{}}
	v = f.fix(plain, schema, "")
	rows := make([]string, 0, len(f.whole))
	for id := range f.whole {
		rows = append(rows, id)
	}
	sort.Strings(rows)
	return v, rows, nil
}

type fixer struct {
	rng   *rand.Rand
	whole map[string]bool // IDs of the number-whole rows used
}

// WholeNumber returns the allow-list row that lets the generator write the
// double at property prop (its holder schema's title, a dot, its name:
// "Payment.recordVersion") whole, or nil.
func WholeNumber(prop string) *Difference {
	for i := range AllowList {
		d := &AllowList[i]
		if d.Where == InAnswer && d.Line == "whole: "+prop {
			return d
		}
	}
	return nil
}

// fix applies the generator fixes to v, rendered from s, the value of
// property prop ("Title.name", "" at the top).
func (f *fixer) fix(v any, s *base.Schema, prop string) any {
	rng := f.rng
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			x[k] = f.fix(val, PropertySchema(s, k), strings.TrimPrefix(prop+"."+k, "."))
		}
	case []any:
		items := ItemsSchema(s)
		for i := range x {
			x[i] = f.fix(x[i], items, prop+"[]")
		}
	case float64:
		if row := WholeNumber(prop); row != nil && slices.Contains(s.Type, "number") && !slices.Contains(s.Type, "integer") {
			f.whole[row.ID] = true
			n := x
			if n != math.Trunc(n) {
				n = math.Trunc(n * 1000)
			}
			return json.Number(strconv.FormatInt(int64(n), 10) + ".0")
		}
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	case nil:
		if isAny(s) {
			return anyValue(rng)
		}
	case string:
		if len(s.Enum) > 0 {
			return x
		}
		switch s.Format {
		case "int64":
			if _, err := strconv.ParseInt(x, 10, 64); err != nil {
				return strconv.FormatInt(1_700_000_000_000+rng.Int63n(100_000_000_000), 10)
			}
		case "int32":
			if _, err := strconv.ParseInt(x, 10, 32); err != nil {
				return strconv.Itoa(rng.Intn(100_000))
			}
		}
	}
	return v
}

// PropertySchema returns the schema of property name of s (looking into
// allOf, oneOf and anyOf), or nil.
func PropertySchema(s *base.Schema, name string) *base.Schema {
	if s == nil {
		return nil
	}
	if s.Properties != nil {
		if p := s.Properties.GetOrZero(name); p != nil {
			return p.Schema()
		}
	}
	for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			if p := PropertySchema(sub.Schema(), name); p != nil {
				return p
			}
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
		return s.AdditionalProperties.A.Schema()
	}
	return nil
}

// ItemsSchema returns the schema of s's items, or nil.
func ItemsSchema(s *base.Schema) *base.Schema {
	if s == nil || s.Items == nil || !s.Items.IsA() {
		return nil
	}
	return s.Items.A.Schema()
}

// isAny reports a schema that says nothing of its value (no type, no
// properties, items, composition, enum or const): any JSON value is allowed.
func isAny(s *base.Schema) bool {
	return len(s.Type) == 0 && (s.Properties == nil || s.Properties.Len() == 0) && s.Items == nil &&
		len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 && len(s.Enum) == 0 && s.Const == nil
}

// anyValue draws a value for a schema that allows any (the renderer writes
// null): a word, an object, a number or null, so every shape is served.
func anyValue(rng *rand.Rand) any {
	w := wordList()
	word := func() string { return w[rng.Intn(len(w))] }
	switch rng.Intn(4) {
	case 0:
		return word()
	case 1:
		return map[string]any{"value": word(), "type": word(), "primary": true}
	case 2:
		return json.Number(strconv.Itoa(rng.Intn(1000)))
	}
	return nil
}

// wordList is the committed word list.
func wordList() []string { return strings.Split(strings.TrimSpace(string(words)), "\n") }
