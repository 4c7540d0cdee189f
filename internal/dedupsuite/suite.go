// Package dedupsuite is the behavior every bankpay.Deduplicator shared by
// several replicas must have, as tests and a benchmark any store can run:
// the modules dedup/pgdedup and dedup/redisdedup run them against real
// servers, and this package's own tests against the memory deduplicator.
//
// The replica tests put several http servers, each with its own
// bankpay.NewWebhookHandler and its own Deduplicator over one store, in
// front of notifications signed as the service signs them.
package dedupsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Config is the store settings a test asks for.
type Config struct {
	// ClaimTTL: how long an abandoned claim stays in progress.
	ClaimTTL time.Duration
	// Retention: how long a done mark is kept.
	Retention time.Duration
}

// Store opens the store under test.
type Store struct {
	// Name names the store in subtests and benchmarks.
	Name string
	// Open prepares a fresh, empty store for one test (its own table or
	// key prefix, removed with tb.Cleanup) and returns the constructor of
	// one replica's Deduplicator over it, with its own settings: each call
	// is a new process.
	Open func(tb testing.TB) (newReplica func(Config) bankpay.Deduplicator)
	// Shared: replicas are separate instances over a store that expires
	// claims after ClaimTTL and done marks after Retention, and releases a
	// claim only for the instance that holds it. False for the memory
	// deduplicator (one instance, nothing expires by time): the tests of
	// those properties are skipped.
	Shared bool
}

// longConfig is for tests where nothing may expire.
var longConfig = Config{ClaimTTL: time.Minute, Retention: time.Hour}

// long returns n longConfigs.
func long(n int) []Config {
	cfgs := make([]Config, n)
	for i := range cfgs {
		cfgs[i] = longConfig
	}
	return cfgs
}

// creds are the merchant's credentials of the suite's handlers.
var creds = bankpay.Credentials{AccessID: "suite-access-id", AccessKey: bankpay.NewSecret("suite-s3cret-key"), MerchantID: "M1"}

// Run runs the suite against s.
func Run(t *testing.T, s Store) {
	t.Run("States", func(t *testing.T) { testStates(t, s) })
	t.Run("ConcurrentClaims", func(t *testing.T) { testConcurrentClaims(t, s) })
	t.Run("ReplicasRunCallbackOnce", func(t *testing.T) { testReplicasOnce(t, s) })
	t.Run("ReplicasStorm", func(t *testing.T) { testReplicasStorm(t, s) })
	t.Run("FailedCallbackReleases", func(t *testing.T) { testFailedCallback(t, s) })
	t.Run("CrashedReplica", func(t *testing.T) { testCrashedReplica(t, s) })
	t.Run("LateReleaseKeepsNewClaim", func(t *testing.T) { testLateRelease(t, s) })
	t.Run("DoneMarkExpires", func(t *testing.T) { testDoneMarkExpires(t, s) })
	t.Run("CanceledContext", func(t *testing.T) { testCanceledContext(t, s) })
}

func needShared(t *testing.T, s Store) {
	t.Helper()
	if !s.Shared {
		t.Skipf("%s: one instance, nothing expires by time", s.Name)
	}
}

// unique returns prefix and random hex, an eventId no other test or run uses.
func unique(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// notification returns the body of an Authorize event with eventID, created
// a minute ago, and the Authorization header the service sends with it.
func notification(tb testing.TB, eventID string) (body, authorization string) {
	tb.Helper()
	body = "merchantId=M1&merchantReference=order-42&paymentType=2&transactionType=1&eventId=" + eventID +
		"&eventType=Authorize&objectId=100258123456789&objectType=Transaction&timeZone=UTC" +
		"&createdAt=" + strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10) +
		"&accessId=" + creds.AccessID + "&status=2&statusMessage=Authorized"
	auth, err := bankpaytest.SignNotification([]byte(body), creds)
	require.NoError(tb, err)
	return body, auth
}

// claim is d.Claim that must not fail; it may run in any goroutine (an
// error fails the test and returns -1).
func claim(t *testing.T, d bankpay.Deduplicator, id string) bankpay.ClaimState {
	t.Helper()
	st, err := d.Claim(context.Background(), id)
	if !assert.NoError(t, err) {
		return -1
	}
	return st
}

func testStates(t *testing.T, s Store) {
	ctx := context.Background()
	replica := s.Open(t)
	a, b := replica(longConfig), replica(longConfig)
	// Ids are parameters, never SQL or keys of another shape.
	for _, id := range []string{unique("ev"), unique(`ev'"; DROP TABLE x; --`), unique("évènement 🔔 %s\x01"), unique(strings.Repeat("x", 400))} {
		require.Equal(t, bankpay.ClaimNew, claim(t, a, id))
		assert.Equal(t, bankpay.ClaimInProgress, claim(t, b, id), "another replica")
		assert.Equal(t, bankpay.ClaimInProgress, claim(t, a, id), "the same replica again")
		if s.Shared {
			require.NoError(t, b.Release(ctx, id), "a release by a replica that holds no claim")
			assert.Equal(t, bankpay.ClaimInProgress, claim(t, b, id), "B's release removed A's claim")
		}

		require.NoError(t, a.Release(ctx, id))
		require.Equal(t, bankpay.ClaimNew, claim(t, b, id), "released: the next delivery is processed")
		require.NoError(t, b.Complete(ctx, id))
		assert.Equal(t, bankpay.ClaimDone, claim(t, a, id))
		assert.Equal(t, bankpay.ClaimDone, claim(t, b, id))

		require.NoError(t, b.Release(ctx, id))
		require.NoError(t, a.Release(ctx, id))
		assert.Equal(t, bankpay.ClaimDone, claim(t, a, id), "a release does not forget a processed event")
		require.NoError(t, b.Complete(ctx, id))
		assert.Equal(t, bankpay.ClaimDone, claim(t, b, id), "completed twice")
	}
	id := unique("never-claimed")
	require.NoError(t, a.Release(ctx, id))
	assert.Equal(t, bankpay.ClaimNew, claim(t, b, id), "releasing an unknown eventId records nothing")
	require.NoError(t, b.Complete(ctx, id))
	assert.Equal(t, bankpay.ClaimDone, claim(t, a, id))
}

func testConcurrentClaims(t *testing.T, s Store) {
	const replicas, workers, ids = 6, 3, 40
	replica := s.Open(t)
	prefix := unique("ev")
	var news [ids]atomic.Int32
	var wg sync.WaitGroup
	for range replicas {
		d := replica(longConfig)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range ids {
					i := (i + w*7) % ids // each worker in another order
					st, err := d.Claim(context.Background(), prefix+"-"+strconv.Itoa(i))
					if assert.NoError(t, err) && st == bankpay.ClaimNew {
						news[i].Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	for i := range news {
		assert.Equal(t, int32(1), news[i].Load(), "eventId %d claimed as new", i)
	}
}

// replicas starts an http server per Config, each with its own webhook
// handler calling fn(replica index, ...) and its own Deduplicator from
// newReplica.
func replicas(t *testing.T, newReplica func(Config) bankpay.Deduplicator, cfgs []Config, fn func(int, context.Context, *bankpay.Event) error) []*httptest.Server {
	t.Helper()
	srvs := make([]*httptest.Server, len(cfgs))
	for i := range srvs {
		h := bankpay.NewWebhookHandler(creds, func(ctx context.Context, ev *bankpay.Event) error { return fn(i, ctx, ev) },
			bankpay.WithDeduplicator(newReplica(cfgs[i])))
		srvs[i] = httptest.NewServer(h)
		t.Cleanup(srvs[i].Close)
	}
	return srvs
}

// deliver posts a notification to srv as the service does and returns the
// response's status, 0 when there is none. It may run in any goroutine.
func deliver(ctx context.Context, t *testing.T, srv *httptest.Server, body, auth string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
	if !assert.NoError(t, err) {
		return 0
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", auth)
	resp, err := srv.Client().Do(req)
	if !assert.NoError(t, err) {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// testReplicasOnce: four replicas get the same event 50 times at once. The
// first claim's callback is held until the 49 others have been answered,
// so all of them meet it in progress: one 200, 49 409s, one callback.
func testReplicasOnce(t *testing.T, s Store) {
	const n = 50
	var calls atomic.Int32
	gate := make(chan struct{})
	srvs := replicas(t, s.Open(t), long(4), func(_ int, _ context.Context, _ *bankpay.Event) error {
		calls.Add(1)
		select {
		case <-gate:
		case <-time.After(15 * time.Second): // two callbacks would wait for each other's deliveries
		}
		return nil
	})
	body, auth := notification(t, unique("ev-once"))
	statuses := make(chan int, n)
	for i := range n {
		go func() { statuses <- deliver(context.Background(), t, srvs[i%len(srvs)], body, auth) }()
	}
	got := map[int]int{}
	for i := range n {
		if i == n-1 {
			close(gate)
		}
		got[<-statuses]++
	}
	assert.Equal(t, int32(1), calls.Load(), "callbacks")
	assert.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: n - 1}, got)

	for _, srv := range srvs { // the re-sends find it done
		assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srv, body, auth))
	}
	assert.Equal(t, int32(1), calls.Load(), "callbacks after the re-sends")
}

// testReplicasStorm: 20 events, each delivered 10 times at once across four
// replicas, then re-sent (like the service) until acknowledged: each
// callback ran once.
func testReplicasStorm(t *testing.T, s Store) {
	const events, copies = 20, 10
	var calls sync.Map // eventId -> *atomic.Int32
	srvs := replicas(t, s.Open(t), long(4), func(_ int, _ context.Context, ev *bankpay.Event) error {
		c, _ := calls.LoadOrStore(ev.EventID, new(atomic.Int32))
		c.(*atomic.Int32).Add(1)
		return nil
	})
	type note struct{ id, body, auth string }
	notes := make([]note, events)
	for i := range notes {
		id := unique("ev-storm")
		body, auth := notification(t, id)
		notes[i] = note{id, body, auth}
	}
	var wg sync.WaitGroup
	for i := range events * copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := notes[i%events]
			st := deliver(context.Background(), t, srvs[(i/events)%len(srvs)], n.body, n.auth)
			assert.Contains(t, []int{http.StatusOK, http.StatusConflict}, st)
		}()
	}
	wg.Wait()
	for i, n := range notes {
		require.Eventually(t, func() bool {
			return deliver(context.Background(), t, srvs[i%len(srvs)], n.body, n.auth) == http.StatusOK
		}, 10*time.Second, 10*time.Millisecond, "event %s never acknowledged", n.id)
	}
	for _, n := range notes {
		c, ok := calls.Load(n.id)
		if assert.True(t, ok, "event %s never processed", n.id) {
			assert.Equal(t, int32(1), c.(*atomic.Int32).Load(), "callbacks of %s", n.id)
		}
	}
}

// testFailedCallback: a callback's error releases the claim, so the
// re-send to another replica is processed; after that it is done.
func testFailedCallback(t *testing.T, s Store) {
	var calls [3]atomic.Int32
	srvs := replicas(t, s.Open(t), long(3), func(i int, _ context.Context, _ *bankpay.Event) error {
		calls[i].Add(1)
		if i == 0 {
			return assert.AnError
		}
		return nil
	})
	body, auth := notification(t, unique("ev-failed"))
	assert.Equal(t, http.StatusInternalServerError, deliver(context.Background(), t, srvs[0], body, auth))
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[1], body, auth), "the re-send after a failure")
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[2], body, auth))
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[0], body, auth))
	assert.Equal(t, []int32{1, 1, 0}, []int32{calls[0].Load(), calls[1].Load(), calls[2].Load()})
}

// testCrashedReplica: replica A dies mid-callback (its callback hangs and
// the service gives up on it), so its claim is never completed or
// released. Re-sends to B get 409 until the claim expires, then B
// processes the event. When A's callback finally fails, its release does
// not undo B's work.
func testCrashedReplica(t *testing.T, s Store) {
	needShared(t, s)
	const ttl = 400 * time.Millisecond
	var calls [3]atomic.Int32
	started, unblock := make(chan struct{}), make(chan struct{})
	cfgs := []Config{{ClaimTTL: ttl, Retention: time.Hour}, longConfig, longConfig}
	srvs := replicas(t, s.Open(t), cfgs, func(i int, _ context.Context, ev *bankpay.Event) error {
		if strings.HasPrefix(ev.EventID, "warm-up") {
			return nil
		}
		calls[i].Add(1)
		if i == 0 {
			close(started)
			<-unblock
			return assert.AnError
		}
		return nil
	})
	// On a failure, A's callback returns before its server is closed.
	unblockA := sync.OnceFunc(func() { close(unblock) })
	t.Cleanup(unblockA)
	for _, srv := range srvs[1:] { // connections to B and C, and theirs to the store, open
		wbody, wauth := notification(t, unique("warm-up"))
		require.Equal(t, http.StatusOK, deliver(context.Background(), t, srv, wbody, wauth))
	}
	body, auth := notification(t, unique("ev-crash"))

	claimed := time.Now()
	ctx, giveUp := context.WithCancel(context.Background())
	aDone := make(chan struct{})
	go func() {
		defer close(aDone)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srvs[0].URL, strings.NewReader(body))
		if assert.NoError(t, err) {
			req.Header.Set("Authorization", auth)
			if resp, err := srvs[0].Client().Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
	}()
	<-started
	giveUp() // the service's 3 seconds are over
	<-aDone

	// Each re-send to B gets 409 while A's claim lasts, then 200 once: a
	// 200 sooner than the TTL after A's claim is a failure.
	first := deliver(context.Background(), t, srvs[1], body, auth)
	if first != http.StatusConflict {
		assert.Equal(t, http.StatusOK, first)
		assert.GreaterOrEqual(t, time.Since(claimed), ttl-20*time.Millisecond, "B processed it while A's claim was live")
	}
	require.Eventually(t, func() bool {
		return deliver(context.Background(), t, srvs[1], body, auth) == http.StatusOK
	}, 20*ttl, 25*time.Millisecond, "the re-send after A's claim expired")
	assert.GreaterOrEqual(t, time.Since(claimed), ttl-20*time.Millisecond, "B processed it while A's claim was live")
	assert.Equal(t, int32(1), calls[1].Load())

	unblockA() // A's callback fails at last: its release must not forget B's work
	require.Eventually(t, func() bool { return calls[0].Load() == 1 }, time.Second, 5*time.Millisecond)
	srvs[0].Close() // waits for A's handler, release included
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[2], body, auth))
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[1], body, auth))
	assert.Equal(t, []int32{1, 1, 0}, []int32{calls[0].Load(), calls[1].Load(), calls[2].Load()})
}

// testLateRelease: a release by a replica whose claim expired and was taken
// by another leaves the new claim in progress. A's claims are short, B's
// and C's long.
func testLateRelease(t *testing.T, s Store) {
	needShared(t, s)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	replica := s.Open(t)
	a, b, c := replica(Config{ClaimTTL: ttl, Retention: time.Hour}), replica(longConfig), replica(longConfig)
	id := unique("ev-late")
	claimed := time.Now()
	require.Equal(t, bankpay.ClaimNew, claim(t, a, id))
	require.Eventually(t, func() bool { return claim(t, b, id) == bankpay.ClaimNew }, 20*ttl, 20*time.Millisecond,
		"A's claim never expired")
	assert.GreaterOrEqual(t, time.Since(claimed), ttl-20*time.Millisecond, "A's claim expired early")
	require.NoError(t, a.Release(ctx, id))
	assert.Equal(t, bankpay.ClaimInProgress, claim(t, c, id), "A's late release removed B's claim")
	require.NoError(t, b.Complete(ctx, id))
	require.NoError(t, a.Release(ctx, id))
	assert.Equal(t, bankpay.ClaimDone, claim(t, c, id))
}

// testDoneMarkExpires: a done mark is kept for the retention, then the
// eventId is new again.
func testDoneMarkExpires(t *testing.T, s Store) {
	needShared(t, s)
	const retention = 300 * time.Millisecond
	replica := s.Open(t)
	a, b := replica(Config{ClaimTTL: time.Minute, Retention: retention}), replica(longConfig)
	id := unique("ev-retention")
	require.Equal(t, bankpay.ClaimNew, claim(t, a, id))
	done := time.Now()
	require.NoError(t, a.Complete(context.Background(), id))
	// Done until the retention is over (a New sooner fails below), then new.
	require.Eventually(t, func() bool {
		st := claim(t, b, id)
		if st == bankpay.ClaimNew {
			return true
		}
		assert.Equal(t, bankpay.ClaimDone, st)
		return false
	}, 20*retention, 20*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(done), retention-20*time.Millisecond, "forgotten before its retention")
}

// testCanceledContext: a canceled request's claim fails (the handler
// responds 500) rather than guessing.
func testCanceledContext(t *testing.T, s Store) {
	needShared(t, s)
	d := s.Open(t)(longConfig)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Claim(ctx, unique("ev-canceled"))
	require.ErrorIs(t, err, context.Canceled)
}
