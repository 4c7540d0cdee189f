// Package dedupsuite is the behavior every bankpay.Deduplicator shared by
// several replicas must have, as tests and a benchmark any store can run:
// the modules dedup/pgdedup and dedup/redisdedup run them against real
// servers, and this package's own tests against the memory deduplicator;
// dedup/chaos compares every store and the River inbox with BenchTargets.
//
// The replica tests put several http servers, each with its own
// bankpay.NewWebhookHandler and its own Deduplicator over one store, in
// front of notifications signed as the service signs them.
package dedupsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
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
	// ClaimTTL: how long a claim stays in progress unless extended.
	ClaimTTL time.Duration
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
	// claims after ClaimTTL and done marks after the keep Complete is
	// given. False for the memory deduplicator (one instance, nothing
	// expires by time): the tests of those properties are skipped.
	Shared bool
}

// longConfig is for tests where nothing may expire.
var longConfig = Config{ClaimTTL: time.Minute}

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
	t.Run("StaleClaimChangesNothing", func(t *testing.T) { testStaleClaim(t, s) })
	t.Run("LongCallbackExtendsClaim", func(t *testing.T) { t.Parallel(); testLongCallback(t, s) }) // waits for the real clock
	t.Run("AccountsDoNotMeet", func(t *testing.T) { testAccounts(t, s) })
	t.Run("RetentionCoversSkew", func(t *testing.T) { t.Parallel(); testRetentionCoversSkew(t, s) }) // waits for the real clock
	t.Run("FutureEventRefused", func(t *testing.T) { testFutureEvent(t, s) })
	t.Run("DoneMarkExpires", func(t *testing.T) { testDoneMarkExpires(t, s) })
	t.Run("CanceledContext", func(t *testing.T) { testCanceledContext(t, s) })
	t.Run("ClaimRunsOutStoreUnreachable", func(t *testing.T) { testClaimRunsOutUnreachable(t, s) })
	t.Run("LateCompleteAfterPurge", func(t *testing.T) { testLateCompleteAfterPurge(t, s) })
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
	return Notification(tb, creds, eventID, time.Now().Add(-time.Minute))
}

// Notification returns the body of an Authorize event of c's merchant with
// eventID, created at createdAt, and the Authorization header the service
// sends with it.
func Notification(tb testing.TB, c bankpay.Credentials, eventID string, createdAt time.Time) (body, authorization string) {
	tb.Helper()
	body = "merchantId=" + c.MerchantID + "&merchantReference=order-42&paymentType=2&transactionType=1&eventId=" + eventID +
		"&eventType=Authorize&objectId=100258123456789&objectType=Transaction&timeZone=UTC" +
		"&createdAt=" + strconv.FormatInt(createdAt.UnixMilli(), 10) +
		"&accessId=" + c.AccessID + "&status=2&statusMessage=Authorized"
	auth, err := bankpaytest.SignNotification([]byte(body), c)
	require.NoError(tb, err)
	return body, auth
}

// claim is d.Claim that must not fail; it may run in any goroutine (an
// error fails the test and returns -1). A new claim's token is checked and
// dropped; claimToken returns it.
func claim(t *testing.T, d bankpay.Deduplicator, id string) bankpay.ClaimState {
	t.Helper()
	st, _ := claimToken(t, d, id)
	return st
}

// MustClaim claims id with d, requires the state want (msgAndArgs as
// require's) and returns the claim's token: one for a new claim, none
// otherwise (both checked).
func MustClaim(t *testing.T, d bankpay.Deduplicator, id string, want bankpay.ClaimState, msgAndArgs ...any) string {
	t.Helper()
	st, token := claimToken(t, d, id)
	require.Equal(t, want, st, msgAndArgs...)
	return token
}

// claimToken is claim, returning the token of a new claim too.
func claimToken(t *testing.T, d bankpay.Deduplicator, id string) (bankpay.ClaimState, string) {
	t.Helper()
	st, token, err := d.Claim(context.Background(), id)
	if !assert.NoError(t, err) {
		return -1, ""
	}
	if st == bankpay.ClaimNew {
		assert.NotEmpty(t, token, "a new claim without a token")
	} else {
		assert.Empty(t, token, "a token without a claim")
	}
	return st, token
}

func testStates(t *testing.T, s Store) {
	ctx := context.Background()
	replica := s.Open(t)
	a, b := replica(longConfig), replica(longConfig)
	// Keys are parameters, never SQL or keys of another shape.
	for _, id := range []string{unique("ev"), unique(`ev'"; DROP TABLE x; --`), unique("évènement 🔔 %s\x01"), unique(strings.Repeat("x", 400))} {
		st, ta := claimToken(t, a, id)
		require.Equal(t, bankpay.ClaimNew, st)
		assert.Equal(t, bankpay.ClaimInProgress, claim(t, b, id), "another replica")
		assert.Equal(t, bankpay.ClaimInProgress, claim(t, a, id), "the same replica again")
		require.NoError(t, b.Release(ctx, id, "not-a-token"), "a release by a delivery that holds no claim")
		assert.Equal(t, bankpay.ClaimInProgress, claim(t, b, id), "a release without the token removed A's claim")

		require.NoError(t, a.Release(ctx, id, ta))
		st, tb := claimToken(t, b, id)
		require.Equal(t, bankpay.ClaimNew, st, "released: the next delivery is processed")
		assert.NotEqual(t, ta, tb, "each claim has its own token")
		require.NoError(t, b.Complete(ctx, id, tb, time.Hour))
		assert.Equal(t, bankpay.ClaimDone, claim(t, a, id))
		assert.Equal(t, bankpay.ClaimDone, claim(t, b, id))

		require.NoError(t, b.Release(ctx, id, tb))
		require.NoError(t, a.Release(ctx, id, ta))
		assert.Equal(t, bankpay.ClaimDone, claim(t, a, id), "a release does not forget a processed event")
		require.NoError(t, b.Complete(ctx, id, tb, time.Hour))
		assert.Equal(t, bankpay.ClaimDone, claim(t, b, id), "completed twice")
	}
	id := unique("never-claimed")
	require.NoError(t, a.Release(ctx, id, "t"))
	require.NoError(t, a.Complete(ctx, id, "t", time.Hour))
	ttl, err := a.Extend(ctx, id, "t")
	require.NoError(t, err)
	assert.Zero(t, ttl, "extending an unknown key")
	st, tok := claimToken(t, b, id)
	assert.Equal(t, bankpay.ClaimNew, st, "releasing or completing an unknown key records nothing")
	require.NoError(t, b.Complete(ctx, id, tok, time.Hour))
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
					st, _, err := d.Claim(context.Background(), prefix+"-"+strconv.Itoa(i))
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
	ds := make([]bankpay.Deduplicator, len(cfgs))
	for i := range ds {
		ds[i] = newReplica(cfgs[i])
	}
	return replicasOver(t, ds, fn)
}

// replicasOver is replicas with the given Deduplicators.
func replicasOver(t *testing.T, ds []bankpay.Deduplicator, fn func(int, context.Context, *bankpay.Event) error, opts ...bankpay.WebhookOption) []*httptest.Server {
	t.Helper()
	srvs := make([]*httptest.Server, len(ds))
	for i := range srvs {
		h := bankpay.NewWebhookHandler(creds, func(ctx context.Context, ev *bankpay.Event) error { return fn(i, ctx, ev) },
			append([]bankpay.WebhookOption{bankpay.WithDeduplicator(ds[i])}, opts...)...)
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

// killable is a replica's Deduplicator that can be cut off from its store,
// as when the replica's process dies or freezes: its calls fail until it is
// revived.
type killable struct {
	bankpay.Deduplicator
	dead atomic.Bool
}

// errKilled is a killed replica's store error.
var errKilled = errors.New("dedupsuite: the replica is dead")

// ClaimTTL forwards the store's, as a wrapper should (see
// bankpay.Deduplicator).
func (k *killable) ClaimTTL() time.Duration {
	if t, ok := k.Deduplicator.(interface{ ClaimTTL() time.Duration }); ok {
		return t.ClaimTTL()
	}
	return 0
}

func (k *killable) Extend(ctx context.Context, key, token string) (time.Duration, error) {
	if k.dead.Load() {
		return 0, errKilled
	}
	return k.Deduplicator.Extend(ctx, key, token)
}

func (k *killable) Complete(ctx context.Context, key, token string, keep time.Duration) error {
	if k.dead.Load() {
		return errKilled
	}
	return k.Deduplicator.Complete(ctx, key, token, keep)
}

func (k *killable) Release(ctx context.Context, key, token string) error {
	if k.dead.Load() {
		return errKilled
	}
	return k.Deduplicator.Release(ctx, key, token)
}

// testCrashedReplica: replica A freezes mid-callback (its callback hangs,
// it no longer reaches the store, and the service gives up on it), so its
// claim is neither extended, completed nor released. Re-sends to B get 409
// until the claim expires, then B processes the event. When A comes back
// and its callback fails, its release (of a claim no longer current) does
// not undo B's work.
func testCrashedReplica(t *testing.T, s Store) {
	needShared(t, s)
	const ttl = 400 * time.Millisecond
	var calls [3]atomic.Int32
	started, unblock := make(chan struct{}), make(chan struct{})
	newReplica := s.Open(t)
	a := &killable{Deduplicator: newReplica(Config{ClaimTTL: ttl})}
	ds := []bankpay.Deduplicator{a, newReplica(longConfig), newReplica(longConfig)}
	srvs := replicasOver(t, ds, func(i int, _ context.Context, ev *bankpay.Event) error {
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
	a.dead.Store(true) // frozen: from now on its claim is neither extended nor released
	killed := time.Now()
	giveUp() // the service's 3 seconds are over
	<-aDone

	// Each re-send to B gets 409 while A's claim lasts, then 200 once: a
	// 200 sooner than the TTL after A froze is a failure.
	first := deliver(context.Background(), t, srvs[1], body, auth)
	if first != http.StatusConflict {
		assert.Equal(t, http.StatusOK, first)
		assert.GreaterOrEqual(t, time.Since(killed), ttl/2, "B processed it while A's claim was live")
	}
	require.Eventually(t, func() bool {
		return deliver(context.Background(), t, srvs[1], body, auth) == http.StatusOK
	}, 20*ttl, 25*time.Millisecond, "the re-send after A's claim expired")
	assert.Equal(t, int32(1), calls[1].Load())

	a.dead.Store(false) // A comes back, and its callback fails at last: its release must not forget B's work
	unblockA()
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
	a, b, c := replica(Config{ClaimTTL: ttl}), replica(longConfig), replica(longConfig)
	id := unique("ev-late")
	claimed := time.Now()
	st, ta := claimToken(t, a, id)
	require.Equal(t, bankpay.ClaimNew, st)
	var tb string
	require.Eventually(t, func() bool {
		st, tb = claimToken(t, b, id)
		return st == bankpay.ClaimNew
	}, 20*ttl, 20*time.Millisecond, "A's claim never expired")
	assert.GreaterOrEqual(t, time.Since(claimed), ttl-20*time.Millisecond, "A's claim expired early")
	require.NoError(t, a.Release(ctx, id, ta))
	assert.Equal(t, bankpay.ClaimInProgress, claim(t, c, id), "A's late release removed B's claim")
	require.NoError(t, b.Complete(ctx, id, tb, time.Hour))
	require.NoError(t, a.Release(ctx, id, ta))
	assert.Equal(t, bankpay.ClaimDone, claim(t, c, id))
}

// testStaleClaim: one replica claims an event, and its claim stops being
// current: it expires and the same replica claims the event again (in
// memory, where nothing expires, it is released and claimed again). The
// stale claim's Release, Complete and Extend change nothing: the live claim
// stays in progress and is the one that completes.
func testStaleClaim(t *testing.T, s Store) {
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	replica := s.Open(t)
	a, observer := replica(Config{ClaimTTL: ttl}), replica(longConfig)
	id := unique("ev-stale")
	st, stale := claimToken(t, a, id) // delivery 1: its callback outlives its claim
	require.Equal(t, bankpay.ClaimNew, st)
	var live string
	if s.Shared {
		require.Eventually(t, func() bool {
			st, live = claimToken(t, a, id) // delivery 2, same replica
			return st == bankpay.ClaimNew
		}, 20*ttl, 20*time.Millisecond, "delivery 1's claim never expired")
	} else {
		require.NoError(t, a.Release(ctx, id, stale))
		st, live = claimToken(t, a, id)
		require.Equal(t, bankpay.ClaimNew, st)
	}
	require.NotEqual(t, stale, live, "each claim has its own token")

	require.NoError(t, a.Release(ctx, id, stale))
	assert.Equal(t, bankpay.ClaimInProgress, claim(t, observer, id), "a stale release removed the live claim")
	require.NoError(t, a.Complete(ctx, id, stale, time.Hour))
	assert.Equal(t, bankpay.ClaimInProgress, claim(t, observer, id), "a stale completion marked the event done")
	got, err := a.Extend(ctx, id, stale)
	require.NoError(t, err)
	assert.Zero(t, got, "a stale claim was extended")
	got, err = a.Extend(ctx, id, live)
	require.NoError(t, err)
	assert.Positive(t, got, "the live claim could not be extended")
	if s.Shared {
		assert.Equal(t, ttl, got, "extended by the claim TTL")
	}
	require.NoError(t, a.Complete(ctx, id, live, time.Hour))
	assert.Equal(t, bankpay.ClaimDone, claim(t, observer, id))
	got, err = a.Extend(ctx, id, live)
	require.NoError(t, err)
	assert.Zero(t, got, "a completed claim was extended")
}

// testLongCallback: a callback 2.5 times longer than the claim TTL keeps
// its claim (the handler extends it): re-sends to other replicas meanwhile
// get 409, and the callback runs once. 2.5 s for every store, also one
// whose claims never expire: a handler that cancels a callback after its
// extension timeout (2 s) fails here.
func testLongCallback(t *testing.T, s Store) {
	const ttl = time.Second // its third is the time an extension may take on a loaded machine
	var calls atomic.Int32
	var finished atomic.Bool
	srvs := replicas(t, s.Open(t), []Config{{ClaimTTL: ttl}, {ClaimTTL: ttl}, {ClaimTTL: ttl}}, func(i int, ctx context.Context, ev *bankpay.Event) error {
		calls.Add(1)
		select {
		case <-time.After(5 * ttl / 2):
			finished.Store(true)
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	body, auth := notification(t, unique("ev-long"))
	first := make(chan int, 1)
	start := time.Now()
	go func() { first <- deliver(context.Background(), t, srvs[0], body, auth) }()
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	for time.Since(start) < 5*ttl/2-50*time.Millisecond {
		for _, srv := range srvs[1:] {
			// 409 while the callback runs; a slow re-send may find it done.
			if st := deliver(context.Background(), t, srv, body, auth); st != http.StatusConflict {
				assert.True(t, st == http.StatusOK && finished.Load(), "a re-send at %v: %d", time.Since(start), st)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	assert.Equal(t, http.StatusOK, <-first, "the long callback's delivery")
	for _, srv := range srvs {
		assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srv, body, auth))
	}
	assert.Equal(t, int32(1), calls.Load(), "callbacks")
}

// testAccounts: two merchants (accessIds) share one store, and their
// events have the same eventId: each merchant's callback runs for its own.
func testAccounts(t *testing.T, s Store) {
	newReplica := s.Open(t)
	other := bankpay.Credentials{AccessID: "suite-other-access-id", AccessKey: bankpay.NewSecret("suite-other-key"), MerchantID: "M2"}
	var calls [2]atomic.Int32
	mine := httptest.NewServer(bankpay.NewWebhookHandler(creds, func(context.Context, *bankpay.Event) error { calls[0].Add(1); return nil },
		bankpay.WithDeduplicator(newReplica(longConfig))))
	defer mine.Close()
	theirs := httptest.NewServer(bankpay.NewWebhookHandler(other, func(context.Context, *bankpay.Event) error { calls[1].Add(1); return nil },
		bankpay.WithDeduplicator(newReplica(longConfig))))
	defer theirs.Close()
	id := unique("ev-shared-id")
	body, auth := notification(t, id)
	obody, oauth := Notification(t, other, id, time.Now().Add(-time.Minute))
	for range 2 {
		assert.Equal(t, http.StatusOK, deliver(context.Background(), t, mine, body, auth))
		assert.Equal(t, http.StatusOK, deliver(context.Background(), t, theirs, obody, oauth))
	}
	assert.Equal(t, []int32{1, 1}, []int32{calls[0].Load(), calls[1].Load()}, "each account's event ran once")
}

// testRetentionCoversSkew: the handler's clock is 2 s behind the service's
// and its max age is 1 s (100 ms for a store where nothing expires by
// time). A replay 1.5 max ages after the event was processed is still
// accepted (the handler reads its age as -0.5 s, or -1.85 s), and it must
// still find the event done: the done mark outlives the max age plus the
// skew.
func testRetentionCoversSkew(t *testing.T, s Store) {
	maxAge := time.Second
	if !s.Shared {
		// Nothing expires by time at the store (the memory deduplicator):
		// the wait need only outlast the max age on the real clock, so that
		// a handler judging the age by it, not by its own clock, refuses
		// the replay. 100 ms: the replay may come up to 2.1 s after the
		// event (the handler's clock is 2 s behind), as against 3 s with
		// 1.5 s waited at a second.
		maxAge = 100 * time.Millisecond
	}
	var calls atomic.Int32
	behind := func() time.Time { return time.Now().Add(-2 * time.Second) }
	srvs := replicasOver(t, []bankpay.Deduplicator{s.Open(t)(longConfig)}, func(int, context.Context, *bankpay.Event) error {
		calls.Add(1)
		return nil
	}, bankpay.WithMaxEventAge(maxAge), bankpay.WithWebhookClock(behind))
	body, auth := Notification(t, creds, unique("ev-skew"), time.Now())
	require.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[0], body, auth))
	time.Sleep(maxAge + maxAge/2) // a store clock's retention of the max age alone is over
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[0], body, auth), "the replay")
	assert.Equal(t, int32(1), calls.Load(), "the replay ran the callback again")
}

// testFutureEvent: an event dated an hour ahead is refused (400) before it
// is claimed; one 4 minutes ahead (within the 5 minutes allowed) is
// processed.
func testFutureEvent(t *testing.T, s Store) {
	d := s.Open(t)(longConfig)
	var calls atomic.Int32
	srvs := replicasOver(t, []bankpay.Deduplicator{d}, func(int, context.Context, *bankpay.Event) error {
		calls.Add(1)
		return nil
	})
	id := unique("ev-future")
	body, auth := Notification(t, creds, id, time.Now().Add(time.Hour))
	assert.Equal(t, http.StatusBadRequest, deliver(context.Background(), t, srvs[0], body, auth))
	assert.Zero(t, calls.Load())
	body, auth = Notification(t, creds, unique("ev-soon"), time.Now().Add(4*time.Minute))
	assert.Equal(t, http.StatusOK, deliver(context.Background(), t, srvs[0], body, auth))
	assert.Equal(t, int32(1), calls.Load())
}

// testDoneMarkExpires: a done mark is kept for the keep Complete is given,
// then the key is new again.
func testDoneMarkExpires(t *testing.T, s Store) {
	needShared(t, s)
	const keep = 300 * time.Millisecond
	replica := s.Open(t)
	a, b := replica(longConfig), replica(longConfig)
	id := unique("ev-retention")
	st, tok := claimToken(t, a, id)
	require.Equal(t, bankpay.ClaimNew, st)
	done := time.Now()
	require.NoError(t, a.Complete(context.Background(), id, tok, keep))
	// Done until the keep is over (a New sooner fails below), then new.
	require.Eventually(t, func() bool {
		st := claim(t, b, id)
		if st == bankpay.ClaimNew {
			return true
		}
		assert.Equal(t, bankpay.ClaimDone, st)
		return false
	}, 20*keep, 20*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(done), keep-20*time.Millisecond, "forgotten before its keep")
}

// testCanceledContext: a canceled request's claim fails (the handler
// responds 500) rather than guessing.
func testCanceledContext(t *testing.T, s Store) {
	needShared(t, s)
	d := s.Open(t)(longConfig)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := d.Claim(ctx, unique("ev-canceled"))
	require.ErrorIs(t, err, context.Canceled)
}

// testClaimRunsOutUnreachable: replica A claims an event and loses its
// store before its first Extend (every Extend, and the release, fail). Its
// callback's context is canceled when the claim runs out at the store (the
// store's ClaimTTL after the claim), before replica B, which takes the
// event once the claim ran out, runs the callback: they never run at once.
func testClaimRunsOutUnreachable(t *testing.T, s Store) {
	needShared(t, s)
	const ttl = time.Second
	newReplica := s.Open(t)
	a := &killable{Deduplicator: newReplica(Config{ClaimTTL: ttl})}
	var aStarted, aEnded, bStarted atomic.Int64 // unix nanoseconds
	var aCause atomic.Value
	srvs := replicasOver(t, []bankpay.Deduplicator{a, newReplica(longConfig)}, func(i int, ctx context.Context, _ *bankpay.Event) error {
		if i == 1 {
			bStarted.CompareAndSwap(0, time.Now().UnixNano())
			return nil
		}
		aStarted.Store(time.Now().UnixNano())
		a.dead.Store(true) // the store is out of reach from the first Extend on
		defer func() { aEnded.Store(time.Now().UnixNano()) }()
		select {
		case <-ctx.Done():
			aCause.Store(context.Cause(ctx))
			return ctx.Err()
		case <-time.After(5 * ttl):
			return nil
		}
	})
	body, auth := notification(t, unique("ev-unreachable"))
	aStatus := make(chan int, 1)
	go func() { aStatus <- deliver(context.Background(), t, srvs[0], body, auth) }()
	require.Eventually(t, func() bool { return aStarted.Load() != 0 }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool {
		return deliver(context.Background(), t, srvs[1], body, auth) == http.StatusOK
	}, 10*ttl, 25*time.Millisecond, "B never took the event")
	assert.Equal(t, http.StatusInternalServerError, <-aStatus, "A's callback ran on after its claim ran out")
	cause, _ := aCause.Load().(error)
	assert.ErrorContains(t, cause, "claim was lost", "A's callback was not canceled")
	ran := time.Duration(aEnded.Load() - aStarted.Load())
	assert.Less(t, ran, ttl+300*time.Millisecond, "A's callback ran %v on a claim of %v", ran, ttl)
	// A's context is canceled at the claim's end; B claims no sooner. The
	// margin is the time A's goroutine takes to see it.
	assert.Less(t, aEnded.Load(), bStarted.Load()+(50*time.Millisecond).Nanoseconds(),
		"A's callback ran %v after B's started", time.Duration(aEnded.Load()-bStarted.Load()))
}

// purger is a store that deletes expired rows on request (pgdedup).
type purger interface {
	Purge(ctx context.Context) (int64, error)
}

// testLateCompleteAfterPurge: A's claim runs out (A paused past it) and
// nobody claims the event again; another replica purges what expired (when
// the store purges: PostgreSQL). A's late Complete must still record the
// event done, so that the service's re-send does not run the callback a
// second time.
func testLateCompleteAfterPurge(t *testing.T, s Store) {
	needShared(t, s)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	replica := s.Open(t)
	a, b := replica(Config{ClaimTTL: ttl}), replica(longConfig)
	id := unique("ev-late-complete")
	st, tok := claimToken(t, a, id)
	require.Equal(t, bankpay.ClaimNew, st)
	time.Sleep(2 * ttl) // the claim ran out; no delivery came meanwhile
	if p, ok := b.(purger); ok {
		_, err := p.Purge(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, a.Complete(ctx, id, tok, time.Hour))
	assert.Equal(t, bankpay.ClaimDone, claim(t, b, id), "the late Complete was lost: the re-send runs the callback again")
}
