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
	// right now. The handler responds 409 so that the service re-sends
	// later, in case that processing fails.
	ClaimInProgress
	// ClaimDone: the eventId was processed. The handler responds 200
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

// Deduplicator records which eventIds were processed. Implement it over the
// merchant's own store (a table with a unique eventId and a state column,
// say) to de-duplicate across processes and restarts; NewMemoryDeduplicator
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
// memoryDeduplicator remembers when given no capacity.
const defaultDedupCapacity = 10000

// memoryDeduplicator is NewMemoryDeduplicator's: the oldest processed
// eventIds are forgotten first.
type memoryDeduplicator struct {
	mu       sync.Mutex
	capacity int
	// state maps an eventId to its element in done, or to nil while it is
	// in progress. In-progress entries are bounded by the number of
	// concurrent requests.
	state map[string]*list.Element
	done  *list.List // processed eventIds (string), oldest first
}

// NewMemoryDeduplicator returns an in-memory Deduplicator for one process,
// safe for concurrent use, remembering the last capacity processed eventIds
// (10000 when capacity <= 0) plus those in progress. Size it above the
// events expected within the handler's max event age (WithMaxEventAge): an
// eventId forgotten sooner can be replayed until its event is stale.
func NewMemoryDeduplicator(capacity int) Deduplicator { return newMemoryDeduplicator(capacity) }

func newMemoryDeduplicator(capacity int) *memoryDeduplicator {
	if capacity <= 0 {
		capacity = defaultDedupCapacity
	}
	return &memoryDeduplicator{capacity: capacity, state: map[string]*list.Element{}, done: list.New()}
}

// Claim implements Deduplicator.
func (m *memoryDeduplicator) Claim(_ context.Context, eventID string) (ClaimState, error) {
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
func (m *memoryDeduplicator) Complete(_ context.Context, eventID string) error {
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
func (m *memoryDeduplicator) Release(_ context.Context, eventID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.state[eventID]; ok && el == nil {
		delete(m.state, eventID)
	}
	return nil
}

// len returns the number of eventIds remembered (processed and in progress).
func (m *memoryDeduplicator) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.state)
}

var _ Deduplicator = (*memoryDeduplicator)(nil)
