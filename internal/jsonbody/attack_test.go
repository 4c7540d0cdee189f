package jsonbody

import (
	"encoding/json"
	"testing"

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
