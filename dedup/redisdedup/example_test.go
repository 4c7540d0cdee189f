package redisdedup_test

import (
	"context"
	"log"
	"net/http"
	"os"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/redisdedup"
	"github.com/redis/go-redis/v9"
)

// Every replica of the webhook endpoint runs the same code over one Redis:
// each eventId is processed once, whichever replica it reaches.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	d := redisdedup.New(rdb, redisdedup.Options{})
	creds := bankpay.Credentials{AccessID: os.Getenv("BANKPAY_ACCESS_ID"), AccessKey: bankpay.NewSecret(os.Getenv("BANKPAY_ACCESS_KEY"))}
	http.Handle("POST /bankpay/events", bankpay.NewWebhookHandler(creds, func(ctx context.Context, ev *bankpay.Event) error {
		log.Printf("event %s: %s", ev.EventID, ev.EventType)
		return nil
	}, bankpay.WithDeduplicator(d)))
}
