package form

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendEncodeMatchesEncode checks AppendEncode against url.Values.Encode
// on values that need escaping, repeat keys, are empty or have more keys
// than the sort's stack array.
func TestAppendEncodeMatchesEncode(t *testing.T) {
	many := url.Values{}
	for i := 0; i < 40; i++ {
		many.Set(fmt.Sprintf("k%02d", 39-i), fmt.Sprint(i))
	}
	for _, v := range []url.Values{
		nil,
		{},
		{"a": {""}},
		{"b": {"2", "1"}, "a": {"x y", "&=?#%+é"}, "k[é] ": {"v"}},
		{"merchantReference": {"r 1&2"}, "amount": {"10.00"}},
		many,
	} {
		want := v.Encode()
		got := string(AppendEncode(nil, v))
		assert.Equal(t, want, got, "AppendEncode = %q, want %q", got, want)
		got = string(AppendEncode([]byte("prefix:"), v))
		assert.Equal(t, "prefix:"+want, got, "AppendEncode after a prefix = %q, want %q", got, "prefix:"+want)
	}
}

func TestBodyIsValuesEncoded(t *testing.T) {
	yes := true
	p := &params{Amount: "10.00", Ref: "r 1&2", Instant: &yes,
		Recipient: &party{Name: "Jane Doe", Address: &addr{City: "Austin", Country: "US"}}}
	v, err := Values(p)
	require.NoError(t, err)
	b, err := Body(p)
	require.NoError(t, err)
	require.Equal(t, v.Encode(), string(b), "Body = %s, want %s", b, v.Encode())
	_, err = Body(42)
	require.Error(t, err, "Body of a non-struct: no error")
}
