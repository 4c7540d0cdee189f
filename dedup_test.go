package bankpay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

func claim(t *testing.T, d Deduplicator, id string) ClaimState {
	t.Helper()
	st, err := d.Claim(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestMemoryDeduplicatorStates(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(10)
	if st := claim(t, d, "a"); st != ClaimNew {
		t.Fatalf("first claim %v", st)
	}
	if st := claim(t, d, "a"); st != ClaimInProgress {
		t.Errorf("second claim %v", st)
	}
	_ = d.Release(ctx, "a")
	if st := claim(t, d, "a"); st != ClaimNew {
		t.Errorf("after release %v", st)
	}
	_ = d.Complete(ctx, "a")
	if st := claim(t, d, "a"); st != ClaimDone {
		t.Errorf("after complete %v", st)
	}
	_ = d.Release(ctx, "a") // a processed event is not forgotten by a release
	if st := claim(t, d, "a"); st != ClaimDone {
		t.Errorf("release after complete %v", st)
	}
	_ = d.Complete(ctx, "a") // completing twice keeps one entry
	if d.len() != 1 {
		t.Errorf("len %d", d.len())
	}
}

func TestMemoryDeduplicatorBound(t *testing.T) {
	ctx := context.Background()
	d := newMemoryDeduplicator(3)
	for i := 0; i < 5; i++ {
		id := fmt.Sprint("ev-", i)
		claim(t, d, id)
		_ = d.Complete(ctx, id)
	}
	if d.len() != 3 {
		t.Errorf("len %d, want 3", d.len())
	}
	for i, want := range []ClaimState{ClaimNew, ClaimNew, ClaimDone, ClaimDone, ClaimDone} {
		st, _ := d.Claim(ctx, fmt.Sprint("ev-", i))
		if st != want {
			t.Errorf("ev-%d: %v, want %v (oldest forgotten first)", i, st, want)
		}
	}
	// In-progress claims are not evicted by completions.
	d = newMemoryDeduplicator(1)
	claim(t, d, "busy")
	for i := 0; i < 3; i++ {
		_ = d.Complete(ctx, fmt.Sprint("x", i))
	}
	if st := claim(t, d, "busy"); st != ClaimInProgress {
		t.Errorf("in-progress claim evicted: %v", st)
	}
	if d.len() != 2 {
		t.Errorf("len %d", d.len())
	}
}

func TestMemoryDeduplicatorDefaultCapacity(t *testing.T) {
	if d := newMemoryDeduplicator(0); d.capacity != defaultDedupCapacity {
		t.Errorf("capacity %d", d.capacity)
	}
	if d := newMemoryDeduplicator(-5); d.capacity != defaultDedupCapacity {
		t.Errorf("capacity %d", d.capacity)
	}
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
	if wins.Load() != 1 {
		t.Errorf("%d goroutines own the same eventId", wins.Load())
	}
}

func TestClaimStateString(t *testing.T) {
	for st, s := range map[ClaimState]string{ClaimNew: "new", ClaimInProgress: "in progress", ClaimDone: "done", 7: "unknown"} {
		if st.name() != s {
			t.Errorf("%d: %s", st, st.name())
		}
	}
}
