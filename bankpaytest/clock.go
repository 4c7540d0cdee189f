package bankpaytest

import (
	"container/heap"
	"context"
	"time"
)

// The sandbox clock is fake: it starts at WithStartTime (or the real time at
// NewServer) and moves only with Advance, AdvanceBankingDays or AdvanceTo,
// unless WithWallClock makes it also follow the real time.
// Every timed behavior runs on it: deposits and captures are submitted to
// the network (Processed) when the clock first moves after their creation,
// they complete 3 banking days (weekends skipped, no holidays, UTC) after
// that (an instant payout at once), identity data arrives one second per
// provider after the authorization, and an undelivered event is re-sent at
// every 5-minute mark after its creation for 12 hours. Advancing fires these
// in time order, each at its own instant.

// Timings of the sandbox.
const (
	// CompletionBankingDays is how many banking days after it was
	// processed a deposit or capture completes (an instant payout
	// completes when it is processed).
	CompletionBankingDays = 3
	// IdentityStep is the delay between the authorization and each
	// identity provider's data, and before the verification completes.
	IdentityStep = time.Second
	// ResendInterval is the interval of event re-sends.
	ResendInterval = 5 * time.Minute
	// ResendWindow is how long after its creation an event is re-sent.
	ResendWindow = 12 * time.Hour
	// WallClockTick is how often a clock that follows the real time
	// (WithWallClock) catches up with it.
	WallClockTick = time.Second
	// WallClockSubmitDelay is how old a deposit or capture is when a clock
	// that follows the real time submits it to the network.
	WallClockSubmitDelay = time.Minute
)

// Now returns the time of the sandbox clock.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.now
}

// Advance moves the clock forward by d (a non-positive d does nothing),
// firing what falls due on the way in time order: deposit and capture
// submission, completion, identity data, event re-sends. It waits for an event's
// delivery attempt in flight before deciding on its next re-send (so a
// receiver that never responds costs up to DeliveryTimeout per re-send
// crossed), and must not be called from a notification receiver the
// sandbox is delivering to.
func (s *Server) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	s.AdvanceTo(s.Now().Add(d))
}

// AdvanceBankingDays moves the clock to the same time of day n banking days
// later (Saturdays and Sundays do not count).
func (s *Server) AdvanceBankingDays(n int) {
	if n <= 0 {
		return
	}
	s.AdvanceTo(addBankingDays(s.Now(), n))
}

// AdvanceTo moves the clock forward to t; a t not after the clock's time
// does nothing. See Advance.
func (s *Server) AdvanceTo(t time.Time) {
	s.advanceTo(t, true)
}

// advanceTo moves the clock to t. told is false for the moves of a clock
// following the real time (followWallClock): those submit only the
// movements WallClockSubmitDelay old, and leave the offset to the real time
// as it is; a move the caller told sets the offset to where it ends.
func (s *Server) advanceTo(t time.Time, told bool) {
	s.advMu.Lock()
	defer s.advMu.Unlock()
	t = t.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !t.After(s.st.now) {
		return
	}
	if told && s.wall {
		defer func() { s.wallOffset = time.Until(s.st.now) }()
	}
	if told {
		s.submitMovements(time.Time{})
	} else {
		s.submitMovements(t.Add(-WallClockSubmitDelay))
	}
	listenUntil := time.Now().Add(listenerCatchUp)
	for s.st.timers.Len() > 0 {
		tm := s.st.timers[0]
		if tm.at.After(t) {
			break
		}
		s.awaitListeners(listenUntil) // bankpay listen forwards at the events' time (control_events.go)
		if tm.kind == timerResend && tm.ev.queued > 0 && !s.st.closed {
			// Decide the re-send once the attempt in flight has a response.
			s.mu.Unlock()
			_ = s.waitIdle(context.Background())
			s.mu.Lock()
			continue
		}
		heap.Pop(&s.st.timers)
		if tm.at.After(s.st.now) {
			s.st.now = tm.at
		}
		s.fire(tm)
	}
	s.awaitListeners(listenUntil)
	s.st.now = t
}

// followWallClock moves the clock with the real time, every WallClockTick
// (s.tick), until the server closes (WithWallClock).
func (s *Server) followWallClock() {
	defer s.wg.Done()
	tick := time.NewTicker(s.tick)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-tick.C:
			s.mu.Lock()
			off := s.wallOffset
			s.mu.Unlock()
			s.advanceTo(now.Add(off), false)
		}
	}
}

// addBankingDays returns t moved forward by n banking days: each step is a
// calendar day, and only steps that land on Monday to Friday count.
func addBankingDays(t time.Time, n int) time.Time {
	for n > 0 {
		t = t.AddDate(0, 0, 1)
		if wd := t.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return t
}

type timerKind int

const (
	timerComplete timerKind = iota
	timerIdentity
	timerResend
	timerRefresh       // a refresh's Refresh event
	timerPreauthExpire // the end of a preauthorization's period
)

// timer is something due at a point of the clock.
type timer struct {
	at   time.Time
	seq  uint64 // insertion order breaks ties
	kind timerKind
	t    *txn   // timerComplete, timerIdentity, timerRefresh, timerPreauthExpire
	ev   *event // timerResend
	step int    // identity step or re-send number
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at.Equal(h[j].at) {
		return h[i].seq < h[j].seq
	}
	return h[i].at.Before(h[j].at)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return x
}

// schedule adds a timer. The caller holds s.mu.
func (s *Server) schedule(tm *timer) {
	s.st.timerSeq++
	tm.seq = s.st.timerSeq
	heap.Push(&s.st.timers, tm)
}

// fire runs a due timer at s.st.now. The caller holds s.mu.
func (s *Server) fire(tm *timer) {
	switch tm.kind {
	case timerComplete:
		s.completeMovement(tm.t, tm.at)
	case timerIdentity:
		s.identityStep(tm.t, tm.step)
	case timerResend:
		s.resend(tm.ev, tm.step)
	case timerRefresh:
		s.finishRefresh(tm.t)
	case timerPreauthExpire:
		s.expirePreauth(tm.t)
	}
}
