package redisdedup_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/redisdedup"
	"github.com/bankpay/bankpay-go/internal/dedupsuite"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addr returns the test server's address (it skips without one, or fails in CI).
func addr(tb testing.TB) string { return dedupsuite.ServerEnv(tb, dedupsuite.RedisAddrEnv) }

// client opens a client of its own, as each replica's process has, closed
// with the test.
func client(tb testing.TB) *redis.Client {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr(tb), PoolSize: 16})
	tb.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// freshPrefix returns a key prefix no other test uses; its keys are deleted
// with the test.
func freshPrefix(tb testing.TB, rdb *redis.Client) string {
	tb.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	prefix := "bankpay:test:" + hex.EncodeToString(b[:]) + ":"
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			assert.NoError(tb, rdb.Del(ctx, iter.Val()).Err())
		}
		assert.NoError(tb, iter.Err())
	})
	return prefix
}

// store is the suite's Redis store: a fresh key prefix per test, and per
// replica its own client and Deduplicator.
var store = dedupsuite.Store{
	Name:   "redis",
	Shared: true,
	Open: func(tb testing.TB) func(dedupsuite.Config) bankpay.Deduplicator {
		prefix := freshPrefix(tb, client(tb))
		return func(cfg dedupsuite.Config) bankpay.Deduplicator {
			return redisdedup.New(client(tb), redisdedup.Options{KeyPrefix: prefix, ClaimTTL: cfg.ClaimTTL})
		}
	},
}

func TestSuite(t *testing.T) {
	addr(t) // one skip for the whole suite
	dedupsuite.Run(t, store)
}

// BenchmarkVerifiedEvents: events/s through the webhook handler with the
// memory deduplicator (the baseline) and with Redis, in one run.
func BenchmarkVerifiedEvents(b *testing.B) { dedupsuite.Bench(b, dedupsuite.Memory, store) }

// claimValue reads key's claim: its token and when it runs out by the
// server's clock (as now, the server's time).
func claimValue(t *testing.T, rdb *redis.Client, key string) (token string, runsOut, now time.Time) {
	t.Helper()
	ctx := context.Background()
	v, err := rdb.Get(ctx, key).Result()
	require.NoError(t, err)
	m := regexp.MustCompile(`^([0-9a-f]{32}):([0-9]+)$`).FindStringSubmatch(v)
	require.NotNil(t, m, "a claim holds its token and when it runs out: %q", v)
	ms, err := strconv.ParseInt(m[2], 10, 64)
	require.NoError(t, err)
	now, err = rdb.Time(ctx).Result()
	require.NoError(t, err)
	return m[1], time.UnixMilli(ms), now
}

// TestKeys: a claim and a done mark as keys, with their TTLs; the default
// prefix.
func TestKeys(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	prefix := freshPrefix(t, rdb)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: prefix, ClaimTTL: 90 * time.Second})
	claimed := dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew)
	token, runsOut, now := claimValue(t, rdb, prefix+"ev-1")
	assert.Equal(t, claimed, token)
	assert.WithinDuration(t, now.Add(90*time.Second), runsOut, 5*time.Second, "the claim runs out after ClaimTTL")
	keyTTL, err := rdb.PTTL(ctx, prefix+"ev-1").Result()
	require.NoError(t, err)
	assert.InDelta(t, 90*time.Second+keepPastClaim, keyTTL, float64(5*time.Second), "the key outlives the claim")

	// The claim ran out a second ago (by the server's clock) and nobody
	// claimed it again: Extend renews it.
	require.NoError(t, rdb.Set(ctx, prefix+"ev-1", token+":"+strconv.FormatInt(now.Add(-time.Second).UnixMilli(), 10), time.Minute).Err())
	extended, err := d.Extend(ctx, "ev-1", token)
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, extended)
	_, runsOut, now = claimValue(t, rdb, prefix+"ev-1")
	assert.WithinDuration(t, now.Add(90*time.Second), runsOut, 5*time.Second, "extended")
	keyTTL, err = rdb.PTTL(ctx, prefix+"ev-1").Result()
	require.NoError(t, err)
	assert.InDelta(t, 90*time.Second+keepPastClaim, keyTTL, float64(5*time.Second), "extended")

	require.NoError(t, d.Complete(ctx, "ev-1", token, 36*time.Hour))
	doneTTL, err := rdb.PTTL(ctx, prefix+"ev-1").Result()
	require.NoError(t, err)
	assert.InDelta(t, 36*time.Hour, doneTTL, float64(5*time.Second))
	mark, err := rdb.Get(ctx, prefix+"ev-1").Result()
	require.NoError(t, err)
	assert.NotContains(t, mark, token)

	def := redisdedup.New(rdb, redisdedup.Options{})
	id := "ev-" + prefix // unique
	t.Cleanup(func() { rdb.Del(context.Background(), "bankpay:event:"+id) })
	_, token, err = def.Claim(ctx, id)
	require.NoError(t, err)
	_, runsOut, now = claimValue(t, rdb, "bankpay:event:"+id)
	assert.WithinDuration(t, now.Add(time.Minute), runsOut, 5*time.Second, "the default prefix and claim TTL")
	require.NoError(t, def.Complete(ctx, id, token, 0))
	ttl, err := rdb.PTTL(ctx, "bankpay:event:"+id).Result()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), ttl, "keep <= 0: no TTL")
}

// keepPastClaim is how long a claim's key outlives the claim: the
// handler's default retention, 24 hours plus 10 minutes.
const keepPastClaim = 24*time.Hour + 10*time.Minute

// TestClaimThatRanOut, without waiting: a claim whose time is up (by the
// server's clock) is free to the next Claim, which replaces its token; a
// value of another shape (an earlier version's bare token, whose key
// expires with its claim) is in progress until its key expires.
func TestClaimThatRanOut(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	prefix := freshPrefix(t, rdb)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: prefix})
	stale := dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew)
	dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimInProgress, "a live claim")
	_, _, now := claimValue(t, rdb, prefix+"ev-1")
	require.NoError(t, rdb.Set(ctx, prefix+"ev-1", stale+":"+strconv.FormatInt(now.UnixMilli(), 10), time.Minute).Err())
	live := dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew, "a claim that runs out now is free")
	got, _, _ := claimValue(t, rdb, prefix+"ev-1")
	assert.Equal(t, live, got)
	ttl, err := d.Extend(ctx, "ev-1", stale)
	require.NoError(t, err)
	assert.Zero(t, ttl, "the replaced claim was extended")
	require.NoError(t, d.Complete(ctx, "ev-1", stale, time.Hour))
	require.NoError(t, d.Release(ctx, "ev-1", stale))
	got, _, _ = claimValue(t, rdb, prefix+"ev-1")
	assert.Equal(t, live, got, "the replaced claim's Complete or Release changed the key")

	require.NoError(t, rdb.Set(ctx, prefix+"ev-2", stale, time.Minute).Err())
	dedupsuite.MustClaim(t, d, "ev-2", bankpay.ClaimInProgress, "an earlier version's claim")
	require.NoError(t, d.Complete(ctx, "ev-2", stale, time.Hour))
	v, err := rdb.Get(ctx, prefix+"ev-2").Result()
	require.NoError(t, err)
	assert.Equal(t, stale, v, "a value of another shape was completed")
}

// TestScriptsReloaded: after SCRIPT FLUSH (a restarted or failed-over
// server) the scripts are sent again.
func TestScriptsReloaded(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: freshPrefix(t, rdb)})
	require.NoError(t, rdb.ScriptFlush(ctx).Err())
	token := dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew)
	require.NoError(t, rdb.ScriptFlush(ctx).Err())
	ttl, err := d.Extend(ctx, "ev-1", token)
	require.NoError(t, err)
	assert.Positive(t, ttl)
	require.NoError(t, rdb.ScriptFlush(ctx).Err())
	require.NoError(t, d.Release(ctx, "ev-1", token))
	token = dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew, "released")
	require.NoError(t, rdb.ScriptFlush(ctx).Err())
	require.NoError(t, d.Complete(ctx, "ev-1", token, time.Hour))
	dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimDone, "completed")
}

// TestStoreDown: a store that cannot be reached fails the claim (the
// handler responds 500, and the service re-sends).
func TestStoreDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := l.Addr().String()
	require.NoError(t, l.Close())
	rdb := redis.NewClient(&redis.Options{Addr: down, MaxRetries: -1, DialTimeout: 2 * time.Second})
	defer rdb.Close()
	d := redisdedup.New(rdb, redisdedup.Options{})
	_, _, err = d.Claim(context.Background(), "ev-1")
	assert.ErrorContains(t, err, "redisdedup: claim")
	_, err = d.Extend(context.Background(), "ev-1", "t")
	assert.ErrorContains(t, err, "redisdedup: extend")
	assert.ErrorContains(t, d.Complete(context.Background(), "ev-1", "t", time.Hour), "redisdedup: complete")
	assert.ErrorContains(t, d.Release(context.Background(), "ev-1", "t"), "redisdedup: release")
}

// A delivery whose callback succeeded after its claim ran out (a process
// paused past the TTL) and that no other delivery took in the meantime:
// its Complete must still leave the done mark, as pgdedup's does, or a
// replay of the captured notification within the max age runs the callback
// again.
func TestCompleteAfterTheClaimRanOut(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: freshPrefix(t, rdb), ClaimTTL: 100 * time.Millisecond})
	tok := dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimNew)
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, d.Complete(ctx, "ev1", tok, time.Hour))
	dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimDone, "the processed event is claimable again")

	// A live claim of another delivery is left alone.
	tok2 := dedupsuite.MustClaim(t, d, "ev2", bankpay.ClaimNew)
	time.Sleep(200 * time.Millisecond)
	dedupsuite.MustClaim(t, d, "ev2", bankpay.ClaimNew)
	require.NoError(t, d.Complete(ctx, "ev2", tok2, time.Hour))
	dedupsuite.MustClaim(t, d, "ev2", bankpay.ClaimInProgress, "a stale Complete replaced a live claim")
}

// As in pgdedup: found by review when the token was the instance's, so a
// stale delivery's Release deleted a live re-claim of the same replica.
// Each claim now has its own token.
func TestReleaseDropsSameInstanceReclaim(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: freshPrefix(t, rdb), ClaimTTL: 200 * time.Millisecond})
	first := dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimNew)
	time.Sleep(300 * time.Millisecond)
	dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimNew)
	require.NoError(t, d.Release(ctx, "ev1", first))
	dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimInProgress, "delivery 2's claim was released by delivery 1")
}
