package contract

import (
	"encoding/json"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Shapes of a single-object answer.
const (
	ShapeAsIs    = "as the OpenAPI" // the body is the shape of the operation's schema
	ShapeWrapped = "wrapped (spec)" // {"transaction":{…}} where the OpenAPI's object is bare
	ShapeBare    = "bare"           // the object where the OpenAPI wraps it ({"customer":{…}})
)

// ClaimedShape tells which shape an answer body claims and returns the body
// to validate against the operation's schema: a wrapped answer (one key the
// schema has no property for, holding an object) is validated by its inner
// object; a bare answer of a schema that wraps its object (one object
// property the body lacks) is validated wrapped. Anything else is validated
// as it is.
func ClaimedShape(schema *base.Schema, body []byte) (string, []byte) {
	var v any
	if schema == nil || json.Unmarshal(body, &v) != nil {
		return ShapeAsIs, body
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return ShapeAsIs, body
	}
	if len(obj) == 1 {
		for k, inner := range obj {
			if _, isObj := inner.(map[string]any); isObj && PropertySchema(schema, k) == nil {
				b, _ := json.Marshal(inner)
				return ShapeWrapped, b
			}
		}
	}
	if schema.Properties != nil && schema.Properties.Len() == 1 {
		for name, p := range schema.Properties.FromOldest() {
			ps := p.Schema()
			if _, has := obj[name]; !has && ps != nil && (len(ps.Type) == 0 || ps.Type[0] == "object") && len(obj) > 0 {
				b, _ := json.Marshal(map[string]any{name: obj})
				return ShapeBare, b
			}
		}
	}
	return ShapeAsIs, body
}
