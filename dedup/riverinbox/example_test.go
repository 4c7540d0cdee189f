package riverinbox_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/riverinbox"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Every replica runs the same code over one database: the endpoint queues
// each event once and answers at once; the replicas' workers run the
// callback, whose writes commit with the job's completion, and drain on
// SIGTERM.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := riverinbox.Migrate(ctx, pool); err != nil { // River's own migrations
		log.Fatal(err)
	}
	creds := bankpay.Credentials{AccessID: os.Getenv("BANKPAY_ACCESS_ID"), AccessKey: bankpay.NewSecret(os.Getenv("BANKPAY_ACCESS_KEY"))}
	in, err := riverinbox.New(pool, creds, func(ctx context.Context, tx pgx.Tx, ev *bankpay.Event) error {
		if ev.Transaction == nil {
			return nil
		}
		// Exactly once: committed with the job's completion, or not at all.
		_, err := tx.Exec(ctx, `UPDATE orders SET status = $1 WHERE bankpay_transaction_id = $2`,
			ev.Transaction.Status, ev.TransactionID())
		return err // an error is retried with backoff, then kept as discarded
	}, riverinbox.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /bankpay/events", in)
	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()

	stop, cancel := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer cancel()
	<-stop.Done()
	shutdown, done := context.WithTimeout(ctx, time.Minute)
	defer done()
	_ = srv.Shutdown(shutdown) // no new notifications
	_ = in.Stop(shutdown)      // the running callbacks finish; queued jobs wait for the other replicas
}
