package memdedup

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// complete claims and completes key with keep.
func complete(t *testing.T, m *Store[int], key string, keep time.Duration) {
	t.Helper()
	st, token, err := m.Claim(context.Background(), key)
	require.NoError(t, err)
	require.Equal(t, stateNew, st, "%s: state %d", key, st)
	require.NoError(t, m.Complete(context.Background(), key, token, keep))
}

func state(t *testing.T, m *Store[int], key string) int {
	t.Helper()
	st, _, err := m.Claim(context.Background(), key)
	require.NoError(t, err)
	return st
}

// A mark is kept for its keep whatever the capacity, and forgotten, oldest
// first, once its keep has passed and the capacity is exceeded.
func TestCompleteKeepsMarksForTheirKeep(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := New[int](2)
	m.SetClock(func() time.Time { return now })
	for i := range 5 {
		complete(t, m, fmt.Sprint("ev-", i), time.Hour)
		now = now.Add(time.Minute)
	}
	assert.Equal(t, 5, m.Len(), "marks within their keep were forgotten")
	for i := range 5 {
		assert.Equal(t, stateDone, state(t, m, fmt.Sprint("ev-", i)), "ev-%d", i)
	}
	now = now.Add(time.Hour) // ev-0..ev-4 past their keep
	complete(t, m, "ev-5", time.Hour)
	assert.Equal(t, 2, m.Len(), "marks past their keep beyond the capacity were kept")
	assert.Equal(t, stateDone, state(t, m, "ev-4"))
	assert.Equal(t, stateDone, state(t, m, "ev-5"))
	assert.Equal(t, stateNew, state(t, m, "ev-0"), "the oldest is forgotten first")
}

// Without a keep (the handler's max age off), the capacity alone bounds
// the marks.
func TestCompleteWithoutKeepIsBoundedByCapacity(t *testing.T) {
	m := New[int](2)
	for i := range 4 {
		complete(t, m, fmt.Sprint("ev-", i), 0)
	}
	assert.Equal(t, 2, m.Len())
	assert.Equal(t, stateNew, state(t, m, "ev-0"))
	assert.Equal(t, stateDone, state(t, m, "ev-3"))
}
