package contract

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi-validator/strict"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// webhookNames maps the spellings the spec and DESIGN use for an event
// type to the OpenAPI's webhook names.
var webhookNames = map[string]string{"Complete": "Completed", "Expire": "Expired"}

// EventDifferences validates a notification's fields against the OpenAPI's
// schema of its event type (by the webhook's name), in strict mode, with
// libopenapi-validator: the fields are read into an object (a dotted name
// nested where the schema has the object, kept whole where it has the
// dotted name; "true"/"false" as booleans where the schema says boolean).
// An event type the OpenAPI does not list is one difference.
func EventDifferences(spec *Spec, fields url.Values) []string {
	name := fields.Get("eventType")
	if n, ok := webhookNames[name]; ok {
		name = n
	}
	schema := spec.Webhooks[name]
	if schema == nil {
		return []string{fmt.Sprintf("event type %q is not in the OpenAPI", fields.Get("eventType"))}
	}
	obj := FormObject(schema, fields)
	return ValidateObject(schema, obj, "event field")
}

// ValidateObject validates obj against schema with libopenapi-validator's
// schema validator and its strict mode (an undeclared field is an error);
// what names the fields in the descriptions ("event field", "form field").
func ValidateObject(schema *base.Schema, obj map[string]any, what string) []string {
	var out []string
	_, errs := schema_validation.NewSchemaValidator().ValidateSchemaObject(schema, obj)
	for _, e := range errs {
		out = append(out, Describe(e)...)
	}
	opts := config.NewValidationOptions(config.WithStrictMode())
	for _, u := range strict.ValidateBody(schema, obj, strict.DirectionRequest, opts, 3.1).UndeclaredValues {
		out = append(out, fmt.Sprintf("strict/undeclared-property: %s %q at %s is not declared", what, u.Name, u.Path))
	}
	sort.Strings(out)
	return out
}

// FormObject reads form fields as the JSON object schema describes: a
// dotted name nests where the schema has the object ("beneficiary.address.
// country"), and stays whole where the schema has the dotted name itself;
// a value is a boolean or a number where the schema says so and it reads
// as one, a string otherwise.
func FormObject(schema *base.Schema, fields url.Values) map[string]any {
	obj := map[string]any{}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		holder, s, key := obj, schema, k
		for {
			head, rest, ok := strings.Cut(key, ".")
			if !ok || PropertySchema(s, key) != nil {
				break
			}
			ps := PropertySchema(s, head)
			if ps == nil || !(slices.Contains(ps.Type, "object") || (ps.Properties != nil && ps.Properties.Len() > 0)) {
				break
			}
			inner, _ := holder[head].(map[string]any)
			if inner == nil {
				inner = map[string]any{}
				holder[head] = inner
			}
			holder, s, key = inner, ps, rest
		}
		v := fields.Get(k)
		var val any = v
		if ps := PropertySchema(s, key); ps != nil {
			switch {
			case slices.Contains(ps.Type, "boolean") && (v == "true" || v == "false"):
				val = v == "true"
			case slices.Contains(ps.Type, "number") || slices.Contains(ps.Type, "integer"):
				if n := json.Number(v); json.Valid([]byte(v)) && v != "" && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
					val = n
				}
			}
		}
		holder[key] = val
	}
	return obj
}

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
