package bankpaytest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// testTick is how often the wall clocks of these tests catch up with the
// real time (WithWallClockTick, main_test.go): they wait for the real
// clock tens of milliseconds, not seconds. Their margins stay those of
// WallClockTick, which a loaded machine needs; cmd/bankpay-sandbox's
// TestDefaultFlagsEventsAccepted waits for a whole default tick.
const testTick = 10 * time.Millisecond

// TestWallClock: WithWallClock follows the real time (this test is about
// the real clock, so it waits for it, a few ticks at most), Advance still
// moves it ahead and it keeps running from there, and a deposit waits
// WallClockSubmitDelay (or an Advance) before it is processed, so that it
// can be canceled until then.
func TestWallClock(t *testing.T) {
	t.Parallel() // waits for the real clock: beside the other waiting tests
	srv := newServer(t, bankpaytest.WithWallClock(), bankpaytest.WithStartTime(time.Now()), bankpaytest.WithWallClockTick(testTick))
	c := newAPI(t, srv, srv.Credentials())
	assert.WithinDuration(t, time.Now(), srv.Now(), 2*bankpaytest.WallClockTick)
	t0 := srv.Now()
	require.Eventually(t, func() bool { return srv.Now().After(t0) }, 3*bankpaytest.WallClockTick, testTick,
		"the clock moves by itself")

	auth := c.establish("wall-1", "0.00")
	dep := c.mustDeposit(auth.TransactionID, "wall-1-dep", "5.00")
	t1 := srv.Now()
	require.Eventually(t, func() bool { return srv.Now().After(t1) }, 3*bankpaytest.WallClockTick, testTick)
	assert.Equal(t, models.StatusAuthorized, c.txn(dep.TransactionID).Status, "not submitted before WallClockSubmitDelay")

	// An hour: a deposit completes 3 banking days after its submission, which
	// 72 hours reach from a Sunday, a Monday or a Tuesday.
	srv.Advance(time.Hour)
	ahead := srv.Now()
	assert.WithinDuration(t, time.Now().Add(time.Hour), ahead, 2*bankpaytest.WallClockTick)
	assert.Equal(t, models.StatusProcessed, c.txn(dep.TransactionID).Status, "an Advance submits it")
	require.Eventually(t, func() bool { return srv.Now().After(ahead) }, 3*bankpaytest.WallClockTick, testTick,
		"the clock keeps running after an Advance")
	assert.WithinDuration(t, time.Now().Add(time.Hour), srv.Now(), 2*bankpaytest.WallClockTick)
}

// TestFakeClockStandsStill: without WithWallClock the clock moves only when
// told to. It waits ten ticks of testTick: a clock that followed the real
// time (its ticker started without WithWallClock) would have moved by
// then, as it would after the WallClockTick and 100 ms this test waited
// with the default tick.
func TestFakeClockStandsStill(t *testing.T) {
	t.Parallel() // waits for the real clock: beside the other waiting tests
	start := time.Date(2025, 3, 6, 15, 0, 0, 0, time.UTC)
	srv := newServer(t, bankpaytest.WithStartTime(start), bankpaytest.WithWallClockTick(testTick))
	time.Sleep(10 * testTick)
	assert.Equal(t, start, srv.Now())
	srv.Advance(time.Hour)
	assert.Equal(t, start.Add(time.Hour), srv.Now())
}

// TestEventIDsApartAcrossStarts: a fake-clock sandbox numbers its events
// from 500000000000001 (tests can name them); a wall-clock one (what
// cmd/bankpay-sandbox runs) from a number taken from the real time, so a
// sandbox started again gives eventIds a running webhook handler has not
// processed.
func TestEventIDsApartAcrossStarts(t *testing.T) {
	firstEvent := func(opts ...bankpaytest.Option) string {
		srv := newServer(t, opts...)
		c := newAPI(t, srv, srv.Credentials())
		c.establish("ids-1", "0.00")
		evs := srv.Events()
		require.NotEmpty(t, evs)
		return evs[0].EventID
	}
	assert.Equal(t, "500000000000001", firstEvent())
	seen := map[string]bool{"500000000000001": true}
	for range 3 {
		id := firstEvent(bankpaytest.WithWallClock())
		assert.Len(t, id, 15, "eventId %s", id)
		assert.False(t, seen[id], "eventId %s again after a new start", id)
		seen[id] = true
		time.Sleep(2 * time.Millisecond) // starts a millisecond apart at least
	}
}
