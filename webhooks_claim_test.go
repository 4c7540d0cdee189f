package bankpay

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a claimClock whose time moves only by Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	c       chan time.Time
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) TimerAt(at time.Time) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: at, c: make(chan time.Time, 1)}
	if !at.After(c.now) {
		t.c <- c.now
		t.stopped = true
	} else {
		c.timers = append(c.timers, t)
	}
	return t.c, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := t.stopped
		t.stopped = true
		return !was
	}
}

// Advance moves the clock by d and fires the timers due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	live := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			t.c <- c.now
		default:
			live = append(live, t)
		}
	}
	c.timers = live
}

// unreachableStore is a Deduplicator with a claim TTL whose Extend succeeds
// for the first okExtends calls and then fails: the store out of reach.
type unreachableStore struct {
	ttl       time.Duration
	okExtends int32
	extends   atomic.Int32
	released  atomic.Bool
}

func (s *unreachableStore) ClaimTTL() time.Duration { return s.ttl }

func (s *unreachableStore) Claim(context.Context, string) (ClaimState, string, error) {
	return ClaimNew, "tok", nil
}

func (s *unreachableStore) Extend(context.Context, string, string) (time.Duration, error) {
	if s.extends.Add(1) > s.okExtends {
		return 0, errors.New("store out of reach")
	}
	return s.ttl, nil
}

func (s *unreachableStore) Complete(context.Context, string, string, time.Duration) error {
	return errors.New("store out of reach")
}

func (s *unreachableStore) Release(context.Context, string, string) error {
	s.released.Store(true)
	return nil
}

// The store is out of reach from the first Extend on: the handler knows
// when the claim runs out from Claim (the store's ClaimTTL) and cancels the
// callback then, not a step later (it ran 600 ms past a 1 s claim). When an
// Extend succeeded first, the claim runs out its TTL after that Extend was
// asked.
func TestWebhookHandlerCancelsAtClaimExpiry(t *testing.T) {
	const ttl = time.Second
	for _, tc := range []struct {
		name      string
		okExtends int32
		runsOut   time.Duration // after the claim
	}{
		{"every Extend fails", 0, ttl},
		{"one Extend succeeds", 1, firstExtension + ttl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			s := &unreachableStore{ttl: ttl, okExtends: tc.okExtends}
			started, canceled := make(chan struct{}), make(chan error, 1)
			h := NewWebhookHandler(hookCreds, func(ctx context.Context, _ *Event) error {
				close(started)
				select {
				case <-ctx.Done():
					canceled <- context.Cause(ctx)
					return ctx.Err()
				case <-time.After(10 * time.Second):
					return nil
				}
			}, WithDeduplicator(s)).(*webhookHandler)
			h.clock = clock
			resp := make(chan *httptest.ResponseRecorder, 1)
			go func() { resp <- postSigned(t, h, eventBody("ev-unreachable", "Authorize")) }()
			<-started

			step := 10 * time.Millisecond
			var elapsed time.Duration
			for elapsed+step < tc.runsOut {
				clock.Advance(step)
				elapsed += step
				if elapsed == firstExtension && tc.okExtends > 0 {
					// The extension is asked at this instant.
					require.Eventually(t, func() bool { return s.extends.Load() == 1 }, 5*time.Second, time.Millisecond)
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			select {
			case err := <-canceled:
				t.Fatalf("canceled %v before the claim ran out: %v", elapsed, err)
			default:
			}
			clock.Advance(tc.runsOut - elapsed)
			select {
			case err := <-canceled:
				assert.ErrorIs(t, err, errClaimLost)
			case <-time.After(5 * time.Second):
				t.Fatal("the callback ran on after its claim ran out")
			}
			w := <-resp
			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.True(t, s.released.Load(), "the failed callback's claim is released")
			assert.Greater(t, s.extends.Load(), tc.okExtends, "extensions were tried")
		})
	}
}
