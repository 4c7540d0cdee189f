package bankpay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func claim(t *testing.T, d Deduplicator, id string) ClaimState {
	t.Helper()
	st, err := d.Claim(context.Background(), id)
	require.NoError(t, err)
	return st
}

func TestMemoryDeduplicatorStates(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(10)
	st := claim(t, d, "a")
	require.Equal(t, ClaimNew, st, "first claim %v", st)
	st = claim(t, d, "a")
	assert.Equal(t, ClaimInProgress, st, "second claim %v", st)
	_ = d.Release(ctx, "a")
	st = claim(t, d, "a")
	assert.Equal(t, ClaimNew, st, "after release %v", st)
	_ = d.Complete(ctx, "a")
	st = claim(t, d, "a")
	assert.Equal(t, ClaimDone, st, "after complete %v", st)
	_ = d.Release(ctx, "a") // a processed event is not forgotten by a release
	st = claim(t, d, "a")
	assert.Equal(t, ClaimDone, st, "release after complete %v", st)
	_ = d.Complete(ctx, "a") // completing twice keeps one entry
	assert.Equal(t, 1, d.len(), "len %d", d.len())
}

func TestMemoryDeduplicatorBound(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(3)
	for i := 0; i < 5; i++ {
		id := fmt.Sprint("ev-", i)
		claim(t, d, id)
		_ = d.Complete(ctx, id)
	}
	assert.Equal(t, 3, d.len(), "len %d, want 3", d.len())
	for i, want := range []ClaimState{ClaimNew, ClaimNew, ClaimDone, ClaimDone, ClaimDone} {
		st, _ := d.Claim(ctx, fmt.Sprint("ev-", i))
		assert.Equal(t, want, st, "ev-%d: %v, want %v (oldest forgotten first)", i, st, want)
	}
	// In-progress claims are not evicted by completions.
	d = newMemoryDeduplicator(1)
	claim(t, d, "busy")
	for i := 0; i < 3; i++ {
		_ = d.Complete(ctx, fmt.Sprint("x", i))
	}
	st := claim(t, d, "busy")
	assert.Equal(t, ClaimInProgress, st, "in-progress claim evicted: %v", st)
	assert.Equal(t, 2, d.len(), "len %d", d.len())
}

func TestMemoryDeduplicatorDefaultCapacity(t *testing.T) {
	d := newMemoryDeduplicator(0)
	assert.Equal(t, defaultDedupCapacity, d.capacity, "capacity %d", d.capacity)
	d = newMemoryDeduplicator(-5)
	assert.Equal(t, defaultDedupCapacity, d.capacity, "capacity %d", d.capacity)
}

func TestMemoryDeduplicatorConcurrentClaims(t *testing.T) {
	d := newMemoryDeduplicator(100)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, _ := d.Claim(context.Background(), "same"); st == ClaimNew {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load(), "%d goroutines own the same eventId", wins.Load())
}

func TestClaimStateString(t *testing.T) {
	for st, s := range map[ClaimState]string{ClaimNew: "new", ClaimInProgress: "in progress", ClaimDone: "done", 7: "unknown"} {
		assert.Equal(t, s, st.name(), "%d: %s", st, st.name())
	}
}
