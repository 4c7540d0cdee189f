package bankpay

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseQuery checks parseQuery against url.ParseQuery: the same values
// and the same error, and values that can be appended to without touching
// another key's.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "a=1&b=2&a=3", "a&b=&=c&&", "a=1;b=2&c=3", "x=%zz&y=%41&z=%", "k%zz=1&k=2",
		"a+b=c+d&%E2%82%AC=%e2%82%ac", strings.Repeat("p=1&", 70), "a=1&a=2&a=3&b=1", ";&;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, err := parseQuery(q)
		want, werr := url.ParseQuery(q)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("parseQuery(%q) error %v, url.ParseQuery %v", q, err, werr)
		}
		if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("parseQuery(%q) = %v, url.ParseQuery %v", q, got, want)
		}
		snapshot := url.Values{}
		for k, vs := range got {
			snapshot[k] = append([]string(nil), vs...)
		}
		for k := range got {
			got[k] = append(got[k], "appended")
		}
		for k, vs := range got {
			if !reflect.DeepEqual(vs[:len(vs)-1], snapshot[k]) {
				t.Fatalf("appending to one key changed %q: %v, was %v", k, vs, snapshot[k])
			}
		}
	})
}
