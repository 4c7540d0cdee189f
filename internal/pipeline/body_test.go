package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCapped(t *testing.T) {
	for _, tc := range []struct {
		body string
		max  int64
		want string
		over bool
	}{
		{"hello", 5, "hello", false},
		{"hello", 4, "hell", true},
		{"", 0, "", false},
		{"h", 0, "", true},
	} {
		got, err := ReadCapped([]byte("x"), strings.NewReader(tc.body), tc.max)
		assert.Equal(t, "x"+tc.want, string(got), "%q max %d: appended to dst", tc.body, tc.max)
		if tc.over {
			assert.ErrorIs(t, err, ErrTooLarge, "%q max %d", tc.body, tc.max)
		} else {
			assert.NoError(t, err, "%q max %d", tc.body, tc.max)
		}
	}
}

// countingReader counts what is read of it.
type countingReader struct {
	r strings.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestReadCappedReadsNoMoreThanMaxPlusOne(t *testing.T) {
	r := &countingReader{r: *strings.NewReader(strings.Repeat("a", 1<<20))}
	_, err := ReadCapped(nil, r, 100)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Equal(t, 101, r.n)
}

func TestPutBufferDropsAHugeBuffer(t *testing.T) {
	huge := make([]byte, 0, maxPooledBuffer+1)
	PutBuffer(&huge)
	for range 100 {
		assert.LessOrEqual(t, cap(*GetBuffer()), maxPooledBuffer, "a buffer over the bound went back to the pool")
	}
}
