package bankpay

import (
	"container/list"
	"context"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// The service re-sends an event every 5 minutes for 12 hours until it gets
// 200 OK, so the same eventId can arrive many times, also concurrently. A
// Deduplicator, given to the webhook handler with WithDeduplicator, makes
// the handler run the callback once per event.

// ClaimState is what a Deduplicator knows of an event's key.
type ClaimState int

// Claim states.
const (
	// ClaimNew: the key was not seen, its earlier processing failed, or
	// the claim on it expired; the caller now holds a new claim, with its
	// own token, and must Complete or Release it.
	ClaimNew ClaimState = iota
	// ClaimInProgress: another delivery of the event holds a live claim.
	// The handler responds 409 so that the service re-sends later, in case
	// that processing fails.
	ClaimInProgress
	// ClaimDone: the event was processed. The handler responds 200
	// without calling the callback again.
	ClaimDone
)

// name is the state's name.
func (s ClaimState) name() string {
	switch s {
	case ClaimNew:
		return "new"
	case ClaimInProgress:
		return "in progress"
	case ClaimDone:
		return "done"
	}
	return "unknown"
}

// Deduplicator records which events were processed, under a key the handler
// makes of the merchant's accessId and the eventId (two accounts sharing a
// store never meet). Every claim has its own token, and a token that is no
// longer its key's current claim (it expired and was claimed again, or was
// released or completed) changes nothing: that fences a slow delivery off
// the delivery that took its place. Implement it over the merchant's own
// store to de-duplicate across processes and restarts (the modules
// dedup/pgdedup and dedup/redisdedup are two, and internal/dedupsuite is the
// behavior they share); NewMemoryDeduplicator works within one process.
// Methods are called concurrently.
//
// A Deduplicator whose claims run out by time should also have the method
// ClaimTTL() time.Duration, returning how long a new claim lasts unless
// extended (pgdedup's and redisdedup's do): the handler then cancels the
// callback's context when the claim runs out even if no Extend ever
// reaches the store. Without it (or when it returns 0) the handler learns
// the run-out time from the first successful Extend only. A wrapper of a
// Deduplicator should forward it.
type Deduplicator interface {
	// Claim atomically looks key up and, when it is free (never seen,
	// released, or its claim expired), claims it: it returns ClaimNew and
	// the new claim's token, unique to this claim. Otherwise it returns
	// the state and no token.
	Claim(ctx context.Context, key string) (ClaimState, string, error)
	// Extend renews token's claim of key for the store's claim TTL, while
	// it is key's current claim, and returns that TTL; it returns 0 when
	// the claim is no longer current. The handler extends a claim while
	// its callback runs, so a callback longer than the TTL keeps it.
	Extend(ctx context.Context, key, token string) (time.Duration, error)
	// Complete marks key processed, when token is its current claim, for
	// at least keep (keep <= 0: as long as the store can): later claims get
	// ClaimDone. The handler passes its max event age plus twice its
	// allowed clock skew, so the mark outlives every delivery it accepts.
	Complete(ctx context.Context, key, token string, keep time.Duration) error
	// Release forgets token's claim of key, when it is still current and
	// not completed, so that the next delivery is processed again.
	Release(ctx context.Context, key, token string) error
}

// dedupKey is the key of event eventID of the merchant with accessID: the
// accessId, path-escaped (so it holds no '/'), a '/', and the eventId.
func dedupKey(accessID, eventID string) string {
	return url.PathEscape(accessID) + "/" + eventID
}

// defaultDedupCapacity is the number of processed events a
// memoryDeduplicator remembers when given no capacity.
const defaultDedupCapacity = 10000

// memoryClaimTTL is what the memory deduplicator's Extend returns: its
// claims do not expire (the process that holds them is the store).
const memoryClaimTTL = 24 * time.Hour

// memoryDeduplicator is NewMemoryDeduplicator's: the oldest processed
// events are forgotten first.
type memoryDeduplicator struct {
	mu       sync.Mutex
	capacity int
	next     uint64 // the last claim's token number
	// state maps a key to its entry: a claim in progress (done nil) or a
	// processed event (its element in done). In-progress entries are
	// bounded by the number of concurrent requests.
	state map[string]*memoryEntry
	done  *list.List // processed keys (string), oldest first
}

type memoryEntry struct {
	token string
	done  *list.Element
}

// NewMemoryDeduplicator returns an in-memory Deduplicator for one process,
// safe for concurrent use, remembering the last capacity processed events
// (10000 when capacity <= 0) plus those in progress. Its claims do not
// expire. Size it above the events expected within the handler's max event
// age (WithMaxEventAge): an event forgotten sooner can be replayed until it
// is stale.
func NewMemoryDeduplicator(capacity int) Deduplicator { return newMemoryDeduplicator(capacity) }

func newMemoryDeduplicator(capacity int) *memoryDeduplicator {
	if capacity <= 0 {
		capacity = defaultDedupCapacity
	}
	return &memoryDeduplicator{capacity: capacity, state: map[string]*memoryEntry{}, done: list.New()}
}

// Claim implements Deduplicator.
func (m *memoryDeduplicator) Claim(_ context.Context, key string) (ClaimState, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.state[key]
	switch {
	case !ok:
		m.next++
		e = &memoryEntry{token: strconv.FormatUint(m.next, 10)}
		m.state[key] = e
		return ClaimNew, e.token, nil
	case e.done == nil:
		return ClaimInProgress, "", nil
	}
	return ClaimDone, "", nil
}

// current returns key's entry when token is its claim in progress.
func (m *memoryDeduplicator) current(key, token string) *memoryEntry {
	if e := m.state[key]; e != nil && e.done == nil && e.token == token {
		return e
	}
	return nil
}

// Extend implements Deduplicator.
func (m *memoryDeduplicator) Extend(_ context.Context, key, token string) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current(key, token) == nil {
		return 0, nil
	}
	return memoryClaimTTL, nil
}

// Complete implements Deduplicator. The capacity, not keep, bounds what is
// remembered.
func (m *memoryDeduplicator) Complete(_ context.Context, key, token string, _ time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.current(key, token)
	if e == nil {
		return nil
	}
	e.done = m.done.PushBack(key)
	for m.done.Len() > m.capacity {
		oldest := m.done.Front()
		m.done.Remove(oldest)
		delete(m.state, oldest.Value.(string))
	}
	return nil
}

// Release implements Deduplicator.
func (m *memoryDeduplicator) Release(_ context.Context, key, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current(key, token) != nil {
		delete(m.state, key)
	}
	return nil
}

// len returns the number of keys remembered (processed and in progress).
func (m *memoryDeduplicator) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.state)
}

var _ Deduplicator = (*memoryDeduplicator)(nil)
