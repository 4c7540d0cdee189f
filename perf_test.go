package bankpay

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
		require.Equal(t, werr == nil, err == nil, "parseQuery(%q) error %v, url.ParseQuery %v", q, err, werr)
		if err != nil {
			require.Equal(t, werr.Error(), err.Error(), "parseQuery(%q) error %v, url.ParseQuery %v", q, err, werr)
		}
		require.Len(t, got, len(want), "parseQuery(%q) = %v, url.ParseQuery %v", q, got, want)
		if len(want) > 0 {
			require.Equal(t, want, got, "parseQuery(%q) = %v, url.ParseQuery %v", q, got, want)
		}
		snapshot := url.Values{}
		for k, vs := range got {
			snapshot[k] = append([]string(nil), vs...)
		}
		for k := range got {
			got[k] = append(got[k], "appended")
		}
		for k, vs := range got {
			require.Equal(t, snapshot[k], vs[:len(vs)-1], "appending to one key changed %q: %v, was %v", k, vs, snapshot[k])
		}
	})
}
