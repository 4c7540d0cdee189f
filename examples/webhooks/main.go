// Command webhooks shows how a merchant backend receives the service's event
// notifications: a bankpay webhook handler mounted on a ServeMux verifies
// each notification's signature before decoding it, hands verified events to
// typed callbacks, and processes each eventId once although the service
// re-sends events for 12 hours.
//
// To stay self-contained, the program serves the handler on a loopback test
// server and posts to itself: one notification signed as the service signs
// it, the same one again (a re-send), and one forged with a guessed key. It
// prints what happened and exits 0 when the handler behaved as expected.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// In production: the merchant's credentials, from the environment or a
	// secret store, never from source code.
	creds := bankpay.Credentials{AccessID: "demo-access-id", AccessKey: "demo-access-key", MerchantID: "1002463580"}

	var handled atomic.Int32 // the callbacks run on the server's goroutines
	h := bankpay.NewWebhookHandler(creds,
		// fn gets every event no typed callback takes.
		func(_ context.Context, ev *bankpay.Event) error {
			handled.Add(1)
			fmt.Printf("  handler: %s event %s for transaction %s\n", ev.EventType, ev.EventID, ev.TransactionID())
			return nil
		},
		bankpay.OnTransactionEvent(func(_ context.Context, ev *bankpay.Event, tx *bankpay.TransactionEvent) error {
			handled.Add(1)
			fmt.Printf("  handler: %s event %s: transaction %s (%s) is %s, provider status %d\n",
				ev.EventType, ev.EventID, ev.TransactionID(), ev.MerchantReference, tx.Status, tx.ProviderStatus)
			// Store the event and return quickly: the service wants 200 OK
			// within 3 seconds. An error here answers 500 and the service
			// re-sends the event later.
			return nil
		}),
		bankpay.OnIdentityVerified(func(_ context.Context, ev *bankpay.Event, v *bankpay.IdentityVerified) error {
			handled.Add(1)
			fmt.Printf("  handler: identity of %s verified: %s\n", ev.TransactionID(), v.KYCResult)
			return nil
		}),
		bankpay.WithDeduplicator(bankpay.NewMemoryDeduplicator(10000)),
		bankpay.OnDuplicate(func(_ context.Context, ev *bankpay.Event) {
			fmt.Printf("  handler: event %s already processed, acknowledged again\n", ev.EventID)
		}),
	)

	mux := http.NewServeMux()
	mux.Handle("POST /bankpay/events", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	endpoint := srv.URL + "/bankpay/events"
	client := &http.Client{Timeout: 5 * time.Second}

	// A notification as the service sends it: form-encoded fields.
	form := url.Values{
		models.EventFieldMerchantID:                   {creds.MerchantID},
		models.EventFieldMerchantReference:            {"order-42"},
		models.EventFieldPaymentType:                  {"2"},
		models.EventFieldTransactionType:              {"6"},
		models.EventFieldEventID:                      {"500000000000001"},
		models.EventFieldEventType:                    {string(models.EventCompleted)},
		models.EventFieldObjectID:                     {"100258123456791"},
		models.EventFieldObjectType:                   {models.ObjectTypeTransaction},
		models.EventFieldTimeZone:                     {"UTC"},
		models.EventFieldCreatedAt:                    {fmt.Sprint(time.Now().UnixMilli())},
		models.EventFieldAccessID:                     {creds.AccessID},
		models.EventFieldStatus:                       {"4"},
		models.EventFieldStatusMessage:                {"Completed"},
		models.EventFieldProviderTransactionStatus:    {"10"},
		models.EventFieldProviderTransactionStatusMsg: {"Established"},
	}
	body := form.Encode()

	// The service's signature: bankpay.SignNotification computes the same
	// Authorization header, for tests of the merchant's own handling.
	signed, err := bankpay.SignNotification([]byte(body), creds)
	if err != nil {
		return err
	}
	forgedCreds := creds
	forgedCreds.AccessKey = "guessed-key"
	forged, err := bankpay.SignNotification([]byte(strings.Replace(body, "status=4", "status=5", 1)), forgedCreds)
	if err != nil {
		return err
	}

	steps := []struct {
		name, body, auth string
		want             int
	}{
		{"signed notification", body, signed, http.StatusOK},
		{"same notification re-sent", body, signed, http.StatusOK},
		{"forged notification", strings.Replace(body, "status=4", "status=5", 1), forged, http.StatusUnauthorized},
	}
	ok := true
	for _, s := range steps {
		fmt.Printf("POST %s (%s)\n", "/bankpay/events", s.name)
		req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(s.body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", s.auth)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Printf("  answer: %s\n", resp.Status)
		if resp.StatusCode != s.want {
			fmt.Printf("  unexpected: want %d\n", s.want)
			ok = false
		}
	}
	fmt.Printf("events handled: %d (the re-send and the forgery were not handled)\n", handled.Load())
	if !ok || handled.Load() != 1 {
		return fmt.Errorf("the handler did not behave as expected")
	}
	return nil
}
