package form

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tier int

func (t tier) String() string { return "tier-" + string(rune('0'+int(t))) }

type flag bool

func (f flag) String() string {
	if f {
		return "yes"
	}
	return "no"
}

type label string

func (l label) String() string { return "<" + string(l) + ">" }

type inner struct {
	City  string  `url:"city,omitempty"`
	Zip   *string `url:"zip"` // nil: "zip=" (no omitempty)
	Level tier    `url:"level,omitempty"`
}

type planned struct {
	Name       string `url:"name"`
	Empty      string `url:"empty"`
	Omitted    string `url:"omitted,omitempty"`
	Count      int    `url:"count"`
	Neg        int64  `url:"neg,omitempty"`
	Big        uint64 `url:"big,omitempty"`
	Small      uint8  `url:"small"`
	On         bool   `url:"on"`
	Off        bool   `url:"off,omitempty"`
	OnPtr      *bool  `url:"onPtr,omitempty"`
	NilPtr     *bool  `url:"nilPtr"`
	NilStruct  *inner `url:"nilStruct"`
	NilOmit    *inner `url:"nilOmit,omitempty"`
	Addr       *inner `url:"addr,omitempty"`
	Value      inner  `url:"value"`
	Tier       tier   `url:"tier"`
	Flag       flag   `url:"flag"`
	Label      label  `url:"label"`
	LabelPtr   *label `url:"labelPtr,omitempty"`
	NoTag      string // named by the field
	OptsOnly   string `url:",omitempty"`
	Bracketed  string `url:"a[b]"`
	Escaped    string `url:"k y&=é"`
	Dup1       string `url:"dup"`
	Dup2       string `url:"dup"`
	Skipped    string `url:"-"`
	unexported string //nolint:unused // must be ignored
	Zed        string `url:"a"` // sorts first
}

// reference is the encoding Body must reproduce: go-querystring, dotted
// names, url.Values.Encode.
func reference(t *testing.T, v any) string {
	t.Helper()
	vals, err := Values(v)
	require.NoError(t, err)
	return vals.Encode()
}

func TestPlanMatchesGoQuerystring(t *testing.T) {
	yes, zip, lab := true, "78 701", label("x")
	full := &planned{
		Name: "Jane Doe & co", Count: 0, Neg: -42, Big: 1 << 63, Small: 7, On: true, OnPtr: &yes,
		Addr: &inner{City: "Austin", Zip: &zip, Level: 3}, Value: inner{City: "Ñ"},
		Tier: 2, Flag: true, Label: "l", LabelPtr: &lab, NoTag: "n", OptsOnly: "o", Bracketed: "b",
		Escaped: "e?#", Dup1: "first", Dup2: "second", Skipped: "s", unexported: "u", Zed: "z",
	}
	for _, v := range []any{full, *full, &planned{}, planned{}} {
		p, _, ok := planOf(v)
		require.True(t, ok, "%T not planned", v)
		require.NotNil(t, p, "%T not planned", v)
		got, err := Body(v)
		require.NoError(t, err)
		want := reference(t, v)
		assert.Equal(t, want, string(got), "Body(%T)\n got  %s\n want %s", v, got, want)
	}
}

type withSlice struct {
	Tags []string `url:"tags"`
}

type withTime struct {
	At time.Time `url:"at"`
}

type withFloat struct {
	F float64 `url:"f"`
}

type withIntOpt struct {
	B bool `url:"b,int"`
}

type base struct {
	ID string `url:"id"`
}

type withEmbedded struct {
	base
	Name string `url:"name"`
}

type encoded string

func (e encoded) EncodeValues(key string, v *url.Values) error {
	v.Add(key, "custom:"+string(e))
	return nil
}

type withEncoder struct {
	E encoded `url:"e"`
}

type recursive struct {
	Name string     `url:"name"`
	Next *recursive `url:"next,omitempty"`
}

type withPtrPtr struct {
	P **string `url:"p"`
}

type withNestedSlice struct {
	In struct {
		L []int `url:"l"`
	} `url:"in"`
}

var _ query.Encoder = encoded("")

// TestUnplannedTypesFallBack checks that types the plan does not cover
// are not planned, and are still encoded exactly as go-querystring does.
func TestUnplannedTypesFallBack(t *testing.T) {
	s := "x"
	ps := &s
	for _, v := range []any{
		&withSlice{Tags: []string{"a", "b"}}, &withTime{At: time.Unix(1700000000, 0).UTC()}, &withFloat{F: 1.5},
		&withIntOpt{B: true}, &withEmbedded{base: base{ID: "1"}, Name: "n"}, &withEncoder{E: "v"},
		&withPtrPtr{P: &ps}, &withNestedSlice{}, &recursive{Name: "a", Next: &recursive{Name: "b"}},
	} {
		_, _, ok := planOf(v)
		assert.False(t, ok, "%T is planned", v)
		got, err := Body(v)
		require.NoError(t, err)
		want := reference(t, v)
		assert.Equal(t, want, string(got), "Body(%T) = %s, want %s", v, got, want)
	}
	for _, v := range []any{nil, (*planned)(nil), 42} {
		_, _, ok := planOf(v)
		assert.False(t, ok, "%#v is planned", v)
	}
}
