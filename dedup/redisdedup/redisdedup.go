// Package redisdedup is a bankpay.Deduplicator on Redis, shared by every
// replica of the merchant's webhook handler: each eventId is processed once,
// whichever replica a delivery reaches.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	d := redisdedup.New(rdb, redisdedup.Options{})
//	h := bankpay.NewWebhookHandler(creds, handle, bankpay.WithDeduplicator(d))
//
// One key per eventId (Options.KeyPrefix + eventId). A claim is SET NX PX
// with this instance's random token, so it expires after ClaimTTL and the
// event of a replica that died mid-callback is processed on the service's
// next re-send; Release deletes the key only while it still holds that
// token (a Lua compare-and-delete). A done mark has its own TTL, Retention.
// Redis expires both: nothing to purge. Claim and Release are Lua scripts
// on one key (Redis 2.6.12 or later; on a cluster, any node).
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
	defaultRetention = 24 * time.Hour
	// doneMark is a processed eventId's value; a claim's is a token of 32
	// hex digits, which never equals it.
	doneMark = "done"
)

// Options configure New. The zero value is the defaults.
type Options struct {
	// KeyPrefix is put before each eventId to make its key;
	// "bankpay:event:" when empty.
	KeyPrefix string
	// ClaimTTL is how long a claim stays in progress without Complete or
	// Release: after it, the replica is taken for dead and the next
	// delivery is processed again. Keep it above the longest callback (the
	// service waits 3 seconds) and below the 5 minutes between re-sends.
	// One minute when <= 0.
	ClaimTTL time.Duration
	// Retention is how long a processed eventId is remembered. Keep it at
	// least the handler's max event age (WithMaxEventAge, 24 hours by
	// default): an older event is refused as stale anyway. 24 hours when
	// <= 0.
	Retention time.Duration
}

// Deduplicator is a bankpay.Deduplicator on Redis. Make one per process
// with New; it is safe for concurrent use.
type Deduplicator struct {
	rdb       redis.Cmdable
	prefix    string
	token     string // this instance's claims' value
	claimTTL  int64  // milliseconds
	retention time.Duration
}

var _ bankpay.Deduplicator = (*Deduplicator)(nil)

// claimScript sets the claim if the key is free and otherwise reports what
// holds it: 0 claimed, 1 in progress, 2 done. KEYS[1] the key, ARGV[1] the
// token, ARGV[2] the claim TTL in milliseconds, ARGV[3] the done mark.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
if redis.call('GET', KEYS[1]) == ARGV[3] then return 2 end
return 1`)

// releaseScript deletes the key only while it holds ARGV[1], this
// instance's token.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// New returns a Deduplicator over rdb (a *redis.Client, *redis.ClusterClient
// or *redis.Ring).
func New(rdb redis.Cmdable, opts Options) *Deduplicator {
	var tok [16]byte
	_, _ = rand.Read(tok[:]) // crypto/rand.Read never fails (Go 1.24+)
	d := &Deduplicator{rdb: rdb, prefix: opts.KeyPrefix, token: hex.EncodeToString(tok[:]),
		claimTTL: defaultClaimTTL.Milliseconds(), retention: opts.Retention}
	if d.prefix == "" {
		d.prefix = defaultKeyPrefix
	}
	if opts.ClaimTTL > 0 {
		d.claimTTL = max(opts.ClaimTTL.Milliseconds(), 1)
	}
	if d.retention <= 0 {
		d.retention = defaultRetention
	}
	return d
}

// Claim implements bankpay.Deduplicator: SET NX PX with this instance's
// token, or, when the key exists, its state, in one script.
func (d *Deduplicator) Claim(ctx context.Context, eventID string) (bankpay.ClaimState, error) {
	n, err := claimScript.Run(ctx, d.rdb, []string{d.prefix + eventID}, d.token, d.claimTTL, doneMark).Int()
	if err != nil {
		return 0, fmt.Errorf("redisdedup: claim: %w", err)
	}
	switch n {
	case 0:
		return bankpay.ClaimNew, nil
	case 2:
		return bankpay.ClaimDone, nil
	}
	return bankpay.ClaimInProgress, nil
}

// Complete implements bankpay.Deduplicator: the eventId is marked done for
// Options.Retention, whoever holds its claim.
func (d *Deduplicator) Complete(ctx context.Context, eventID string) error {
	if err := d.rdb.Set(ctx, d.prefix+eventID, doneMark, d.retention).Err(); err != nil {
		return fmt.Errorf("redisdedup: complete: %w", err)
	}
	return nil
}

// Release implements bankpay.Deduplicator: the key is deleted if it still
// holds this instance's claim. A done mark, or a claim that expired and
// another replica has taken since, is left as it is.
func (d *Deduplicator) Release(ctx context.Context, eventID string) error {
	if err := releaseScript.Run(ctx, d.rdb, []string{d.prefix + eventID}, d.token).Err(); err != nil {
		return fmt.Errorf("redisdedup: release: %w", err)
	}
	return nil
}
