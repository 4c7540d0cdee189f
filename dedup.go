package bankpay

import (
	"context"
	"net/url"
	"time"

	"github.com/bankpay/bankpay-go/internal/memdedup"
)

// The service re-sends an event every 5 minutes for 12 hours until it gets
// 200 OK, so the same eventId can arrive many times, also concurrently. The
// webhook handler's Deduplicator makes it run the callback once per event:
// by default one in memory, of the handler's own; a shared store given with
// WithDeduplicator for several replicas or across restarts.

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
// behavior they share), and give it to WithDeduplicator; without one, the
// handler de-duplicates in its own memory (every event processed within
// the max age plus 10 minutes, and at least the last 10000; its claims
// never expire), which is enough for one process that runs one handler. Methods are called concurrently.
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

// newMemoryDeduplicator returns the handler's default Deduplicator: in
// memory, for one handler, safe for concurrent use, remembering the last
// capacity processed events (10000 when capacity <= 0), and beyond them
// each one for the keep its Complete was given (the handler's retention:
// no replay within the max age finds it forgotten), plus those in progress,
// the oldest forgotten first. Its claims do not expire.
func newMemoryDeduplicator(capacity int) *memdedup.Store[ClaimState] {
	return memdedup.New[ClaimState](capacity)
}

var _ Deduplicator = (*memdedup.Store[ClaimState])(nil)
