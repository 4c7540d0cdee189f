package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"

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
// generator fixes (see GeneratorFixes): a string of format int64 or int32
// becomes digits (the renderer ignores those formats), and a number of the
// contract's (all of them are counts, codes, ids or epoch times) is whole,
// written as a double ("7.0"). The same seed and mode give the same answer.
func Generate(schema *base.Schema, seed int64, mode Mode) (any, error) {
	r := renderer.CreateRendererUsingDictionary(WordsFile)
	if mode == All {
		r.DisableRequiredCheck()
	}
	r.SetSeed(seed)
	v, err := r.RenderSchemaWithError(schema)
	if err != nil {
		return nil, fmt.Errorf("contract: render: %w", err)
	}
	// A round trip through JSON gives the plain types (map[string]any,
	// []any, float64) the fixes walk.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("contract: render: %w", err)
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(seed))
	return fix(plain, schema, rng), nil
}

// fix applies the generator fixes to v, rendered from s.
func fix(v any, s *base.Schema, rng *rand.Rand) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			x[k] = fix(val, PropertySchema(s, k), rng)
		}
	case []any:
		items := ItemsSchema(s)
		for i := range x {
			x[i] = fix(x[i], items, rng)
		}
	case float64:
		if slices.Contains(s.Type, "number") && !slices.Contains(s.Type, "integer") {
			n := x
			if n != math.Trunc(n) {
				n = math.Trunc(n * 1000)
			}
			return json.Number(strconv.FormatInt(int64(n), 10) + ".0")
		}
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
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
