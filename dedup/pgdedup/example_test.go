package pgdedup_test

import (
	"context"
	"database/sql"
	"log"
	"net/http"
	"os"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/pgdedup"
)

// Every replica of the webhook endpoint runs the same code over one
// database: each eventId is processed once, whichever replica it reaches.
func Example() {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL")) // import _ "github.com/jackc/pgx/v5/stdlib"
	if err != nil {
		log.Fatal(err)
	}
	d, err := pgdedup.New(db, pgdedup.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := d.CreateTable(ctx); err != nil { // or the DDL of the package documentation in a migration
		log.Fatal(err)
	}
	creds := bankpay.Credentials{AccessID: os.Getenv("BANKPAY_ACCESS_ID"), AccessKey: bankpay.NewSecret(os.Getenv("BANKPAY_ACCESS_KEY"))}
	http.Handle("POST /bankpay/events", bankpay.NewWebhookHandler(creds, func(ctx context.Context, ev *bankpay.Event) error {
		log.Printf("event %s: %s", ev.EventID, ev.EventType)
		return nil
	}, bankpay.WithDeduplicator(d)))
}
