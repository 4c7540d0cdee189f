// Package memdedup is the webhook handler's in-memory de-duplication store
// (bankpay's default when no WithDeduplicator is given): one process, the
// oldest processed events forgotten first, but never one before the time
// its Complete asked to keep it (the handler's max event age plus the
// skew): until then a re-send or a replay of it can still be accepted. Its methods are those of
// bankpay.Deduplicator for S = bankpay.ClaimState, whose values New,
// InProgress and Done are 0, 1 and 2.
package memdedup

import (
	"container/list"
	"context"
	"strconv"
	"sync"
	"time"
)

// DefaultCapacity is the number of processed events a Store remembers when
// given no capacity.
const DefaultCapacity = 10000

// ClaimTTL is what Extend returns: the claims do not expire (the process
// that holds them is the store).
const ClaimTTL = 24 * time.Hour

// The claim states, as the S of a Store reads them.
const (
	stateNew        = 0
	stateInProgress = 1
	stateDone       = 2
)

// Store remembers the last Capacity processed events, and beyond them each
// one still within the time its Complete asked to keep it, plus those in
// progress; it is safe for concurrent use.
type Store[S ~int] struct {
	mu       sync.Mutex
	capacity int
	now      func() time.Time
	next     uint64 // the last claim's token number
	// state maps a key to its entry: a claim in progress (done nil) or a
	// processed event (its element in done). In-progress entries are
	// bounded by the number of concurrent requests.
	state map[string]*entry
	done  *list.List // processed keys (string), oldest first
}

type entry struct {
	token string
	done  *list.Element
	// until is the time the done mark must last until (zero: the capacity
	// alone bounds it).
	until time.Time
}

// New returns an empty Store remembering capacity processed events
// (DefaultCapacity when capacity <= 0).
func New[S ~int](capacity int) *Store[S] {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Store[S]{capacity: capacity, now: time.Now, state: map[string]*entry{}, done: list.New()}
}

// SetClock makes the Store read the time from now (a fake clock in tests).
func (m *Store[S]) SetClock(now func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
}

// Claim claims key when it is free and returns state 0 and the claim's
// token; 1 when a claim of it is in progress, 2 when it was processed.
func (m *Store[S]) Claim(_ context.Context, key string) (S, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.state[key]
	switch {
	case !ok:
		m.next++
		e = &entry{token: strconv.FormatUint(m.next, 10)}
		m.state[key] = e
		return stateNew, e.token, nil
	case e.done == nil:
		return stateInProgress, "", nil
	}
	return stateDone, "", nil
}

// current returns key's entry when token is its claim in progress.
func (m *Store[S]) current(key, token string) *entry {
	if e := m.state[key]; e != nil && e.done == nil && e.token == token {
		return e
	}
	return nil
}

// Extend returns ClaimTTL while token is key's claim in progress, 0
// otherwise.
func (m *Store[S]) Extend(_ context.Context, key, token string) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current(key, token) == nil {
		return 0, nil
	}
	return ClaimTTL, nil
}

// Complete marks key processed when token is its claim in progress, to be
// remembered for keep at least (keep <= 0: as long as the capacity allows).
// Beyond the capacity the oldest marks are forgotten once their keep has
// passed, never before: a mark forgotten within it would let a replay of
// its event run again.
func (m *Store[S]) Complete(_ context.Context, key, token string, keep time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.current(key, token)
	if e == nil {
		return nil
	}
	e.done = m.done.PushBack(key)
	now := m.now()
	if keep > 0 {
		e.until = now.Add(keep)
	}
	for m.done.Len() > m.capacity {
		oldest := m.done.Front()
		k := oldest.Value.(string)
		if until := m.state[k].until; !until.IsZero() && now.Before(until) {
			break // the oldest mark must last: so must the newer ones
		}
		m.done.Remove(oldest)
		delete(m.state, k)
	}
	return nil
}

// Release forgets token's claim of key when it is still in progress.
func (m *Store[S]) Release(_ context.Context, key, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current(key, token) != nil {
		delete(m.state, key)
	}
	return nil
}

// Len returns the number of keys remembered (processed and in progress).
func (m *Store[S]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.state)
}

// Capacity returns the number of processed events remembered once their
// keep has passed.
func (m *Store[S]) Capacity() int { return m.capacity }
