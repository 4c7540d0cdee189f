// Package redisdedup is a bankpay.Deduplicator on Redis, shared by every
// replica of the merchant's webhook handler: each event is processed once,
// whichever replica a delivery reaches.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	d := redisdedup.New(rdb, redisdedup.Options{})
//	h := bankpay.NewWebhookHandler(creds, handle, bankpay.WithDeduplicator(d))
//
// One key per event (Options.KeyPrefix + the handler's key: accessId and
// eventId). A claim is SET NX PX with the claim's own random token, so it
// expires after ClaimTTL unless the handler extends it (it does while the
// callback runs), and the event of a replica that died mid-callback is
// processed on the service's next re-send. Extend, Complete and Release are
// Lua compare-and-set scripts on the token: a claim that is no longer
// current (it expired and was claimed again, or was released) changes
// nothing. A done mark lasts as long as the handler asks (its max event age
// plus twice the allowed clock skew). Redis expires both: nothing to purge.
// The scripts touch one key each (Redis 2.6.12 or later; on a cluster, any
// node).
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
	// hex digits, which never equals it.
	doneMark = "done"
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

// claimScript sets the claim if the key is free and otherwise reports what
// holds it: 0 claimed, 1 in progress, 2 done. KEYS[1] the key, ARGV[1] the
// claim's token, ARGV[2] the claim TTL in milliseconds, ARGV[3] the done
// mark.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
if redis.call('GET', KEYS[1]) == ARGV[3] then return 2 end
return 1`)

// extendScript sets the key's TTL to ARGV[2] milliseconds while it holds
// the token ARGV[1]: 1 extended, 0 not.
var extendScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)

// completeScript replaces the token ARGV[1] with the done mark ARGV[2], for
// ARGV[3] milliseconds (for ever when 0).
var completeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1 end
return redis.call('SET', KEYS[1], ARGV[2]) and 1`)

// releaseScript deletes the key only while it holds the token ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

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

// Claim implements bankpay.Deduplicator: SET NX PX with a new random
// token, or, when the key exists, its state, in one script.
func (d *Deduplicator) Claim(ctx context.Context, key string) (bankpay.ClaimState, string, error) {
	var tok [16]byte
	_, _ = rand.Read(tok[:]) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(tok[:])
	n, err := claimScript.Run(ctx, d.rdb, []string{d.prefix + key}, token, d.claimTTL, doneMark).Int()
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

// Extend implements bankpay.Deduplicator: while the key holds token, its
// TTL is ClaimTTL from now.
func (d *Deduplicator) Extend(ctx context.Context, key, token string) (time.Duration, error) {
	n, err := extendScript.Run(ctx, d.rdb, []string{d.prefix + key}, token, d.claimTTL).Int()
	if err != nil {
		return 0, fmt.Errorf("redisdedup: extend: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	return time.Duration(d.claimTTL) * time.Millisecond, nil
}

// Complete implements bankpay.Deduplicator: while the key holds token, it
// becomes the done mark, for keep (for ever when keep <= 0).
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

// Release implements bankpay.Deduplicator: the key is deleted while it
// holds token. A done mark, or a later claim (the same replica's or
// another's), is left as it is.
func (d *Deduplicator) Release(ctx context.Context, key, token string) error {
	if err := releaseScript.Run(ctx, d.rdb, []string{d.prefix + key}, token).Err(); err != nil {
		return fmt.Errorf("redisdedup: release: %w", err)
	}
	return nil
}
