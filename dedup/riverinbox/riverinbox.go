// Package riverinbox is an inbox for the merchant's webhook events on River
// (github.com/riverqueue/river) and PostgreSQL: the notification endpoint
// verifies each notification, inserts it as a River job unique by the
// merchant's accessId and the eventId, and answers 200 in milliseconds; River
// workers on every replica then run the merchant's callback, with retries
// and backoff, however long it takes.
//
//	pool, _ := pgxpool.New(ctx, dsn)
//	if err := riverinbox.Migrate(ctx, pool); err != nil { … } // River's own migrations, under a lock
//	in, err := riverinbox.New(pool, creds, func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
//		_, err := tx.Exec(ctx, `UPDATE orders SET status = $1 WHERE ref = $2`, …)
//		return err // nil: committed with the job's completion; an error: retried
//	}, riverinbox.Options{})
//	if err == nil {
//		err = in.Start(ctx)
//	}
//	mux.Handle("POST /bankpay/events", in)
//	…
//	in.Stop(ctx) // on shutdown: no new jobs, the running callbacks finish
//
// Use it instead of bankpay.WithDeduplicator and a synchronous store
// (dedup/pgdedup, dedup/redisdedup) when a callback may take longer than the
// 3 seconds the service waits, or when its effect must happen exactly once
// even if a replica dies at any moment: the callback's transaction commits
// its writes and the job's completion together, and each attempt is fenced
// (a frozen replica's stale attempt cannot complete the job).
//
// Failures: a callback's error (or panic) rolls its transaction back and
// River retries the job with its exponential backoff, up to
// Options.MaxAttempts; then the job is discarded, kept in River's river_job
// table with its errors, where an operator sees it (Client().JobList with
// state discarded, or River's UI) and retries it (Client().JobRetry).
// Nothing is lost, and a re-send of the event meanwhile inserts nothing (the
// job is unique in every state). A replica killed mid-callback leaves its job
// running; River's rescuer makes it retryable after
// Options.RescueStuckJobsAfter and another replica runs it.
//
// Jobs are kept, whatever their state, for at least the handler's max event
// age plus 10 minutes (twice the allowed clock skew): any delivery the
// handler accepts meets its job.
//
// Accounts: inboxes of several accounts (accessIds) may share a database.
// Each account's jobs go to its own queue (AccountQueue, unless
// Options.Queue says otherwise), and a worker refuses a job of another
// accessId: it snoozes it, neither running nor losing it, so one account's
// callback never runs another's event. Migrate may run on every replica at
// start-up: an advisory lock makes them migrate one after the other.
package riverinbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Defaults of Options.
const (
	// legacyQueue was every account's queue before queues were per
	// account; Start moves the account's jobs out of it.
	legacyQueue                 = "bankpay_events"
	defaultMaxWorkers           = 10
	defaultMaxAttempts          = 25
	defaultMaxEventAge          = 24 * time.Hour
	defaultJobTimeout           = time.Minute
	defaultRescueStuckJobsAfter = 5 * time.Minute
	// skewAllowance is twice the 5 minutes an event may be dated ahead of
	// the handler's clock (see bankpay.WithMaxEventAge).
	skewAllowance = 10 * time.Minute
	// refusedSnooze is how long a job of another account, refused by this
	// inbox's worker, waits before it is available again.
	refusedSnooze = time.Second
	// maxBodyBytes is the webhook handler's body cap.
	maxBodyBytes = 1 << 20
)

// Func is the merchant's callback. tx is the job's transaction: what fn
// writes through it is committed with the job's completion, exactly once.
// An error rolls tx back and the job is retried (see the package
// documentation). ctx is canceled at Options.JobTimeout.
type Func func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error

// Options configure New. The zero value is the defaults.
type Options struct {
	// Queue is the River queue of the inbox's jobs. When empty it is the
	// account's own, derived from the accessId ("bankpay_events_" and 16
	// hex digits of its SHA-256), so that the inboxes of several accounts
	// on one database never take each other's jobs. Inboxes of different
	// accounts given the same Queue still never run each other's events
	// (a worker refuses a job of another accessId: it is snoozed, not run
	// and not lost, until that account's worker takes it), but they delay
	// them: give each account its own.
	Queue string
	// MaxWorkers is how many callbacks run at once on this replica; 10
	// when <= 0.
	MaxWorkers int
	// MaxAttempts is how many times a job runs before it is discarded; 25
	// (River's default, about three weeks of backoff) when <= 0.
	MaxAttempts int
	// RetryPolicy is River's (nil: its exponential backoff, attempt^4
	// seconds).
	RetryPolicy river.ClientRetryPolicy
	// JobTimeout cancels a callback's context after it; one minute when
	// <= 0.
	JobTimeout time.Duration
	// RescueStuckJobsAfter is how long a job may stay running before River
	// takes its replica for dead and runs it again elsewhere; five minutes
	// when <= 0, and at least JobTimeout plus a second.
	RescueStuckJobsAfter time.Duration
	// MaxEventAge is the handler's (bankpay.WithMaxEventAge); 24 hours
	// when <= 0. Jobs are kept for it plus 10 minutes. It overrides a
	// WithMaxEventAge among HandlerOptions.
	MaxEventAge time.Duration
	// HandlerOptions are given to bankpay.NewWebhookHandler: WithLogger,
	// WithEventReadTimeout, WithWebhookClock.
	HandlerOptions []bankpay.WebhookOption
	// Logger is River's logger; nothing is logged when nil.
	Logger *slog.Logger
}

// eventArgs is a job's arguments: the notification as it was verified.
// River makes the job unique by the fields tagged unique.
type eventArgs struct {
	Account     string `json:"account" river:"unique"`
	EventID     string `json:"eventId" river:"unique"`
	Body        []byte `json:"body"`
	ContentType string `json:"contentType,omitempty"`
}

// Kind implements river.JobArgs.
func (eventArgs) Kind() string { return "bankpay_event" }

// allStates makes a job unique whatever its state: a re-send of a discarded
// event waits for the operator's retry rather than racing it.
var allStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
	rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// Inbox is the notification endpoint (an http.Handler) and this replica's
// River workers. Make one per process with New.
type Inbox struct {
	client  *river.Client[pgx.Tx]
	pool    *pgxpool.Pool
	handler http.Handler
	creds   bankpay.Credentials
	queue   string
	// adopt: the queue is the default, and Start moves the account's jobs
	// from the legacy shared queue to it.
	adopt  bool
	maxAtt int
}

// AccountQueue is the default queue of the account with accessID:
// "bankpay_events_" and the first 16 hex digits of the SHA-256 of accessID.
func AccountQueue(accessID string) string {
	sum := sha256.Sum256([]byte(accessID))
	return legacyQueue + "_" + hex.EncodeToString(sum[:8])
}

// migrateLock is the key of the PostgreSQL advisory lock Migrate holds:
// the bytes of "bankpayM", one key for every database and schema.
const migrateLock int64 = 0x62616e6b7061794d

// Migrate brings River's tables in pool's database up to date with River's
// own migrator (rivermigrate); run it before New, at start-up or from a
// deployment step. It is safe from many replicas at once: it holds a
// session-level PostgreSQL advisory lock (pg_advisory_lock) on one of
// pool's connections while the migrator runs on others, so the replicas
// migrate one after the other, and the later ones find nothing to do. The
// pool therefore needs MaxConns of 2 or more, and a session of its own (not
// a connection pooler in transaction mode); ctx bounds the wait for the
// lock too.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if pool == nil {
		return errors.New("riverinbox: migrate: nil pool")
	}
	if pool.Config().MaxConns < 2 {
		return errors.New("riverinbox: migrate: the pool's MaxConns must be 2 or more (one holds the lock)")
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("riverinbox: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		// A canceled wait may leave the session in doubt: drop it.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		return fmt.Errorf("riverinbox: migrate: lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock); err != nil {
			// The lock goes with the session.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("riverinbox: migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("riverinbox: migrate: %w", err)
	}
	return nil
}

// New returns an Inbox over pool (River's tables migrated, see Migrate)
// that verifies notifications with creds and runs fn for each event. It
// does not start the workers (Start does); an Inbox that is never started
// still accepts events, for the replicas that do.
func New(pool *pgxpool.Pool, creds bankpay.Credentials, fn Func, opts Options) (*Inbox, error) {
	if pool == nil || fn == nil {
		return nil, errors.New("riverinbox: nil pool or callback")
	}
	in := &Inbox{pool: pool, creds: creds, queue: opts.Queue, maxAtt: opts.MaxAttempts}
	if in.queue == "" {
		in.queue, in.adopt = AccountQueue(creds.AccessID), true
	}
	if in.maxAtt <= 0 {
		in.maxAtt = defaultMaxAttempts
	}
	workers := max(opts.MaxWorkers, 0)
	if workers == 0 {
		workers = defaultMaxWorkers
	}
	maxAge := opts.MaxEventAge
	if maxAge <= 0 {
		maxAge = defaultMaxEventAge
	}
	jobTimeout := opts.JobTimeout
	if jobTimeout <= 0 {
		jobTimeout = defaultJobTimeout
	}
	rescue := opts.RescueStuckJobsAfter
	if rescue <= 0 {
		rescue = defaultRescueStuckJobsAfter
	}
	rescue = max(rescue, jobTimeout+time.Second)
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	keep := maxAge + skewAllowance

	ws := river.NewWorkers()
	if err := river.AddWorkerSafely(ws, &worker{pool: pool, fn: fn, account: creds.AccessID, logger: logger}); err != nil {
		return nil, fmt.Errorf("riverinbox: %w", err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:                      map[string]river.QueueConfig{in.queue: {MaxWorkers: workers}},
		Workers:                     ws,
		MaxAttempts:                 in.maxAtt,
		RetryPolicy:                 opts.RetryPolicy,
		JobTimeout:                  jobTimeout,
		RescueStuckJobsAfter:        rescue,
		CompletedJobRetentionPeriod: keep,
		CancelledJobRetentionPeriod: keep,
		DiscardedJobRetentionPeriod: max(keep, 7*24*time.Hour),
		FetchCooldown:               20 * time.Millisecond,
		Logger:                      logger,
	})
	if err != nil {
		return nil, fmt.Errorf("riverinbox: %w", err)
	}
	in.client = client
	// Last, so that a WithMaxEventAge among HandlerOptions cannot outlast
	// the jobs' retention.
	hopts := append(slices.Clone(opts.HandlerOptions), bankpay.WithMaxEventAge(maxAge))
	in.handler = bankpay.NewWebhookHandler(creds, in.enqueue, hopts...)
	return in, nil
}

// Start starts this replica's workers; ctx bounds the start-up only. See
// river.Client.Start. With the default queue, it first moves the account's
// jobs still to run (or discarded, for an operator's retry) that an earlier
// version left in the queue every account then shared ("bankpay_events")
// to the account's queue.
func (in *Inbox) Start(ctx context.Context) error {
	if in.adopt {
		if _, err := in.pool.Exec(ctx, `UPDATE river_job SET queue = $1
WHERE state IN ('available', 'discarded', 'pending', 'retryable', 'scheduled') AND queue = $2 AND kind = $3 AND args->>'account' = $4`,
			in.queue, legacyQueue, eventArgs{}.Kind(), in.creds.AccessID); err != nil {
			return fmt.Errorf("riverinbox: start: moving the account's jobs to its queue: %w", err)
		}
	}
	if err := in.client.Start(ctx); err != nil {
		return fmt.Errorf("riverinbox: start: %w", err)
	}
	return nil
}

// Stop drains this replica: it fetches no more jobs and waits for the
// running callbacks to finish (or ctx to end; then use StopAndCancel on
// Client). Jobs still queued stay in the database for the other replicas or
// the next start.
func (in *Inbox) Stop(ctx context.Context) error {
	if err := in.client.Stop(ctx); err != nil {
		return fmt.Errorf("riverinbox: stop: %w", err)
	}
	return nil
}

// Client is the River client, for operators: list discarded jobs
// (JobList with States(rivertype.JobStateDiscarded)), retry one (JobRetry),
// subscribe to events.
func (in *Inbox) Client() *river.Client[pgx.Tx] { return in.client }

// ServeHTTP is the notificationUrl's handler: bankpay.NewWebhookHandler's
// checks (signature, size, age, future date), then one unique insert, and
// 200. A failed insert answers 500, and the service re-sends.
func (in *Inbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The handler reads the body through tee: the job keeps it as verified.
	req := &request{contentType: r.Header.Get("Content-Type"), authorization: r.Header.Get("Authorization")}
	if r.Body != nil {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(io.LimitReader(r.Body, maxBodyBytes+1), &req.body), r.Body}
	}
	in.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, req)))
}

// request is what the handler's callback needs of the request.
type request struct {
	body          bytes.Buffer
	contentType   string
	authorization string
}

type requestKey struct{}

// storedBody is the body the worker's bankpay.ParseEvent reads as the
// handler did. A JSON body that the handler verified as signed as sent
// (over its raw bytes, not its URL-decoding) is stored with its '%' and '+'
// escaped: ParseEvent's URL-decoding then gives back the signed bytes. As
// it was, ParseEvent would read the URL-decoded body, in which a value's
// %22 closes its string and opens a field that was never signed as one.
// The escaped body verifies (VerifyNotification) exactly when the
// signature covers the body as sent.
func (in *Inbox) storedBody(req *request) []byte {
	body := req.body.Bytes()
	if !bytes.ContainsAny(body, "%+") {
		return bytes.Clone(body)
	}
	escaped := make([]byte, 0, len(body)+16)
	for _, c := range body {
		switch c {
		case '%':
			escaped = append(escaped, "%25"...)
		case '+':
			escaped = append(escaped, "%2B"...)
		default:
			escaped = append(escaped, c)
		}
	}
	if _, err := bankpay.VerifyNotification(escaped, req.authorization, in.creds); err == nil {
		return escaped
	}
	return bytes.Clone(body)
}

// enqueue is the webhook handler's callback: the verified event becomes a
// job, unless one with its accessId and eventId exists in any state.
func (in *Inbox) enqueue(ctx context.Context, ev *bankpay.Event) error {
	req, _ := ctx.Value(requestKey{}).(*request)
	if req == nil {
		return errors.New("riverinbox: no request")
	}
	args := eventArgs{Account: in.creds.AccessID, EventID: ev.EventID, Body: in.storedBody(req), ContentType: req.contentType}
	_, err := in.client.Insert(ctx, args, &river.InsertOpts{
		Queue:       in.queue,
		MaxAttempts: in.maxAtt,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByState: allStates},
	})
	if err != nil {
		return fmt.Errorf("riverinbox: insert: %w", err)
	}
	return nil
}

// worker runs a job's callback in the transaction that completes it, for
// the jobs of its account only.
type worker struct {
	river.WorkerDefaults[eventArgs]
	pool    *pgxpool.Pool
	fn      Func
	account string // the accessId whose events fn handles
	logger  *slog.Logger
}

// errSuperseded is a stale attempt's error: the job was rescued and runs
// again (or ran) elsewhere.
var errSuperseded = errors.New("riverinbox: this attempt was superseded")

// Work implements river.Worker. A job of another account (inboxes of two
// accounts given one queue) is refused: snoozed, neither run nor counted
// as an attempt, until its own account's worker takes it.
func (w *worker) Work(ctx context.Context, job *river.Job[eventArgs]) error {
	if job.Args.Account != w.account {
		w.logger.WarnContext(ctx, "riverinbox: a job of another account refused; give each account its own queue",
			slog.Int64("jobId", job.ID), slog.String("queue", job.Queue))
		return river.JobSnooze(refusedSnooze)
	}
	ev, err := bankpay.ParseEvent(job.Args.Body, job.Args.ContentType)
	if err != nil {
		// Verified when inserted: it cannot fail unless the row was
		// tampered with. Never retried.
		return river.JobCancel(fmt.Errorf("riverinbox: parse: %w", err))
	}
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("riverinbox: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// Fence: only the job's current attempt, still running, may complete
	// it; the row stays locked until the commit.
	var current bool
	err = tx.QueryRow(ctx, `SELECT true FROM river_job WHERE id = $1 AND attempt = $2 AND state = 'running' FOR UPDATE`,
		job.ID, job.Attempt).Scan(&current)
	if errors.Is(err, pgx.ErrNoRows) {
		return errSuperseded
	}
	if err != nil {
		return fmt.Errorf("riverinbox: fence: %w", err)
	}
	if err := w.fn(ctx, tx, ev); err != nil {
		return err
	}
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return fmt.Errorf("riverinbox: complete: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("riverinbox: commit: %w", err)
	}
	return nil
}
