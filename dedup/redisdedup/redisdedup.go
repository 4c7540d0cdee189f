// Package redisdedup is a bankpay.Deduplicator on Redis, shared by every
// replica of the merchant's webhook handler: each event is processed once,
// whichever replica a delivery reaches.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	d := redisdedup.New(rdb, redisdedup.Options{})
//	h := bankpay.NewWebhookHandler(creds, handle, bankpay.WithDeduplicator(d))
//
// One key per event (Options.KeyPrefix + the handler's key: accessId and
// eventId). A claim's value is its own random token and the time it runs
// out, by the Redis server's clock ("<token>:<unix ms>"): ClaimTTL from
// the claim, unless the handler extends it (it does while the callback
// runs). After that the next delivery takes the key (the event of a replica
// that died mid-callback is processed on the service's next re-send), but
// until then the key keeps the run-out claim's token, as pgdedup keeps its
// row: a callback that finished after its claim ran out (a process paused
// past the TTL) still completes it, when no other delivery claimed the
// event meanwhile, so a replay within the max age finds it done. The key
// itself expires claimKeep after the claim runs out. Claim, Extend,
// Complete and Release are Lua scripts on one key each: a claim that is no
// longer current (it was claimed again, released or completed) changes
// nothing. A done mark lasts as long as the handler asks (its max event age
// plus twice the allowed clock skew). Redis expires both: nothing to purge.
// The scripts read the server's TIME before they write, so they need Redis
// 5 or later (scripts replicated by their effects); on a cluster, any node.
package redisdedup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/redis/go-redis/v9"
)

// Defaults of Options.
const (
	defaultKeyPrefix = "bankpay:event:"
	defaultClaimTTL  = time.Minute
	// doneMark is a processed event's value; a claim's is a token of 32
	// hex digits, a colon and digits, which never equals it.
	doneMark = "done"
	// claimKeep is how long a claim's key outlives the claim's end: the
	// handler's default retention (24 hours' max event age plus twice 5
	// minutes of allowed clock skew). A Complete that late is of an event
	// whose every delivery is stale by then (with the default max age), and
	// a run-out claim costs no more than the done mark it may become.
	claimKeep = 24*time.Hour + 10*time.Minute
)

// Options configure New. The zero value is the defaults.
type Options struct {
	// KeyPrefix is put before each key; "bankpay:event:" when empty.
	KeyPrefix string
	// ClaimTTL is how long a claim stays in progress without Extend,
	// Complete or Release: after it, the replica is taken for dead and the
	// next delivery is processed again. The handler extends a claim while
	// its callback runs, so it need not exceed the longest callback; keep it
	// above a second and below the 5 minutes between re-sends. One minute
	// when <= 0.
	ClaimTTL time.Duration
}

// Deduplicator is a bankpay.Deduplicator on Redis. Make one per process
// with New; it is safe for concurrent use.
type Deduplicator struct {
	rdb      redis.Cmdable
	prefix   string
	claimTTL int64 // milliseconds
}

var _ bankpay.Deduplicator = (*Deduplicator)(nil)

// The scripts' shared Lua. now() is the server's clock in milliseconds.
// holder(v) is the token of the claim value v ("<token>:<ms>") and the
// time it runs out; nil for a done mark, nothing or another value. setClaim
// writes token's claim of KEYS[1]: it runs out ttl milliseconds from now,
// and the key claimKeep after that.
const luaLib = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function holder(v)
  if not v then return nil end
  local tok, ends = string.match(v, '^(%x+):(%d+)$')
  return tok, tonumber(ends)
end
local function setClaim(token, ttl, keep)
  local ends = now() + tonumber(ttl)
  redis.call('SET', KEYS[1], token .. ':' .. string.format('%.0f', ends), 'PX', tonumber(ttl) + tonumber(keep))
end
`

// claimScript claims the key when it is free (no key, or a claim that ran
// out) with the token ARGV[1] for ARGV[2] milliseconds (its key kept ARGV[4]
// more) and otherwise reports what holds it: 0 claimed, 1 in progress, 2
// done. ARGV[3] is the done mark. A value of another shape (a bare token of
// an earlier version of this package, whose key expires with its claim) is
// in progress.
var claimScript = redis.NewScript(luaLib + `
local v = redis.call('GET', KEYS[1])
if v == ARGV[3] then return 2 end
if v then
  local tok, ends = holder(v)
  if not tok or ends > now() then return 1 end
end
setClaim(ARGV[1], ARGV[2], ARGV[4])
return 0`)

// extendScript renews the claim of the token ARGV[1], whether or not it ran
// out, while no other claim replaced it, for ARGV[2] milliseconds (its key
// kept ARGV[3] more): 1 extended, 0 not.
var extendScript = redis.NewScript(luaLib + `
if holder(redis.call('GET', KEYS[1])) ~= ARGV[1] then return 0 end
setClaim(ARGV[1], ARGV[2], ARGV[3])
return 1`)

// completeScript replaces the claim of the token ARGV[1], whether or not it
// ran out, with the done mark ARGV[2], for ARGV[3] milliseconds (for ever
// when 0).
var completeScript = redis.NewScript(luaLib + `
if holder(redis.call('GET', KEYS[1])) ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1 end
return redis.call('SET', KEYS[1], ARGV[2]) and 1`)

// releaseScript deletes the key while it holds the claim of the token
// ARGV[1], whether or not it ran out.
var releaseScript = redis.NewScript(luaLib + `
if holder(redis.call('GET', KEYS[1])) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`)

// New returns a Deduplicator over rdb (a *redis.Client, *redis.ClusterClient
// or *redis.Ring).
func New(rdb redis.Cmdable, opts Options) *Deduplicator {
	d := &Deduplicator{rdb: rdb, prefix: opts.KeyPrefix, claimTTL: defaultClaimTTL.Milliseconds()}
	if d.prefix == "" {
		d.prefix = defaultKeyPrefix
	}
	if opts.ClaimTTL > 0 {
		d.claimTTL = max(opts.ClaimTTL.Milliseconds(), 1)
	}
	return d
}

// Claim implements bankpay.Deduplicator: a new random token claims the key
// when it is free (never seen, released, expired, or holding a claim that
// ran out), or the script reports its state.
func (d *Deduplicator) Claim(ctx context.Context, key string) (bankpay.ClaimState, string, error) {
	var tok [16]byte
	_, _ = rand.Read(tok[:]) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(tok[:])
	n, err := claimScript.Run(ctx, d.rdb, []string{d.prefix + key}, token, d.claimTTL, doneMark, claimKeep.Milliseconds()).Int()
	if err != nil {
		return 0, "", fmt.Errorf("redisdedup: claim: %w", err)
	}
	switch n {
	case 0:
		return bankpay.ClaimNew, token, nil
	case 2:
		return bankpay.ClaimDone, "", nil
	}
	return bankpay.ClaimInProgress, "", nil
}

// ClaimTTL is how long a new claim lasts unless extended (Options.ClaimTTL):
// the webhook handler cancels the callback when its claim runs out, even if
// it cannot reach Redis to extend it.
func (d *Deduplicator) ClaimTTL() time.Duration { return time.Duration(d.claimTTL) * time.Millisecond }

// Extend implements bankpay.Deduplicator: while token's claim is the key's
// (it may have run out, if no other delivery claimed the key since), it
// runs out ClaimTTL from now.
func (d *Deduplicator) Extend(ctx context.Context, key, token string) (time.Duration, error) {
	n, err := extendScript.Run(ctx, d.rdb, []string{d.prefix + key}, token, d.claimTTL, claimKeep.Milliseconds()).Int()
	if err != nil {
		return 0, fmt.Errorf("redisdedup: extend: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	return time.Duration(d.claimTTL) * time.Millisecond, nil
}

// Complete implements bankpay.Deduplicator: while token's claim is the
// key's (it may have run out, if no other delivery claimed the key since),
// the key becomes the done mark, for keep (for ever when keep <= 0).
func (d *Deduplicator) Complete(ctx context.Context, key, token string, keep time.Duration) error {
	ms := int64(0)
	if keep > 0 {
		ms = max(keep.Milliseconds(), 1)
	}
	if err := completeScript.Run(ctx, d.rdb, []string{d.prefix + key}, token, doneMark, ms).Err(); err != nil {
		return fmt.Errorf("redisdedup: complete: %w", err)
	}
	return nil
}

// Release implements bankpay.Deduplicator: the key is deleted while
// token's claim is the key's (it may have run out). A done mark, or a later
// claim (the same replica's or another's), is left as it is.
func (d *Deduplicator) Release(ctx context.Context, key, token string) error {
	if err := releaseScript.Run(ctx, d.rdb, []string{d.prefix + key}, token).Err(); err != nil {
		return fmt.Errorf("redisdedup: release: %w", err)
	}
	return nil
}
