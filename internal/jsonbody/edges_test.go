package jsonbody

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
