package jsonr

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

func TestInt(t *testing.T) {
	for s, want := range map[string]int64{"2": 2, "-7": -7, "02": 2, "+5": 5, " 3 ": 3, "2.0": 2, "2e1": 20, "-1.50e2": -150, "-0": 0} {
		got, ok := Int(s)
		require.True(t, ok, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "2.5", "x", "1e40", "99999999999999999999", "-", "0x1"} {
		_, ok := Int(s)
		assert.False(t, ok, s)
	}
}

func TestAmountOfNumber(t *testing.T) {
	for n, want := range map[string]string{"125": "125.00", "125.5": "125.50", "0.5": "0.50", "0": "0.00", "10.50": "10.50",
		"1.234": "1.234", "-1.5": "-1.50", "1e2": "100.00", "0.05": "0.05", "1.50e1": "15.00", "-0.0": "0.00", "1e99": "1e99"} {
		assert.Equal(t, want, AmountOfNumber(n), n)
	}
}

// Skip checks what it passes as encoding/json does, and the reader never
// reads past an error.
func TestSkipAgreesWithValid(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":null}],"c":"\u00e9\"x"}`, `[1,2`, `{"a" 1}`, `{"a":1,}`, `[01]`, `"x`,
		"\"a\x01\"", `tru`, `-`, `1.`, `1e`, `{"a":1}x`, ` [ true , false , null ] `, `{"a":{"b":{"c":[[]]}}}`} {
		var r Reader
		r.Reset([]byte(s))
		r.Skip()
		err := r.End()
		assert.Equal(t, json.Valid([]byte(s)), err == nil, "%q: %v", s, err)
	}
}

func FuzzSkip(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":null}],"c":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Reader
		r.Reset(data)
		r.Skip()
		err := r.End()
		require.Equal(t, json.Valid(data), err == nil, "%q: %v", data, err)
	})
}

// The run of plain bytes ends at the first byte that is not plain, at
// every offset from an eight-byte boundary, for every byte.
func TestPlainRun(t *testing.T) {
	for c := 0; c < 256; c++ {
		for at := 0; at < 20; at++ {
			b := []byte("abcdefghijklmnopqrstuvwxyz")
			b[at] = byte(c)
			want := len(b)
			for i, x := range b {
				if !plainByte[x] {
					want = i
					break
				}
			}
			for from := 0; from <= at; from++ {
				require.Equal(t, want, plainRun(b, from), "byte %#x at %d, from %d", c, at, from)
			}
		}
	}
}

// The run of plain bytes from any offset of any buffer ends where the
// table's byte-at-a-time run ends.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte("abcdefgh\"ijklmnop"), uint8(0))
	f.Add([]byte("\x7f\x80\xff\x1f\\ \x21\x22\x23\x5b\x5c\x5d"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		i := int(from)
		if i > len(b) {
			i = len(b)
		}
		want := i
		for want < len(b) && plainByte[b[want]] {
			want++
		}
		require.Equal(t, want, plainRun(b, i), "%q from %d", b, i)
	})
}
