package bankpay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/memdedup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claim claims id and returns its state and token.
func claim(t *testing.T, d Deduplicator, id string) (ClaimState, string) {
	t.Helper()
	st, token, err := d.Claim(context.Background(), id)
	require.NoError(t, err)
	if st == ClaimNew {
		require.NotEmpty(t, token, "a new claim without a token")
	} else {
		require.Empty(t, token, "a token without a claim")
	}
	return st, token
}

func TestMemoryDeduplicatorStates(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(10)
	st, tok := claim(t, d, "a")
	require.Equal(t, ClaimNew, st, "first claim %v", st)
	st, _ = claim(t, d, "a")
	assert.Equal(t, ClaimInProgress, st, "second claim %v", st)
	require.NoError(t, d.Release(ctx, "a", tok))
	st, tok2 := claim(t, d, "a")
	assert.Equal(t, ClaimNew, st, "after release %v", st)
	assert.NotEqual(t, tok, tok2, "each claim has its own token")
	require.NoError(t, d.Complete(ctx, "a", tok2, time.Hour))
	st, _ = claim(t, d, "a")
	assert.Equal(t, ClaimDone, st, "after complete %v", st)
	require.NoError(t, d.Release(ctx, "a", tok2)) // a processed event is not forgotten by a release
	st, _ = claim(t, d, "a")
	assert.Equal(t, ClaimDone, st, "release after complete %v", st)
	require.NoError(t, d.Complete(ctx, "a", tok2, time.Hour)) // completing twice keeps one entry
	assert.Equal(t, 1, d.Len(), "len %d", d.Len())
}

// A claim that is no longer current (released, then claimed again) changes
// nothing: its Release, Complete and Extend leave the new claim as it is.
func TestMemoryDeduplicatorFencing(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(10)
	_, stale := claim(t, d, "a")
	ttl, err := d.Extend(ctx, "a", stale)
	require.NoError(t, err)
	assert.Positive(t, ttl, "the current claim extends")
	require.NoError(t, d.Release(ctx, "a", stale))
	_, live := claim(t, d, "a")

	require.NoError(t, d.Release(ctx, "a", stale))
	st, _ := claim(t, d, "a")
	assert.Equal(t, ClaimInProgress, st, "a stale release removed the live claim")
	require.NoError(t, d.Complete(ctx, "a", stale, time.Hour))
	st, _ = claim(t, d, "a")
	assert.Equal(t, ClaimInProgress, st, "a stale completion marked the event done")
	ttl, err = d.Extend(ctx, "a", stale)
	require.NoError(t, err)
	assert.Zero(t, ttl, "a stale claim extends")
	ttl, err = d.Extend(ctx, "a", live)
	require.NoError(t, err)
	assert.Equal(t, memdedup.ClaimTTL, ttl)

	require.NoError(t, d.Complete(ctx, "a", live, time.Hour))
	st, _ = claim(t, d, "a")
	assert.Equal(t, ClaimDone, st)
	ttl, err = d.Extend(ctx, "a", live)
	require.NoError(t, err)
	assert.Zero(t, ttl, "a completed claim extends")
}

func TestMemoryDeduplicatorBound(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(3)
	for i := 0; i < 5; i++ {
		id := fmt.Sprint("ev-", i)
		_, tok := claim(t, d, id)
		require.NoError(t, d.Complete(ctx, id, tok, 0))
	}
	assert.Equal(t, 3, d.Len(), "len %d, want 3", d.Len())
	for i, want := range []ClaimState{ClaimNew, ClaimNew, ClaimDone, ClaimDone, ClaimDone} {
		st, _, _ := d.Claim(ctx, fmt.Sprint("ev-", i))
		assert.Equal(t, want, st, "ev-%d: %v, want %v (oldest forgotten first)", i, st, want)
	}
	// In-progress claims are not evicted by completions.
	d = newMemoryDeduplicator(1)
	claim(t, d, "busy")
	for i := 0; i < 3; i++ {
		id := fmt.Sprint("x", i)
		_, tok := claim(t, d, id)
		require.NoError(t, d.Complete(ctx, id, tok, 0))
	}
	st, _ := claim(t, d, "busy")
	assert.Equal(t, ClaimInProgress, st, "in-progress claim evicted: %v", st)
	assert.Equal(t, 2, d.Len(), "len %d", d.Len())
}

func TestMemoryDeduplicatorDefaultCapacity(t *testing.T) {
	d := newMemoryDeduplicator(0)
	assert.Equal(t, memdedup.DefaultCapacity, d.Capacity(), "capacity %d", d.Capacity())
	d = newMemoryDeduplicator(-5)
	assert.Equal(t, memdedup.DefaultCapacity, d.Capacity(), "capacity %d", d.Capacity())
}

func TestMemoryDeduplicatorConcurrentClaims(t *testing.T) {
	d := newMemoryDeduplicator(100)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, _, _ := d.Claim(context.Background(), "same"); st == ClaimNew {
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

// Keys are the accessId and the eventId, unambiguously: no accessId and
// eventId pair makes another pair's key.
func TestDedupKey(t *testing.T) {
	assert.Equal(t, "acc/ev-1", dedupKey("acc", "ev-1"))
	assert.NotEqual(t, dedupKey("a/b", "c"), dedupKey("a", "b/c"))
	assert.NotEqual(t, dedupKey("a%2Fb", "c"), dedupKey("a/b", "c"))
}
