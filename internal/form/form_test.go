package form

import (
	"testing"
)

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
	if err != nil {
		t.Fatal(err)
	}
	got := v.Encode()
	want := "amount=10.00&beneficiary.address.city=Austin&beneficiary.address.country=US&beneficiary.name=Jane+Doe&instantPayoutRequest=true&merchantReference=r+1%262"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestValuesOmitsUnset(t *testing.T) {
	v, err := Values(&params{Ref: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Encode(); got != "merchantReference=x" {
		t.Fatalf("got %s", got)
	}
}

func TestDotted(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", "a[b]": "a.b", "a[b][c]": "a.b.c", "metadata[remittance][withdrawalMethod]": "metadata.remittance.withdrawalMethod",
	} {
		if got := Dotted(in); got != want {
			t.Errorf("Dotted(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDotted(f *testing.F) {
	for _, s := range []string{"a", "a[b]", "a[b][c]", "[", "]]", "a[[b]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Dotted(s)
		if len(out) > len(s) {
			t.Fatalf("Dotted grew %q to %q", s, out)
		}
	})
}
