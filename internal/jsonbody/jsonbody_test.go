package jsonbody

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/testmain"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

type code int

type upper string

// MarshalText writes the value in upper case: encoding/json calls it.
func (u upper) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(u))), nil }

type money struct{ cents int64 }

// MarshalJSON has a pointer receiver: encoding/json calls it for an
// addressable field.
func (m *money) MarshalJSON() ([]byte, error) {
	return []byte(`{"cents": ` + json.Number(rune('0'+m.cents%10)).String() + `}`), nil
}

type address struct {
	City    string `json:"city,omitempty"`
	Country string `json:"country"`
}

type node struct {
	Name string `json:"name"`
	Next *node  `json:"next,omitempty"`
}

type params struct {
	Name     string            `json:"name"`
	Note     string            `json:"note,omitempty"`
	Code     code              `json:"code,omitempty"`
	Small    int8              `json:"small"`
	Big      uint64            `json:"big,omitempty"`
	On       bool              `json:"on"`
	Off      bool              `json:"off,omitempty"`
	Count    *int              `json:"count"`
	Maybe    *bool             `json:"maybe,omitempty"`
	Label    *string           `json:"label,omitempty"`
	Home     address           `json:"home"`
	Work     *address          `json:"work,omitempty"`
	Other    *address          `json:"other"`
	Rate     float64           `json:"rate,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Meta     map[string]string `json:"meta,omitempty"`
	Any      any               `json:"any,omitempty"`
	Shout    upper             `json:"shout,omitempty"`
	Price    money             `json:"price"`
	When     *time.Time        `json:"when,omitempty"`
	Chain    *node             `json:"chain,omitempty"`
	Untagged string
	Skipped  string `json:"-"`
	hidden   string //nolint:unused // unexported: never written
}

func TestMarshal_SameAsEncodingJSON(t *testing.T) {
	n, yes, label := 7, true, "l<b>&"
	when := time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC)
	cases := map[string]any{
		"zero":     &params{},
		"full":     &params{Name: "Jane", Note: "n", Code: -3, Small: -128, Big: 1<<64 - 1, On: true, Off: true, Count: &n, Maybe: &yes, Label: &label, Home: address{City: "Austin", Country: "US"}, Work: &address{}, Rate: math.Copysign(0, -1), Tags: []string{"a"}, Meta: map[string]string{"k": "v"}, Any: 1.5, Shout: "hi", Price: money{cents: 42}, When: &when, Chain: &node{Name: "a", Next: &node{Name: "b"}}, Untagged: "u", Skipped: "s", hidden: "h"},
		"escapes":  &params{Name: "a\"b\\c\n\t<x>&\u2028é\xff\x00", Home: address{Country: "\x7f"}},
		"empties":  &params{Tags: []string{}, Meta: map[string]string{}, Any: (*int)(nil)},
		"tokenize": &models.Tokenization{MerchantID: "110005514", Account: &models.Account{Type: 1, AccountNumber: "100000001", RoutingNumber: "124003116"}},
		"customer": &models.Tokenization{MerchantID: "m", Account: &models.Account{IBAN: "DE89370400440532013000", NameOnAccount: "Zoë <Ltd> & Co"}, Customer: &models.Customer{Name: "Jane", Email: "j@example.com", VIP: &n}},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			require.NoError(t, err)
			got, err := Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// The SDK's JSON bodies take the plan: none of their types falls back to
// encoding/json as a whole.
func TestMarshal_SDKBodiesArePlanned(t *testing.T) {
	for _, v := range []any{models.Tokenization{}, params{}} {
		assert.NotNil(t, planFor(reflect.TypeOf(v)), "%T", v)
	}
}

type embedded struct {
	address
	Name string `json:"name"`
}

type stringOpt struct {
	N int `json:"n,string"`
}

// dup has two fields named X: the tagged one and the untagged one.
type dup struct {
	A string `json:"X"`
	X string
}

type oddName struct {
	A string `json:"naïve"`
}

// punctNames has names with the punctuation encoding/json takes, two of
// them escaped in the key (<, &).
type punctNames struct {
	A string `json:"metadata.remittance.withdrawalMethod,omitempty"`
	B int    `json:"a-b"`
	C bool   `json:"<x&y> z"`
	D string `json:"!#$%()*+/:;=?@[]^_{|}~"`
}

// Names with punctuation are planned and keyed as encoding/json keys them.
func TestMarshal_PunctuationNames(t *testing.T) {
	for _, v := range []*punctNames{{}, {A: "card", B: 2, C: true, D: "d"}} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	assert.True(t, Planned(&punctNames{}))
}

type omitZero struct {
	A address `json:"a,omitzero"`
}

// Types the plan does not follow go to encoding/json whole, with its
// result.
func TestMarshal_UnplannedTypesAsEncodingJSON(t *testing.T) {
	cases := []any{
		&embedded{address: address{City: "c"}, Name: "n"},
		&stringOpt{N: 5},
		&dup{A: "a", X: "b"},
		&oddName{A: "a"},
		&omitZero{},
		&money{cents: 3},
		address{City: "not a pointer"},
		(*address)(nil),
		map[string]int{"a": 1},
	}
	for _, v := range cases {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%T", v)
	}
	for _, v := range []any{embedded{}, stringOpt{}, dup{}, oddName{}, omitZero{}} {
		assert.Nil(t, planFor(reflect.TypeOf(v)), "%T", v)
	}
}

// A field encoding/json cannot encode (NaN) is its error.
func TestMarshal_Error(t *testing.T) {
	v := &params{Rate: math.NaN()}
	_, want := json.Marshal(v)
	require.Error(t, want)
	_, err := Marshal(v)
	require.Error(t, err)
	assert.Equal(t, want.Error(), err.Error())
}

func FuzzMarshal(f *testing.F) {
	f.Add("Jane", "Austin", "US", int64(5), uint32(7), true)
	f.Add("<\"\\\u2028>", "", "\xff", int64(-1), uint32(0), false)
	f.Fuzz(func(t *testing.T, name, city, country string, code int64, big uint32, on bool) {
		v := &params{Name: name, Note: city, Code: code2(code), Big: uint64(big), On: on,
			Home: address{City: city, Country: country}, Label: &country, Work: &address{City: name}}
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	})
}

func code2(n int64) code { return code(n) }

type widths struct {
	I8   int8    `json:"i8"`
	I16  int16   `json:"i16"`
	I32  int32   `json:"i32"`
	I64  int64   `json:"i64"`
	I    int     `json:"i"`
	U8   uint8   `json:"u8"`
	U16  uint16  `json:"u16"`
	U32  uint32  `json:"u32"`
	U64  uint64  `json:"u64"`
	U    uint    `json:"u"`
	P16  *int16  `json:"p16"`
	PU32 *uint32 `json:"pu32,omitempty"`
	B    bool    `json:"b"`
	S    string  `json:"s"`
}

// Every integer width is read at its own size, at its extremes, directly
// and through a pointer, next to its neighbors.
func TestMarshal_IntegerWidths(t *testing.T) {
	p16, pu32 := int16(math.MinInt16), uint32(math.MaxUint32)
	for _, v := range []*widths{
		{I8: math.MinInt8, I16: math.MinInt16, I32: math.MinInt32, I64: math.MinInt64, I: math.MinInt, B: true, S: "s"},
		{I8: math.MaxInt8, I16: math.MaxInt16, I32: math.MaxInt32, I64: math.MaxInt64, I: math.MaxInt,
			U8: math.MaxUint8, U16: math.MaxUint16, U32: math.MaxUint32, U64: math.MaxUint64, U: math.MaxUint, P16: &p16, PU32: &pu32},
		{I8: -1, U8: 1, I16: -2, U16: 2, I32: -3, U32: 3},
	} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
}

// A nil pointer of a planned type is null; the buffer of a plan's next
// body is as large as the longest body written from it (up to maxHint).
func TestMarshal_NilAndSizeHint(t *testing.T) {
	got, err := Marshal((*widths)(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(got))

	long := &address{City: strings.Repeat("c", 300)}
	got, err = Marshal(long)
	require.NoError(t, err)
	p := ptrPlanFor(reflect.TypeOf(long))
	require.NotNil(t, p)
	assert.Equal(t, len(got), p.sizeHint())
	b, err := Marshal(&address{City: "short"})
	require.NoError(t, err)
	assert.Equal(t, len(got), cap(b), "made at the hint: never grown")

	huge := &address{City: strings.Repeat("h", maxHint)}
	_, err = Marshal(huge)
	require.NoError(t, err)
	assert.Equal(t, len(got), p.sizeHint(), "a body over maxHint does not raise the hint")
}

// Planned: a pointer to a planned struct type, and nothing else.
func TestPlanned(t *testing.T) {
	assert.True(t, Planned(&params{}))
	assert.True(t, Planned((*models.Tokenization)(nil)))
	assert.False(t, Planned(params{}))
	assert.False(t, Planned(&embedded{}))
	assert.False(t, Planned(map[string]int{}))
	assert.False(t, Planned(nil))
}

type withNumber struct {
	Amount json.Number  `json:"amount"`
	Fee    *json.Number `json:"fee,omitempty"`
	Empty  json.Number  `json:"empty"`
}

// A json.Number is written as encoding/json writes it: a number, not a
// string ("0" when empty).
func TestMarshal_JSONNumber(t *testing.T) {
	fee := json.Number("0.25")
	v := &withNumber{Amount: "12.50", Fee: &fee}
	require.True(t, Planned(v))
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	bad := &withNumber{Amount: "12,50"}
	_, wantErr := json.Marshal(bad)
	require.Error(t, wantErr)
	_, err = Marshal(bad)
	assert.Error(t, err)
}

type namedPtr *string

type loop struct {
	Name string `json:"name"`
	Self *loop  `json:"self"`
}

type odd struct {
	Raw      json.RawMessage `json:"raw"`
	RawSet   json.RawMessage `json:"rawSet,omitempty"`
	When     time.Time       `json:"when,omitempty"`
	P        namedPtr        `json:"p"`
	PP       **string        `json:"pp,omitempty"`
	U        uintptr         `json:"u"`
	Num      any             `json:"num"`
	Arr      [2]int8         `json:"arr,omitempty"`
	Bytes    []byte          `json:"bytes"`
	Min      int64           `json:"min"`
	Max      uint64          `json:"max"`
	Ctl      string          `json:"ctl"`
	Empty    struct{}        `json:"empty,omitempty"`
	NilSlice []string        `json:"nilSlice"`
	NoSlice  []string        `json:"noSlice"`
}

// Fields of kinds and types the plan hands to encoding/json, or reads
// itself at the edges of their ranges, are the bytes json.Marshal writes;
// a cycle is encoding/json's error.
func TestMarshal_EdgeKindsAsEncodingJSON(t *testing.T) {
	s := "a\u2028<b>&\x7f\xff"
	ps := &s
	v := &odd{RawSet: json.RawMessage(`{"a" : [1, 2]}`), P: namedPtr(ps), PP: &ps, U: 7,
		Num: json.Number("1.5"), Arr: [2]int8{-1, 0}, Bytes: []byte{0, 1, 2}, Min: math.MinInt64,
		Max: math.MaxUint64, Ctl: "\t\n\x00", NoSlice: []string{}}
	require.True(t, Planned(v), "written from a plan, not whole by encoding/json")
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	l := &loop{Name: "x"}
	l.Self = l
	require.True(t, Planned(l))
	_, wantErr := json.Marshal(l)
	require.Error(t, wantErr)
	_, err = Marshal(l)
	assert.Error(t, err)
}
