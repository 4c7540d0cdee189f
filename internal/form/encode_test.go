package form

import (
	"fmt"
	"net/url"
	"testing"
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
		if got := string(AppendEncode(nil, v)); got != want {
			t.Errorf("AppendEncode = %q, want %q", got, want)
		}
		if got := string(AppendEncode([]byte("prefix:"), v)); got != "prefix:"+want {
			t.Errorf("AppendEncode after a prefix = %q, want %q", got, "prefix:"+want)
		}
	}
}

func TestBodyIsValuesEncoded(t *testing.T) {
	yes := true
	p := &params{Amount: "10.00", Ref: "r 1&2", Instant: &yes,
		Recipient: &party{Name: "Jane Doe", Address: &addr{City: "Austin", Country: "US"}}}
	v, err := Values(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Body(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != v.Encode() {
		t.Fatalf("Body = %s, want %s", b, v.Encode())
	}
	if _, err := Body(42); err == nil {
		t.Fatal("Body of a non-struct: no error")
	}
}
