// Package form encodes params structs as application/x-www-form-urlencoded
// values with dotted names for nested fields ("beneficiary.address.city"),
// the encoding the service's deposit and capture calls use. It runs
// go-querystring (which scopes nested names as parent[child]) and rewrites
// the scoped names to dotted ones.
package form

import (
	"net/url"
	"strings"

	"github.com/google/go-querystring/query"
)

// Values encodes v (a struct or a pointer to one, with `url` tags) as form
// values with dotted nested names.
func Values(v any) (url.Values, error) {
	raw, err := query.Values(v)
	if err != nil {
		return nil, err
	}
	// Rename in place: an entry added during the range is either skipped
	// or visited with a dotted name, which has no "[" and is left alone.
	for k, vs := range raw {
		if strings.Contains(k, "[") {
			delete(raw, k)
			raw[Dotted(k)] = vs
		}
	}
	return raw, nil
}

// Body is Values(v) encoded by url.Values.Encode: sorted by name, the
// values of a repeated name in field order.
func Body(v any) ([]byte, error) {
	vals, err := Values(v)
	if err != nil {
		return nil, err
	}
	return []byte(vals.Encode()), nil
}

// Dotted turns a go-querystring scoped name, a[b][c], into a.b.c.
func Dotted(name string) string {
	if !strings.Contains(name, "[") {
		return name
	}
	return dotter.Replace(name)
}

// dotter is immutable and safe for concurrent use.
var dotter = strings.NewReplacer("][", ".", "[", ".", "]", "")
