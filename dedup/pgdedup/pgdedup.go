// Package pgdedup is a bankpay.Deduplicator on PostgreSQL, shared by every
// replica of the merchant's webhook handler: each event is processed once,
// whichever replica a delivery reaches.
//
//	db, _ := sql.Open("pgx", dsn) // any database/sql driver for PostgreSQL
//	d, err := pgdedup.New(db, pgdedup.Options{})
//	if err == nil {
//		err = d.CreateTable(ctx) // or run the DDL below in a migration
//	}
//	h := bankpay.NewWebhookHandler(creds, handle, bankpay.WithDeduplicator(d))
//
// One row per event key (the handler's: accessId and eventId): an
// in-progress claim, which expires after ClaimTTL unless the handler extends
// it (it does while the callback runs), so that the event of a replica that
// died mid-callback is processed on the service's next re-send; or a done
// mark, kept as long as the handler asks (its max event age plus twice the
// allowed clock skew). The owner column holds the claim's own random token:
// Extend, Complete and Release by a claim that is no longer current (it
// expired and was claimed again, or was released) change nothing. The clock
// is the database's, so the replicas' clocks do not matter. The table
// (Options.Table, "bankpay_events" by default):
//
//	CREATE TABLE IF NOT EXISTS bankpay_events (
//		event_id   text PRIMARY KEY,
//		owner      text NOT NULL,
//		done       boolean NOT NULL DEFAULT false,
//		expires_at timestamptz NOT NULL
//	);
//	CREATE INDEX IF NOT EXISTS bankpay_events_expires_at ON bankpay_events (expires_at);
//
// Rows whose time is up are reused by the next claim of their eventId.
// Purge, which Complete also runs now and then (see Options.PurgeInterval),
// deletes a done mark once its time is up, and a claim 24 hours and 10
// minutes after it ran out (the handler's default retention), as
// redisdedup keeps its key: until then a late Complete of a claim that ran
// out and was not taken again (a replica paused past ClaimTTL, or cut off
// from the database) still records the event done, and the service's
// re-send does not run the callback again. After that, a Complete of a
// claim that is no longer in the table changes nothing and returns nil, as
// for any claim that is no longer current.
package pgdedup

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
)

// Defaults of Options.
const (
	defaultTable         = "bankpay_events"
	defaultClaimTTL      = time.Minute
	defaultPurgeInterval = 10 * time.Minute
	// purgeBatch is how many expired rows one lazy purge deletes at most.
	purgeBatch = 1000
	// claimKeep is how long Purge keeps a claim that ran out and was not
	// claimed again, as redisdedup keeps its key: the handler's default
	// retention (24 hours' max event age plus twice 5 minutes of allowed
	// clock skew). A callback that finished after its claim ran out (a
	// process paused past the TTL, a store out of reach) still completes
	// it within that time, so a re-send finds the event done.
	claimKeep = 24*time.Hour + 10*time.Minute
	// claimAttempts bounds Claim's insert-then-read loop (a row can vanish
	// or expire between the two statements).
	claimAttempts = 5
)

// Options configure New. The zero value is the defaults.
type Options struct {
	// Table is the table's name, optionally schema-qualified
	// ("bankpay.events"): letters, digits and underscores only, taken as
	// written (quoted, so upper case stays upper case).
	// "bankpay_events" when empty.
	Table string
	// ClaimTTL is how long a claim stays in progress without Extend,
	// Complete or Release: after it, the replica is taken for dead and the
	// next delivery is processed again. The handler extends a claim while
	// its callback runs, so it need not exceed the longest callback; keep it
	// above a second and below the 5 minutes between re-sends. One minute
	// when <= 0.
	ClaimTTL time.Duration
	// PurgeInterval is how often Complete deletes up to 1000 expired rows
	// (in its own statement, after the done mark is written). 10 minutes
	// when 0; a negative value turns it off (run Purge yourself).
	PurgeInterval time.Duration
}

// Deduplicator is a bankpay.Deduplicator on a PostgreSQL table. Make one per
// process with New; it is safe for concurrent use.
type Deduplicator struct {
	db            *sql.DB
	table         string // quoted
	index         string // quoted, the index on expires_at
	claimTTL      int64  // milliseconds
	purgeInterval time.Duration

	claimSQL, stateSQL, extendSQL, completeSQL, releaseSQL, purgeSQL, purgeBatchSQL string

	mu        sync.Mutex
	lastPurge time.Time
}

var _ bankpay.Deduplicator = (*Deduplicator)(nil)

// identifier is a table name New accepts: one or two plain identifiers.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// New returns a Deduplicator over db's table opts.Table (see CreateTable).
// It fails only for a nil db or a table name that is not one or two plain
// identifiers; it does not touch the database.
func New(db *sql.DB, opts Options) (*Deduplicator, error) {
	if db == nil {
		return nil, errors.New("pgdedup: nil *sql.DB")
	}
	name := opts.Table
	if name == "" {
		name = defaultTable
	}
	if !identifier.MatchString(name) {
		return nil, fmt.Errorf("pgdedup: table name %q: want letters, digits and underscores, optionally schema.table", name)
	}
	parts := strings.Split(name, ".")
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = `"` + p + `"`
	}
	d := &Deduplicator{
		db:            db,
		table:         strings.Join(quoted, "."),
		index:         `"` + parts[len(parts)-1] + `_expires_at"`,
		claimTTL:      millis(opts.ClaimTTL, defaultClaimTTL),
		purgeInterval: opts.PurgeInterval,
	}
	if d.purgeInterval == 0 {
		d.purgeInterval = defaultPurgeInterval
	}
	t := d.table
	// A new eventId, or one whose claim or done mark has expired, is
	// (re)claimed in one statement; otherwise nothing is written and
	// stateSQL reads what holds it.
	d.claimSQL = `INSERT INTO ` + t + ` AS e (event_id, owner, done, expires_at)
VALUES ($1, $2, false, now() + $3 * interval '1 millisecond')
ON CONFLICT (event_id) DO UPDATE SET owner = excluded.owner, done = false, expires_at = excluded.expires_at
WHERE e.expires_at <= now()
RETURNING true`
	d.stateSQL = `SELECT done FROM ` + t + ` WHERE event_id = $1 AND expires_at > now()`
	// Extend, Complete and Release act on the claim whose token is $2, and
	// only while no later claim has replaced it (a claim that expired but
	// was not claimed again is still this one's).
	d.extendSQL = `UPDATE ` + t + ` SET expires_at = now() + $3 * interval '1 millisecond'
WHERE event_id = $1 AND owner = $2 AND NOT done`
	// keep <= 0 keeps the mark for ever ('infinity' is never purged).
	d.completeSQL = `UPDATE ` + t + ` SET done = true, expires_at =
CASE WHEN $3 > 0 THEN now() + $3 * interval '1 millisecond' ELSE 'infinity'::timestamptz END
WHERE event_id = $1 AND owner = $2`
	d.releaseSQL = `DELETE FROM ` + t + ` WHERE event_id = $1 AND owner = $2 AND NOT done`
	// A done mark is purged once expired, a claim claimKeep after it ran
	// out: until then its token may still complete it (see Complete).
	expired := `expires_at <= now() AND (done OR expires_at <= now() - ` + fmt.Sprint(claimKeep.Milliseconds()) +
		` * interval '1 millisecond')`
	d.purgeSQL = `DELETE FROM ` + t + ` WHERE ` + expired
	d.purgeBatchSQL = `DELETE FROM ` + t + ` WHERE event_id IN (SELECT event_id FROM ` + t +
		` WHERE ` + expired + ` LIMIT ` + fmt.Sprint(purgeBatch) + `)`
	return d, nil
}

func millis(d, def time.Duration) int64 {
	if d <= 0 {
		d = def
	}
	if ms := d.Milliseconds(); ms > 0 {
		return ms
	}
	return 1
}

// CreateTable creates the table and its index on expires_at when they do
// not exist (the DDL of the package documentation). Run it at start-up or
// put the DDL in a migration.
func (d *Deduplicator) CreateTable(ctx context.Context) error {
	_, err := d.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+d.table+` (
	event_id   text PRIMARY KEY,
	owner      text NOT NULL,
	done       boolean NOT NULL DEFAULT false,
	expires_at timestamptz NOT NULL
)`)
	if err == nil {
		// The index goes into the table's schema (its name is bare).
		_, err = d.db.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS `+d.index+` ON `+d.table+` (expires_at)`)
	}
	if err != nil {
		return fmt.Errorf("pgdedup: create table: %w", err)
	}
	return nil
}

// Claim implements bankpay.Deduplicator: one INSERT … ON CONFLICT claims a
// new or expired key with a new random token; for one already held, a
// SELECT tells in progress from done.
func (d *Deduplicator) Claim(ctx context.Context, key string) (bankpay.ClaimState, string, error) {
	for range claimAttempts {
		token, err := newToken()
		if err != nil {
			return 0, "", err
		}
		var claimed bool
		err = d.db.QueryRowContext(ctx, d.claimSQL, key, token, d.claimTTL).Scan(&claimed)
		if err == nil {
			return bankpay.ClaimNew, token, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, "", fmt.Errorf("pgdedup: claim: %w", err)
		}
		var done bool
		err = d.db.QueryRowContext(ctx, d.stateSQL, key).Scan(&done)
		switch {
		case err == nil && done:
			return bankpay.ClaimDone, "", nil
		case err == nil:
			return bankpay.ClaimInProgress, "", nil
		case !errors.Is(err, sql.ErrNoRows):
			return 0, "", fmt.Errorf("pgdedup: claim: %w", err)
		}
		// Released, purged or expired since the insert: claim again.
	}
	// Still changing hands: another delivery is at work on it.
	return bankpay.ClaimInProgress, "", nil
}

// newToken returns a claim's random token, 32 hex digits.
func newToken() (string, error) {
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return "", fmt.Errorf("pgdedup: token: %w", err)
	}
	return hex.EncodeToString(tok[:]), nil
}

// ClaimTTL is how long a new claim lasts unless extended (Options.ClaimTTL):
// the webhook handler cancels the callback when its claim runs out, even if
// it cannot reach the database to extend it.
func (d *Deduplicator) ClaimTTL() time.Duration { return time.Duration(d.claimTTL) * time.Millisecond }

// Extend implements bankpay.Deduplicator: token's claim of key, while no
// later claim has replaced it and it is not done, lasts ClaimTTL from now.
func (d *Deduplicator) Extend(ctx context.Context, key, token string) (time.Duration, error) {
	res, err := d.db.ExecContext(ctx, d.extendSQL, key, token, d.claimTTL)
	if err != nil {
		return 0, fmt.Errorf("pgdedup: extend: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("pgdedup: extend: %w", err)
	} else if n == 0 {
		return 0, nil
	}
	return time.Duration(d.claimTTL) * time.Millisecond, nil
}

// Complete implements bankpay.Deduplicator: when token is key's current
// claim (it may have run out, if no other delivery claimed the key since;
// Purge keeps such a claim for 24 hours and 10 minutes), key is marked
// done for keep (for ever when keep <= 0). Now and
// then it also purges expired rows (Options.PurgeInterval); that purge's
// errors are not returned, since the done mark is written.
func (d *Deduplicator) Complete(ctx context.Context, key, token string, keep time.Duration) error {
	ms := keep.Milliseconds()
	if keep > 0 && ms == 0 {
		ms = 1
	}
	if _, err := d.db.ExecContext(ctx, d.completeSQL, key, token, ms); err != nil {
		return fmt.Errorf("pgdedup: complete: %w", err)
	}
	if d.purgeDue() {
		_, _ = d.db.ExecContext(ctx, d.purgeBatchSQL)
	}
	return nil
}

// Release implements bankpay.Deduplicator: token's claim of key, if it is
// still current and in progress, is deleted. A done mark, or a later claim
// (the same replica's or another's), is left as it is.
func (d *Deduplicator) Release(ctx context.Context, key, token string) error {
	if _, err := d.db.ExecContext(ctx, d.releaseSQL, key, token); err != nil {
		return fmt.Errorf("pgdedup: release: %w", err)
	}
	return nil
}

// Purge deletes every expired done mark, and every claim that ran out 24
// hours and 10 minutes ago or more, and returns how many it deleted. Complete purges in batches on its own unless
// Options.PurgeInterval is negative; call Purge from a periodic job then.
func (d *Deduplicator) Purge(ctx context.Context) (int64, error) {
	res, err := d.db.ExecContext(ctx, d.purgeSQL)
	if err != nil {
		return 0, fmt.Errorf("pgdedup: purge: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("pgdedup: purge: %w", err)
	}
	return n, nil
}

// purgeDue reports whether a lazy purge is due, and if so records it.
func (d *Deduplicator) purgeDue() bool {
	if d.purgeInterval < 0 {
		return false
	}
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.Sub(d.lastPurge) < d.purgeInterval {
		return false
	}
	d.lastPurge = now
	return true
}
