package bankpay

import (
	"container/list"
	"context"
	"sync"
)

// The service re-sends an event every 5 minutes for 12 hours until it gets
// 200 OK, so the same eventId can arrive many times, also concurrently. A
// Deduplicator, given to the webhook handler with WithDeduplicator, makes
// the handler run the callback once per eventId.

// ClaimState is what a Deduplicator knows of an eventId.
type ClaimState int

// Claim states.
const (
	// ClaimNew: the eventId was not seen, or its earlier processing
	// failed; the caller now owns it and must Complete or Release it.
	ClaimNew ClaimState = iota
	// ClaimInProgress: another delivery of the eventId is being processed
	// right now. The handler answers 409 so that the service re-sends
	// later, in case that processing fails.
	ClaimInProgress
	// ClaimDone: the eventId was processed. The handler answers 200
	// without calling the callback again.
	ClaimDone
)

// String returns the state's name.
func (s ClaimState) String() string {
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

// Deduplicator records which eventIds were processed. Implement it over the
// merchant's own store (a table with a unique eventId and a state column,
// say) to de-duplicate across processes and restarts; MemoryDeduplicator
// works within one process. Methods are called concurrently.
type Deduplicator interface {
	// Claim atomically looks eventID up and, when it is new, marks it in
	// progress. It returns the state before the call.
	Claim(ctx context.Context, eventID string) (ClaimState, error)
	// Complete marks a claimed eventID processed: later claims get ClaimDone.
	Complete(ctx context.Context, eventID string) error
	// Release forgets a claim whose processing failed, so that the next
	// delivery of eventID is processed again.
	Release(ctx context.Context, eventID string) error
}

// defaultDedupCapacity is the number of processed eventIds a
// MemoryDeduplicator remembers when given no capacity.
const defaultDedupCapacity = 10000

// MemoryDeduplicator is an in-memory Deduplicator for one process. It
// remembers the last capacity processed eventIds (the oldest are forgotten
// first) plus those in progress. It is safe for concurrent use.
type MemoryDeduplicator struct {
	mu       sync.Mutex
	capacity int
	// state maps an eventId to its element in done, or to nil while it is
	// in progress. In-progress entries are bounded by the number of
	// concurrent requests.
	state map[string]*list.Element
	done  *list.List // processed eventIds (string), oldest first
}

// NewMemoryDeduplicator returns a MemoryDeduplicator remembering up to
// capacity processed eventIds (defaultDedupCapacity when capacity <= 0).
// At one event per authorization and status change, size it above the
// number of events expected within the webhook handler's max event age (24
// hours by default, see WithMaxEventAge): an eventId forgotten sooner can be
// replayed, and processed again, until its event is old enough to be
// rejected as stale.
func NewMemoryDeduplicator(capacity int) *MemoryDeduplicator {
	if capacity <= 0 {
		capacity = defaultDedupCapacity
	}
	return &MemoryDeduplicator{capacity: capacity, state: map[string]*list.Element{}, done: list.New()}
}

// Claim implements Deduplicator.
func (m *MemoryDeduplicator) Claim(_ context.Context, eventID string) (ClaimState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.state[eventID]
	switch {
	case !ok:
		m.state[eventID] = nil
		return ClaimNew, nil
	case el == nil:
		return ClaimInProgress, nil
	}
	return ClaimDone, nil
}

// Complete implements Deduplicator.
func (m *MemoryDeduplicator) Complete(_ context.Context, eventID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el := m.state[eventID]; el != nil {
		return nil
	}
	m.state[eventID] = m.done.PushBack(eventID)
	for m.done.Len() > m.capacity {
		oldest := m.done.Front()
		m.done.Remove(oldest)
		delete(m.state, oldest.Value.(string))
	}
	return nil
}

// Release implements Deduplicator.
func (m *MemoryDeduplicator) Release(_ context.Context, eventID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.state[eventID]; ok && el == nil {
		delete(m.state, eventID)
	}
	return nil
}

// Len returns the number of eventIds remembered (processed and in progress).
func (m *MemoryDeduplicator) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.state)
}

var _ Deduplicator = (*MemoryDeduplicator)(nil)
