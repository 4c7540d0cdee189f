package pipeline

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttemptBodyReader: every reader of a call's body reads it whole, from
// the start; only the length probe and the first attempt share the
// attempt's own reader, and each retry gets a new one (the transport may
// still be reading the last attempt's).
func TestAttemptBodyReader(t *testing.T) {
	a := &Call{req: &Request{Body: []byte(`{"a":1}`)}}
	probe, err := a.bodyReader()
	require.NoError(t, err)
	first, err := a.bodyReader()
	require.NoError(t, err)
	assert.Same(t, probe, first)
	got, err := io.ReadAll(first)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	retry, err := a.bodyReader()
	require.NoError(t, err)
	assert.NotSame(t, first, retry)
	got, err = io.ReadAll(retry)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	assert.IsType(t, &bytes.Reader{}, retry, "a reader net/http knows to be in memory")

	empty := &Call{req: &Request{}}
	r, err := empty.bodyReader()
	require.NoError(t, err)
	got, err = io.ReadAll(r)
	require.NoError(t, err)
	assert.Empty(t, got)
}
