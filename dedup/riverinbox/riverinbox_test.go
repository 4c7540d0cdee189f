package riverinbox_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
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
	"github.com/bankpay/bankpay-go/dedup/riverinbox"
	"github.com/bankpay/bankpay-go/internal/dedupsuite"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var creds = bankpay.Credentials{AccessID: "inbox-access-id", AccessKey: bankpay.NewSecret("inbox-s3cret-key"), MerchantID: "M1"}

// dsn returns the test database\'s DSN (it skips without one, or fails in CI).
func dsn(tb testing.TB) string { return dedupsuite.ServerEnv(tb, dedupsuite.PostgresDSNEnv) }

// freshSchema makes a schema no other test uses, with River's tables
// (migrated by Migrate) and an effects table, dropped with the test, and
// returns a pool whose search_path is it.
func freshSchema(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	ctx := context.Background()
	pool := poolIn(tb, emptySchema(tb))
	require.NoError(tb, riverinbox.Migrate(ctx, pool))
	_, err := pool.Exec(ctx, `CREATE TABLE effects (event_id text NOT NULL, at timestamptz NOT NULL DEFAULT now())`)
	require.NoError(tb, err)
	return pool
}

// emptySchema makes an empty schema no other test uses, dropped with the
// test, and returns its name.
func emptySchema(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	var b [5]byte
	_, _ = rand.Read(b[:])
	schema := "inbox_test_" + hex.EncodeToString(b[:])
	admin, err := pgxpool.New(ctx, dsn(tb))
	require.NoError(tb, err)
	_, err = admin.Exec(ctx, `CREATE SCHEMA `+schema)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		_, err := admin.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		assert.NoError(tb, err)
		admin.Close()
	})
	return schema
}

// poolIn opens a pool of its own on schema, closed with the test.
func poolIn(tb testing.TB, schema string) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(dsn(tb))
	require.NoError(tb, err)
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// effect is a callback whose effect is a row in effects, in the job's
// transaction.
func effect(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
	_, err := tx.Exec(ctx, `INSERT INTO effects (event_id) VALUES ($1)`, ev.EventID)
	return err
}

// effects counts the effect rows of eventID.
func effects(t *testing.T, pool *pgxpool.Pool, eventID string) int {
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM effects WHERE event_id = $1`, eventID).Scan(&n))
	return n
}

// jobState returns the state of eventID's job and how many jobs it has.
func jobState(t *testing.T, pool *pgxpool.Pool, eventID string) (rivertype.JobState, int) {
	var states []string
	rows, err := pool.Query(context.Background(), `SELECT state::text FROM river_job WHERE args->>'eventId' = $1`, eventID)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		states = append(states, s)
	}
	require.NoError(t, rows.Err())
	if len(states) == 0 {
		return "", 0
	}
	return rivertype.JobState(states[0]), len(states)
}

// start makes an Inbox over pool with fn, starts it and stops it with the
// test.
func start(t *testing.T, pool *pgxpool.Pool, fn riverinbox.Func, opts riverinbox.Options) *riverinbox.Inbox {
	t.Helper()
	return startAs(t, pool, creds, fn, opts)
}

// startAs is start with the account c.
func startAs(t *testing.T, pool *pgxpool.Pool, c bankpay.Credentials, fn riverinbox.Func, opts riverinbox.Options) *riverinbox.Inbox {
	t.Helper()
	in, err := riverinbox.New(pool, c, fn, opts)
	require.NoError(t, err)
	require.NoError(t, in.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = in.Stop(ctx)
	})
	return in
}

// post delivers a notification as the service does; it returns the status.
func post(t *testing.T, h http.Handler, body, auth string) int {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/bankpay/events", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Authorization", auth)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

func unique(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// Every delivery is answered 200, one job is inserted per event, and the
// callback's effect is committed once, with the job's completion. Forged
// and future-dated notifications insert nothing.
func TestInboxOnce(t *testing.T) {
	pool := freshSchema(t)
	in := start(t, pool, effect, riverinbox.Options{})
	id := unique("ev")
	body, auth := dedupsuite.Notification(t, creds, id, time.Now().Add(-time.Minute))
	for range 3 {
		assert.Equal(t, http.StatusOK, post(t, in, body, auth))
	}
	require.Eventually(t, func() bool { st, _ := jobState(t, pool, id); return st == rivertype.JobStateCompleted },
		10*time.Second, 10*time.Millisecond)
	assert.Equal(t, http.StatusOK, post(t, in, body, auth), "a re-send after completion")
	_, n := jobState(t, pool, id)
	assert.Equal(t, 1, n, "jobs")
	assert.Equal(t, 1, effects(t, pool, id))

	forged := strings.Replace(body, "order-42", "order-43", 1)
	assert.Equal(t, http.StatusUnauthorized, post(t, in, forged, auth))
	future := unique("ev-future")
	fbody, fauth := dedupsuite.Notification(t, creds, future, time.Now().Add(time.Hour))
	assert.Equal(t, http.StatusBadRequest, post(t, in, fbody, fauth))
	_, n = jobState(t, pool, future)
	assert.Zero(t, n, "a future-dated event was queued")
}

// fastRetry retries at once.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(10 * time.Millisecond) }

// A callback that keeps failing is retried MaxAttempts times, its writes
// rolled back each time, and its job ends discarded with its errors; a
// re-send inserts nothing; the operator's retry runs it again, and once it
// succeeds its effect is there once.
func TestInboxDiscardedThenRetried(t *testing.T) {
	pool := freshSchema(t)
	var fail atomic.Bool
	fail.Store(true)
	var calls atomic.Int32
	in := start(t, pool, func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
		calls.Add(1)
		if err := effect(ctx, tx, ev); err != nil {
			return err
		}
		if fail.Load() {
			return errors.New("the merchant's system is down")
		}
		return nil
	}, riverinbox.Options{MaxAttempts: 3, RetryPolicy: fastRetry{}})
	id := unique("ev-fails")
	body, auth := dedupsuite.Notification(t, creds, id, time.Now().Add(-time.Minute))
	require.Equal(t, http.StatusOK, post(t, in, body, auth))
	require.Eventually(t, func() bool { st, _ := jobState(t, pool, id); return st == rivertype.JobStateDiscarded },
		20*time.Second, 10*time.Millisecond)
	assert.Equal(t, int32(3), calls.Load(), "attempts")
	assert.Zero(t, effects(t, pool, id), "a failed attempt's writes were committed")

	assert.Equal(t, http.StatusOK, post(t, in, body, auth), "a re-send of a discarded event")
	_, n := jobState(t, pool, id)
	assert.Equal(t, 1, n, "a re-send queued a second job")

	// The operator finds it and retries it.
	res, err := in.Client().JobList(context.Background(), river.NewJobListParams().States(rivertype.JobStateDiscarded))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)
	assert.Len(t, res.Jobs[0].Errors, 3, "each attempt's error is kept")
	fail.Store(false)
	_, err = in.Client().JobRetry(context.Background(), res.Jobs[0].ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { st, _ := jobState(t, pool, id); return st == rivertype.JobStateCompleted },
		20*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1, effects(t, pool, id))
}

// Stop drains: the running callback finishes and its job completes; the
// notification endpoint still answers in milliseconds while a callback
// takes long.
func TestInboxStopDrains(t *testing.T) {
	pool := freshSchema(t)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	in, err := riverinbox.New(pool, creds, func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
		once.Do(func() { close(started) })
		<-release
		return effect(ctx, tx, ev)
	}, riverinbox.Options{})
	require.NoError(t, err)
	require.NoError(t, in.Start(context.Background()))
	id := unique("ev-slow")
	body, auth := dedupsuite.Notification(t, creds, id, time.Now().Add(-time.Minute))
	begin := time.Now()
	require.Equal(t, http.StatusOK, post(t, in, body, auth))
	assert.Less(t, time.Since(begin), time.Second, "the acknowledgement waited for the callback")
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- in.Stop(context.Background()) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a callback ran")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-stopped)
	st, _ := jobState(t, pool, id)
	assert.Equal(t, rivertype.JobStateCompleted, st)
	assert.Equal(t, 1, effects(t, pool, id))
}

func TestNewChecks(t *testing.T) {
	_, err := riverinbox.New(nil, creds, effect, riverinbox.Options{})
	assert.Error(t, err)
}

// A JSON notification signed as sent (over its raw bytes) whose value holds
// percent-escapes: the handler verified and read it as sent; the worker must
// read the same event, not the URL-decoding in which a value's %22 closes
// its string and opens a splitToken field that was never signed as one.
func TestInboxWorkerReadsWhatWasVerified(t *testing.T) {
	pool := freshSchema(t)
	seen := make(chan *bankpay.Event, 1)
	in := start(t, pool, func(_ context.Context, _ pgx.Tx, ev *bankpay.Event) error { seen <- ev; return nil }, riverinbox.Options{})
	id := unique("ev-pct")
	body := `{"eventId":"` + id + `","eventType":"Authorize","createdAt":"` + strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10) +
		`","objectId":"T1","objectType":"Transaction","status":"2","customerName":"Eve%22,%22splitToken%22:%22forged"}`
	mac := hmac.New(sha1.New, []byte(creds.AccessKey.Reveal()))
	mac.Write([]byte(body))
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.AccessID+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	r := httptest.NewRequest(http.MethodPost, "/bankpay/events", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", auth)
	w := httptest.NewRecorder()
	in.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	select {
	case ev := <-seen:
		assert.Equal(t, id, ev.EventID)
		assert.Empty(t, ev.Raw.Get("splitToken"), "the worker read a field that was not signed as one")
		assert.Equal(t, "Eve%22,%22splitToken%22:%22forged", ev.Raw.Get("customerName"))
	case <-time.After(10 * time.Second):
		st, _ := jobState(t, pool, id)
		t.Fatalf("the callback did not run (job %s)", st)
	}
}

// Options.MaxEventAge is the handler's max age whatever HandlerOptions say:
// jobs are kept for it plus the skew, so a WithMaxEventAge there (0 turns
// the check off) would let a replay outlive its job and run again.
func TestInboxMaxEventAgeWinsOverHandlerOptions(t *testing.T) {
	pool := freshSchema(t)
	in, err := riverinbox.New(pool, creds, effect, riverinbox.Options{
		HandlerOptions: []bankpay.WebhookOption{bankpay.WithMaxEventAge(0)}})
	require.NoError(t, err)
	id := unique("ev-old")
	body, auth := dedupsuite.Notification(t, creds, id, time.Now().Add(-30*time.Hour))
	assert.Equal(t, http.StatusBadRequest, post(t, in, body, auth), "older than the 24 h the jobs are kept for")
	_, n := jobState(t, pool, id)
	assert.Zero(t, n, "a stale event was queued")
}

// Replicas starting together each run Migrate on a fresh schema at once
// (each with its own pool, as separate processes): without a lock, River's
// migrations raced (duplicate key value violates unique constraint
// "pg_type_typname_nsp_index") and a replica died. All succeed, and River's
// tables are there once.
func TestMigrateConcurrently(t *testing.T) {
	for round := range 3 {
		schema := emptySchema(t)
		const replicas = 6
		pools := make([]*pgxpool.Pool, replicas)
		for i := range pools {
			pools[i] = poolIn(t, schema)
		}
		errs := make(chan error, replicas)
		gate := make(chan struct{})
		for _, p := range pools {
			go func() {
				<-gate
				errs <- riverinbox.Migrate(context.Background(), p)
			}()
		}
		close(gate)
		for range replicas {
			assert.NoError(t, <-errs, "round %d", round)
		}
		var jobTables int
		require.NoError(t, pools[0].QueryRow(context.Background(),
			`SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'river_job'`, schema).Scan(&jobTables))
		assert.Equal(t, 1, jobTables)
		in, err := riverinbox.New(pools[0], creds, effect, riverinbox.Options{})
		require.NoError(t, err)
		body, auth := dedupsuite.Notification(t, creds, unique("ev-migrated"), time.Now().Add(-time.Minute))
		assert.Equal(t, http.StatusOK, post(t, in, body, auth), "an event inserted into the migrated tables")
	}
}

// Migrate refuses a pool it would deadlock (the lock holds its only
// connection) and a canceled context, and leaves the lock free.
func TestMigrateChecks(t *testing.T) {
	schema := emptySchema(t)
	cfg, err := pgxpool.ParseConfig(dsn(t))
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	defer one.Close()
	assert.ErrorContains(t, riverinbox.Migrate(context.Background(), one), "MaxConns")
	assert.Error(t, riverinbox.Migrate(context.Background(), nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, riverinbox.Migrate(ctx, poolIn(t, schema)), context.Canceled)
	require.NoError(t, riverinbox.Migrate(context.Background(), poolIn(t, schema)), "the lock was left taken")
}

// recorder is an account's callback: it records the eventIds it ran.
type recorder struct {
	mu  sync.Mutex
	ran map[string]int
}

func (r *recorder) fn(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ran == nil {
		r.ran = map[string]int{}
	}
	r.ran[ev.EventID]++
	return effect(ctx, tx, ev)
}

func (r *recorder) runs() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.ran))
	for k, v := range r.ran {
		out[k] = v
	}
	return out
}

// otherCreds are a second account's, on the same database.
var otherCreds = bankpay.Credentials{AccessID: "inbox-other-access-id", AccessKey: bankpay.NewSecret("inbox-other-key"), MerchantID: "M2"}

// postEvents posts n new events of c to in and returns their eventIds,
// each run once.
func postEvents(t *testing.T, in http.Handler, c bankpay.Credentials, n int) map[string]int {
	t.Helper()
	ids := map[string]int{}
	for range n {
		id := unique("ev-" + c.MerchantID)
		body, auth := dedupsuite.Notification(t, c, id, time.Now().Add(-time.Minute))
		require.Equal(t, http.StatusOK, post(t, in, body, auth))
		ids[id] = 1
	}
	return ids
}

// Two accounts' inboxes on one database with the default options: each
// account's events run its own callback only. Y's workers start first and
// X's events are queued meanwhile (X's inbox accepts them unstarted): they
// wait for X's workers, and Y never runs them (it ran all 6 of X's events
// when both shared one queue).
func TestInboxAccountsSeparated(t *testing.T) {
	pool := freshSchema(t)
	var x, y recorder
	yIn := startAs(t, pool, otherCreds, y.fn, riverinbox.Options{})
	yEvents := postEvents(t, yIn, otherCreds, 6)
	xIn, err := riverinbox.New(pool, creds, x.fn, riverinbox.Options{})
	require.NoError(t, err)
	xEvents := postEvents(t, xIn, creds, 6)
	require.Eventually(t, func() bool { return len(y.runs()) == len(yEvents) }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // Y's workers, polling every 20 ms, would have taken X's jobs by now
	assert.Equal(t, yEvents, y.runs(), "Y's callback ran another account's events")
	for id := range xEvents {
		st, n := jobState(t, pool, id)
		assert.Equal(t, 1, n)
		assert.Equal(t, rivertype.JobStateAvailable, st, "X's job before X's workers start")
	}

	require.NoError(t, xIn.Start(context.Background()))
	t.Cleanup(func() { _ = xIn.Stop(context.Background()) })
	require.Eventually(t, func() bool { return len(x.runs()) == len(xEvents) }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, xEvents, x.runs())
	assert.Equal(t, yEvents, y.runs())
	assert.NotEqual(t, riverinbox.AccountQueue(creds.AccessID), riverinbox.AccountQueue(otherCreds.AccessID))
	assert.Equal(t, riverinbox.AccountQueue(creds.AccessID), riverinbox.AccountQueue(creds.AccessID), "deterministic")
}

// Two accounts' inboxes given one queue: a worker refuses the other
// account's job (it is neither run nor lost: snoozed, not an attempt), and
// the job runs once its own account's worker takes it (here after Y's
// replicas stopped, so that the wait is bounded).
func TestInboxRefusesAnotherAccountsJob(t *testing.T) {
	pool := freshSchema(t)
	var x, y recorder
	opts := riverinbox.Options{Queue: "shared_events"}
	yIn := startAs(t, pool, otherCreds, y.fn, opts)
	xIn, err := riverinbox.New(pool, creds, x.fn, opts)
	require.NoError(t, err)
	xEvents := postEvents(t, xIn, creds, 3)
	require.Eventually(t, func() bool {
		var refused int
		err := pool.QueryRow(context.Background(),
			`SELECT count(*) FROM river_job WHERE args->>'account' = $1 AND (metadata->>'snoozes')::int >= 1`, creds.AccessID).Scan(&refused)
		return assert.NoError(t, err) && refused == len(xEvents)
	}, 10*time.Second, 10*time.Millisecond, "Y's workers never saw X's jobs")
	assert.Empty(t, y.runs(), "Y's callback ran another account's events")
	for id := range xEvents {
		st, _ := jobState(t, pool, id)
		assert.Contains(t, []rivertype.JobState{rivertype.JobStateScheduled, rivertype.JobStateAvailable, rivertype.JobStateRunning}, st)
		assert.Zero(t, effects(t, pool, id))
	}

	// Y's replicas go: X's workers take the refused jobs once their snooze
	// is over (River's scheduler makes them available every 5 s).
	require.NoError(t, yIn.Stop(context.Background()))
	require.NoError(t, xIn.Start(context.Background()))
	t.Cleanup(func() { _ = xIn.Stop(context.Background()) })
	require.Eventually(t, func() bool { return len(x.runs()) == len(xEvents) }, 20*time.Second, 10*time.Millisecond)
	assert.Equal(t, xEvents, x.runs())
	assert.Empty(t, y.runs())
	for id := range xEvents {
		require.Eventually(t, func() bool { st, _ := jobState(t, pool, id); return st == rivertype.JobStateCompleted },
			10*time.Second, 10*time.Millisecond)
		var attempt int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT attempt FROM river_job WHERE args->>'eventId' = $1`, id).Scan(&attempt))
		assert.Equal(t, 1, attempt, "a refusal counted as an attempt")
	}
}

// Jobs that an earlier version left in the queue every account shared
// ("bankpay_events") are moved to the account's own queue when its inbox
// starts with the default options, and run there; another account's stay.
func TestInboxAdoptsLegacyQueue(t *testing.T) {
	pool := freshSchema(t)
	legacy := riverinbox.Options{Queue: "bankpay_events"}
	oldX, err := riverinbox.New(pool, creds, effect, legacy)
	require.NoError(t, err)
	xEvents := postEvents(t, oldX, creds, 2)
	oldY, err := riverinbox.New(pool, otherCreds, effect, legacy)
	require.NoError(t, err)
	yEvents := postEvents(t, oldY, otherCreds, 1)

	var x recorder
	start(t, pool, x.fn, riverinbox.Options{})
	require.Eventually(t, func() bool { return len(x.runs()) == len(xEvents) }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, xEvents, x.runs())
	for id := range yEvents {
		var queue string
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT queue FROM river_job WHERE args->>'eventId' = $1`, id).Scan(&queue))
		assert.Equal(t, "bankpay_events", queue, "another account's job was moved")
		assert.Zero(t, effects(t, pool, id))
	}
}
