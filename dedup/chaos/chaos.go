// Package chaos tests and measures the ways to run the merchant's webhook
// handler on several replicas against real PostgreSQL and Redis servers
// (scripts/start-stores.sh): the synchronous stores (dedup/pgdedup,
// dedup/redisdedup, with bankpay.WithDeduplicator) and the River inbox
// (dedup/riverinbox). It is a module of its own that nobody imports: its
// tests start replicas as processes (this test binary, re-executed), send
// them notifications as the service does, kill one, and count the
// callback's effects, one PostgreSQL row per effect; its benchmarks compare
// the acknowledgement latency and throughput of every store in one run.
package chaos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/pgdedup"
	"github.com/bankpay/bankpay-go/dedup/redisdedup"
	"github.com/bankpay/bankpay-go/dedup/riverinbox"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
)

// ReplicaEnv, when set in a test binary's environment, makes TestMain run
// a replica (see RunReplica) instead of the tests. Its value is the
// replica's store: "postgres", "redis" or "inbox".
const ReplicaEnv = "CHAOS_REPLICA"

// Replica is a replica's configuration, passed in its environment.
type Replica struct {
	Store     string        // "postgres", "redis" or "inbox"
	DSN       string        // PostgreSQL, for the effects (and the store)
	Schema    string        // the test's schema: effects, pgdedup's table, River's tables
	RedisAddr string        // for "redis"
	Prefix    string        // Redis key prefix
	ClaimTTL  time.Duration // the synchronous stores' claim TTL
	Skew      time.Duration // the handler's clock minus the real one
	Slow      time.Duration // how long a "slow-" event's callback takes
	Victim    bool          // a "hang-" event's callback hangs before its effect
}

// Environ returns r as environment variables.
func (r Replica) Environ() []string {
	return []string{
		ReplicaEnv + "=" + r.Store, "CHAOS_DSN=" + r.DSN, "CHAOS_SCHEMA=" + r.Schema,
		"CHAOS_REDIS=" + r.RedisAddr, "CHAOS_PREFIX=" + r.Prefix,
		"CHAOS_CLAIM_TTL=" + r.ClaimTTL.String(), "CHAOS_SKEW=" + r.Skew.String(),
		"CHAOS_SLOW=" + r.Slow.String(), fmt.Sprintf("CHAOS_VICTIM=%t", r.Victim),
	}
}

// replicaFromEnv reads a Replica from the environment.
func replicaFromEnv() Replica {
	d := func(k string) time.Duration { v, _ := time.ParseDuration(os.Getenv(k)); return v }
	return Replica{
		Store: os.Getenv(ReplicaEnv), DSN: os.Getenv("CHAOS_DSN"), Schema: os.Getenv("CHAOS_SCHEMA"),
		RedisAddr: os.Getenv("CHAOS_REDIS"), Prefix: os.Getenv("CHAOS_PREFIX"),
		ClaimTTL: d("CHAOS_CLAIM_TTL"), Skew: d("CHAOS_SKEW"), Slow: d("CHAOS_SLOW"),
		Victim: os.Getenv("CHAOS_VICTIM") == "true",
	}
}

// Creds are the merchant's credentials the replicas verify with.
var Creds = bankpay.Credentials{AccessID: "chaos-access-id", AccessKey: bankpay.NewSecret("chaos-s3cret-key"), MerchantID: "M1"}

// Pool opens a pgx pool on dsn whose search_path is schema.
func Pool(ctx context.Context, dsn, schema string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = maxConns
	return pgxpool.NewWithConfig(ctx, cfg)
}

// Effects is the DDL of the effects table: a row per effect of a callback.
const Effects = `CREATE TABLE effects (event_id text NOT NULL, replica int NOT NULL, at timestamptz NOT NULL DEFAULT now())`

// delay is how long the callback of eventID takes before its effect: Slow
// for "slow-" events, for ever for "hang-" events on the victim.
func (r Replica) delay(ctx context.Context, eventID string) error {
	var d time.Duration
	switch {
	case strings.HasPrefix(eventID, "hang-") && r.Victim:
		<-make(chan struct{}) // until the process is killed
	case strings.HasPrefix(eventID, "slow-"):
		d = r.Slow
	}
	if d == 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// RunReplica serves the notification endpoint of the replica in the
// environment on a loopback port, writes "ADDR host:port" to stdout, and
// runs until stdin closes (then, for the inbox, it drains) or the process
// is killed. The callback's effect is a row in effects: for the
// synchronous stores written on its own after the callback's delay, for
// the inbox in the job's transaction.
func RunReplica() error {
	r := replicaFromEnv()
	ctx := context.Background()
	pool, err := Pool(ctx, r.DSN, r.Schema, 12)
	if err != nil {
		return err
	}
	defer pool.Close()
	id := os.Getpid()
	clock := bankpay.WithWebhookClock(func() time.Time { return time.Now().Add(r.Skew) })

	var h http.Handler
	var stop func(context.Context) error
	switch r.Store {
	case "inbox":
		in, err := riverinbox.New(pool, Creds, func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
			if err := r.delay(ctx, ev.EventID); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO effects (event_id, replica) VALUES ($1, $2)`, ev.EventID, id)
			return err
		}, riverinbox.Options{MaxWorkers: 20, JobTimeout: r.Slow + 2*time.Second, RescueStuckJobsAfter: r.Slow + 3*time.Second,
			HandlerOptions: []bankpay.WebhookOption{clock}})
		if err != nil {
			return err
		}
		if err := in.Start(ctx); err != nil {
			return err
		}
		h, stop = in, in.Stop
	case "postgres", "redis":
		var d bankpay.Deduplicator
		if r.Store == "postgres" {
			db := stdlib.OpenDBFromPool(pool)
			defer db.Close()
			pd, err := pgdedup.New(db, pgdedup.Options{Table: "bankpay_events", ClaimTTL: r.ClaimTTL})
			if err != nil {
				return err
			}
			d = pd
		} else {
			rdb := redis.NewClient(&redis.Options{Addr: r.RedisAddr, PoolSize: 16})
			defer rdb.Close()
			d = redisdedup.New(rdb, redisdedup.Options{KeyPrefix: r.Prefix, ClaimTTL: r.ClaimTTL})
		}
		h = bankpay.NewWebhookHandler(Creds, func(ctx context.Context, ev *bankpay.Event) error {
			if err := r.delay(ctx, ev.EventID); err != nil {
				return err
			}
			_, err := pool.Exec(ctx, `INSERT INTO effects (event_id, replica) VALUES ($1, $2)`, ev.EventID, id)
			return err
		}, bankpay.WithDeduplicator(d), clock)
		stop = func(context.Context) error { return nil }
	default:
		return fmt.Errorf("chaos: unknown store %q", r.Store)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	fmt.Printf("ADDR %s\n", l.Addr())
	// Until the test closes stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := stop(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
