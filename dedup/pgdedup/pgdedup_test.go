package pgdedup_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/pgdedup"
	"github.com/bankpay/bankpay-go/internal/dedupsuite"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dsn returns the test database's DSN (it skips without one, or fails in CI).
func dsn(tb testing.TB) string { return dedupsuite.ServerEnv(tb, dedupsuite.PostgresDSNEnv) }

// open opens a pool of its own, as each replica's process has, closed with
// the test.
func open(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("pgx", dsn(tb))
	require.NoError(tb, err)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// freshTable returns a table name no other test uses, dropped with the test.
func freshTable(tb testing.TB, db *sql.DB) string {
	tb.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	name := "bankpay_events_test_" + hex.EncodeToString(b[:])
	tb.Cleanup(func() {
		_, err := db.ExecContext(context.Background(), `DROP TABLE IF EXISTS `+name)
		assert.NoError(tb, err)
	})
	return name
}

// store is the suite's PostgreSQL store: a fresh table per test, and per
// replica its own pool and Deduplicator.
var store = dedupsuite.Store{
	Name:   "postgres",
	Shared: true,
	Open: func(tb testing.TB) func(dedupsuite.Config) bankpay.Deduplicator {
		admin := open(tb)
		table := freshTable(tb, admin)
		d, err := pgdedup.New(admin, pgdedup.Options{Table: table})
		require.NoError(tb, err)
		require.NoError(tb, d.CreateTable(context.Background()))
		return func(cfg dedupsuite.Config) bankpay.Deduplicator {
			d, err := pgdedup.New(open(tb), pgdedup.Options{Table: table, ClaimTTL: cfg.ClaimTTL})
			require.NoError(tb, err)
			return d
		}
	},
}

func TestSuite(t *testing.T) {
	dsn(t) // one skip for the whole suite
	dedupsuite.Run(t, store)
}

// BenchmarkVerifiedEvents: events/s through the webhook handler with the
// memory deduplicator (the baseline) and with PostgreSQL, in one run.
func BenchmarkVerifiedEvents(b *testing.B) { dedupsuite.Bench(b, dedupsuite.Memory, store) }

func TestNewChecksTableName(t *testing.T) {
	db, err := sql.Open("pgx", "postgres://127.0.0.1:1/none") // never connected
	require.NoError(t, err)
	defer db.Close()
	for _, ok := range []string{"", "events", "bankpay.events", "_e2", strings.Repeat("a", 63)} {
		_, err := pgdedup.New(db, pgdedup.Options{Table: ok})
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"events; DROP TABLE x", `"events"`, "a.b.c", "1events", "ev-ents", "a.", ".a", "événements", strings.Repeat("a", 64)} {
		_, err := pgdedup.New(db, pgdedup.Options{Table: bad})
		assert.ErrorContains(t, err, "table name", bad)
	}
	_, err = pgdedup.New(nil, pgdedup.Options{})
	assert.Error(t, err)
}

// TestStoreDown: a store that cannot be reached fails the claim (the
// handler responds 500, and the service re-sends).
func TestStoreDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	db, err := sql.Open("pgx", "postgres://u@"+addr+"/none?connect_timeout=2")
	require.NoError(t, err)
	defer db.Close()
	d, err := pgdedup.New(db, pgdedup.Options{})
	require.NoError(t, err)
	_, _, err = d.Claim(context.Background(), "ev-1")
	assert.ErrorContains(t, err, "pgdedup: claim")
	_, err = d.Extend(context.Background(), "ev-1", "t")
	assert.ErrorContains(t, err, "pgdedup: extend")
	assert.ErrorContains(t, d.Complete(context.Background(), "ev-1", "t", time.Hour), "pgdedup: complete")
	assert.ErrorContains(t, d.Release(context.Background(), "ev-1", "t"), "pgdedup: release")
	_, err = d.Purge(context.Background())
	assert.ErrorContains(t, err, "pgdedup: purge")
}

// TestCreateTableInSchema: a schema-qualified table, created twice.
func TestCreateTableInSchema(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	var b [5]byte
	_, _ = rand.Read(b[:])
	schema := "bankpay_test_" + hex.EncodeToString(b[:])
	_, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })

	d, err := pgdedup.New(db, pgdedup.Options{Table: schema + ".events"})
	require.NoError(t, err)
	require.NoError(t, d.CreateTable(ctx))
	require.NoError(t, d.CreateTable(ctx), "again")
	token := dedupsuite.MustClaim(t, d, "ev-1", bankpay.ClaimNew)
	require.NoError(t, d.Complete(ctx, "ev-1", token, time.Hour))

	var n int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM `+schema+`.events WHERE done`).Scan(&n))
	assert.Equal(t, 1, n)
	require.NoError(t, db.QueryRowContext(ctx,
		`SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'events_expires_at'`, schema).Scan(&n))
	assert.Equal(t, 1, n, "the index on expires_at, in the table's schema")
}

// TestDocumentedDDL: the DDL of the package documentation makes the table
// CreateTable makes.
func TestDocumentedDDL(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	src, err := os.ReadFile("pgdedup.go")
	require.NoError(t, err)
	var ddl []string
	for _, line := range strings.Split(string(src), "\n") {
		if l, ok := strings.CutPrefix(line, "//\t"); ok && (len(ddl) > 0 || strings.HasPrefix(l, "CREATE TABLE")) {
			ddl = append(ddl, l)
			if strings.HasPrefix(l, "CREATE INDEX") {
				break
			}
		}
	}
	require.NotEmpty(t, ddl, "no DDL in the package documentation")
	documented, created := freshTable(t, db), freshTable(t, db)
	_, err = db.ExecContext(ctx, strings.ReplaceAll(strings.Join(ddl, "\n"), "bankpay_events", documented))
	require.NoError(t, err, "the documented DDL")
	d, err := pgdedup.New(db, pgdedup.Options{Table: created})
	require.NoError(t, err)
	require.NoError(t, d.CreateTable(ctx))

	shape := func(table string) (cols []string) {
		rows, err := db.QueryContext(ctx, `SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, table)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var c string
			require.NoError(t, rows.Scan(&c))
			cols = append(cols, c)
		}
		require.NoError(t, rows.Err())
		var idx string
		require.NoError(t, db.QueryRowContext(ctx, `SELECT replace(indexdef, $1, 'T') FROM pg_indexes WHERE tablename = $1 AND indexname LIKE '%expires_at'`, table).Scan(&idx))
		return append(cols, idx)
	}
	want := shape(created)
	assert.Len(t, want, 5)
	assert.Equal(t, want, shape(documented))
}

// process claims id and completes it with keep.
func process(t *testing.T, d *pgdedup.Deduplicator, id string, keep time.Duration) {
	t.Helper()
	st, token, err := d.Claim(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st, id)
	require.NoError(t, d.Complete(context.Background(), id, token, keep))
}

// rows counts the table's rows.
func rows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRowContext(context.Background(), `SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// expired counts the table's rows whose time is up.
func expired(t *testing.T, db *sql.DB, table string) int {
	var n int
	if !assert.NoError(t, db.QueryRowContext(context.Background(), `SELECT count(*) FROM `+table+` WHERE expires_at <= now()`).Scan(&n)) {
		return -1
	}
	return n
}

// TestPurge: Purge deletes expired done marks, and claims that ran out longer
// ago than the handler's default retention, and only them.
func TestPurge(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	table := freshTable(t, db)
	short, err := pgdedup.New(db, pgdedup.Options{Table: table, ClaimTTL: 200 * time.Millisecond, PurgeInterval: -1})
	require.NoError(t, err)
	long, err := pgdedup.New(db, pgdedup.Options{Table: table, PurgeInterval: -1})
	require.NoError(t, err)
	require.NoError(t, short.CreateTable(ctx))

	_, _, err = short.Claim(ctx, "abandoned")
	require.NoError(t, err)
	for _, id := range []string{"done-1", "done-2"} {
		process(t, short, id, 200*time.Millisecond)
	}
	process(t, long, "kept-done", time.Hour)
	process(t, long, "kept-for-ever", 0)
	_, _, err = long.Claim(ctx, "kept-claim")
	require.NoError(t, err)

	_, _, err = short.Claim(ctx, "ancient") // ran out longer ago than the handler's default retention
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `UPDATE `+table+` SET expires_at = now() - interval '24 hours 11 minutes' WHERE event_id = 'ancient'`)
	require.NoError(t, err)

	require.Eventually(t, func() bool { return expired(t, db, table) == 4 }, 5*time.Second, 20*time.Millisecond)
	n, err := long.Purge(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "the expired done marks and the ancient claim")
	assert.Equal(t, 4, rows(t, db, table), "the abandoned claim is kept for a late Complete")
	for id, want := range map[string]bankpay.ClaimState{"kept-done": bankpay.ClaimDone, "kept-for-ever": bankpay.ClaimDone,
		"kept-claim": bankpay.ClaimInProgress, "done-1": bankpay.ClaimNew, "abandoned": bankpay.ClaimNew, "ancient": bankpay.ClaimNew} {
		st, _, err := short.Claim(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, st, id)
	}
}

// TestLazyPurge: Complete deletes expired rows once per PurgeInterval,
// never with a negative one.
func TestLazyPurge(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	table := freshTable(t, db)
	has := func(id string) bool {
		var n int
		require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE event_id = $1`, id).Scan(&n))
		return n == 1
	}
	short, err := pgdedup.New(db, pgdedup.Options{Table: table, PurgeInterval: -1})
	require.NoError(t, err)
	require.NoError(t, short.CreateTable(ctx))
	brief, err := pgdedup.New(db, pgdedup.Options{Table: table, ClaimTTL: 100 * time.Millisecond, PurgeInterval: -1})
	require.NoError(t, err)
	_, _, err = brief.Claim(ctx, "abandoned") // runs out, never taken again
	require.NoError(t, err)
	const keep = 200 * time.Millisecond
	for _, id := range []string{"a", "b", "c"} {
		process(t, short, id, keep)
	}
	require.Eventually(t, func() bool { return expired(t, db, table) == 4 }, 5*time.Second, 20*time.Millisecond)
	process(t, short, "d", keep)
	assert.True(t, has("a") && has("b") && has("c"), "purged with a negative interval")

	hourly, err := pgdedup.New(db, pgdedup.Options{Table: table, PurgeInterval: time.Hour})
	require.NoError(t, err)
	process(t, hourly, "e", keep) // the first Complete purges
	assert.False(t, has("a") || has("b") || has("c"), "not purged")
	assert.True(t, has("e"))
	assert.True(t, has("abandoned"), "a claim that ran out is kept for a late Complete")

	process(t, short, "g", keep)
	require.Eventually(t, func() bool {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE event_id = 'g' AND expires_at <= now()`).Scan(&n)
		return assert.NoError(t, err) && n == 1
	}, 5*time.Second, 20*time.Millisecond)
	process(t, hourly, "f", keep) // not due for an hour
	assert.True(t, has("g"), "purged again within the interval")
}

// TestClaimRow: a claim and a done mark as rows, with the database's times.
func TestClaimRow(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	table := freshTable(t, db)
	d, err := pgdedup.New(db, pgdedup.Options{Table: table, ClaimTTL: 90 * time.Second})
	require.NoError(t, err)
	require.NoError(t, d.CreateTable(ctx))
	_, token, err := d.Claim(ctx, "ev-1")
	require.NoError(t, err)
	left := func() (done bool, ttl time.Duration) {
		var secs float64
		require.NoError(t, db.QueryRowContext(ctx, `SELECT done, extract(epoch FROM expires_at - now()) FROM `+table+` WHERE event_id = 'ev-1'`).Scan(&done, &secs))
		return done, time.Duration(secs * float64(time.Second))
	}
	done, ttl := left()
	assert.False(t, done)
	assert.InDelta(t, 90*time.Second, ttl, float64(5*time.Second))
	_, err = db.ExecContext(ctx, `UPDATE `+table+` SET expires_at = now() + interval '1 second' WHERE event_id = 'ev-1'`)
	require.NoError(t, err)
	extended, err := d.Extend(ctx, "ev-1", token)
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, extended)
	_, ttl = left()
	assert.InDelta(t, 90*time.Second, ttl, float64(5*time.Second), "extended: the claim TTL from now")
	require.NoError(t, d.Complete(ctx, "ev-1", token, 36*time.Hour))
	done, ttl = left()
	assert.True(t, done)
	assert.InDelta(t, 36*time.Hour, ttl, float64(5*time.Second))
	var forever bool
	require.NoError(t, d.Complete(ctx, "ev-1", token, 0))
	require.NoError(t, db.QueryRowContext(ctx, `SELECT expires_at = 'infinity' FROM `+table+` WHERE event_id = 'ev-1'`).Scan(&forever))
	assert.True(t, forever, "keep <= 0: kept for ever")
}

// Found by review when the owner was the instance, not the claim: a
// delivery whose claim expired and was re-claimed by another request of the
// same replica released that request's claim when it failed, and a third
// delivery ran the callback while the second was still running it. Each
// claim now has its own token.
func TestReleaseDropsSameInstanceReclaim(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	table := freshTable(t, db)
	d, err := pgdedup.New(db, pgdedup.Options{Table: table, ClaimTTL: 200 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, d.CreateTable(ctx))

	first := dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimNew) // delivery 1: its callback runs past the TTL
	time.Sleep(300 * time.Millisecond)
	dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimNew)                                                         // delivery 2, same replica: claims again
	require.NoError(t, d.Release(ctx, "ev1", first))                                                            // delivery 1 fails: releases
	dedupsuite.MustClaim(t, d, "ev1", bankpay.ClaimInProgress, "delivery 2's claim was released by delivery 1") // delivery 3 while 2 still runs
}
