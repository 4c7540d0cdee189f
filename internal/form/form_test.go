package form

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

type addr struct {
	City    string `url:"city,omitempty"`
	Country string `url:"country,omitempty"`
}

type party struct {
	Name    string `url:"name,omitempty"`
	Address *addr  `url:"address,omitempty"`
}

type params struct {
	Amount    string `url:"amount,omitempty"`
	Ref       string `url:"merchantReference"`
	Instant   *bool  `url:"instantPayoutRequest,omitempty"`
	Recipient *party `url:"beneficiary,omitempty"`
}

func TestValuesDotsNestedNames(t *testing.T) {
	yes := true
	v, err := Values(&params{Amount: "10.00", Ref: "r 1&2", Instant: &yes,
		Recipient: &party{Name: "Jane Doe", Address: &addr{City: "Austin", Country: "US"}}})
	require.NoError(t, err)
	got := v.Encode()
	want := "amount=10.00&beneficiary.address.city=Austin&beneficiary.address.country=US&beneficiary.name=Jane+Doe&instantPayoutRequest=true&merchantReference=r+1%262"
	require.Equal(t, want, got, "got  %s\nwant %s", got, want)
}

func TestValuesOmitsUnset(t *testing.T) {
	v, err := Values(&params{Ref: "x"})
	require.NoError(t, err)
	got := v.Encode()
	require.Equal(t, "merchantReference=x", got, "got %s", got)
}

func TestDotted(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", "a[b]": "a.b", "a[b][c]": "a.b.c", "metadata[remittance][withdrawalMethod]": "metadata.remittance.withdrawalMethod",
	} {
		got := Dotted(in)
		assert.Equal(t, want, got, "Dotted(%q) = %q, want %q", in, got, want)
	}
}

func FuzzDotted(f *testing.F) {
	for _, s := range []string{"a", "a[b]", "a[b][c]", "[", "]]", "a[[b]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Dotted(s)
		require.LessOrEqual(t, len(out), len(s), "Dotted grew %q to %q", s, out)
	})
}
