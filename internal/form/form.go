// Package form encodes params structs as application/x-www-form-urlencoded
// values with dotted names for nested fields ("beneficiary.address.city"),
// the encoding the service's deposit and capture calls use. It runs
// go-querystring (which scopes nested names as parent[child]) and rewrites
// the scoped names to dotted ones.
package form

import (
	"net/url"
	"slices"
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

// Body is Values(v) encoded, as url.Values.Encode would encode it. Structs
// made of strings, booleans, integers and nested structs (through at most
// one pointer each) are encoded from a plan computed once per type, without
// go-querystring's per-call reflection and maps (see plan.go); any other
// struct goes through Values.
func Body(v any) ([]byte, error) {
	if p, val, ok := planOf(v); ok {
		return p.encode(val), nil
	}
	vals, err := Values(v)
	if err != nil {
		return nil, err
	}
	return AppendEncode(nil, vals), nil
}

// AppendEncode appends v in URL-encoded form ("bar=baz&foo=quux", sorted by
// key) to dst: the bytes of v.Encode(), without its intermediate string.
func AppendEncode(dst []byte, v url.Values) []byte {
	if len(v) == 0 {
		return dst
	}
	var arr [16]string
	keys := arr[:0]
	n := 0
	for k, vs := range v {
		keys = append(keys, k)
		for _, s := range vs {
			n += len(k) + len(s) + 2
		}
	}
	slices.Sort(keys)
	dst = slices.Grow(dst, n+n/4) // a little room for escapes
	start := len(dst)
	for _, k := range keys {
		ek := url.QueryEscape(k)
		for _, s := range v[k] {
			if len(dst) > start {
				dst = append(dst, '&')
			}
			dst = append(dst, ek...)
			dst = append(dst, '=')
			dst = append(dst, url.QueryEscape(s)...)
		}
	}
	return dst
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
