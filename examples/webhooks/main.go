// Command webhooks shows how a merchant backend receives the service's event
// notifications: a bankpay webhook handler mounted on a ServeMux verifies
// each notification's signature before decoding it, hands verified events to
// typed callbacks, and processes each eventId once although the service
// re-sends events for 12 hours.
//
// The program serves the handler on a loopback test server. First it posts
// to itself: one notification signed as the service signs it, the same one
// again (a re-send), and one forged with a guessed key. Then, with the
// embedded sandbox (no BANKPAY_* variables set), it receives real
// notifications: the sandbox delivers the events of a disbursement to the
// handler, and re-sends one that the handler failed to process. It prints
// what happened and exits 0 when the handler behaved as expected.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("webhooks", run) }

// receiver is the merchant's side: what the callbacks saw.
type receiver struct {
	handled    atomic.Int32 // the callbacks run on the server's goroutines
	duplicates atomic.Int32
	failNext   atomic.Bool // make the next transaction event fail, to see a re-send

	mu    sync.Mutex
	lines []string
}

func (r *receiver) logf(format string, args ...any) {
	r.mu.Lock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// flush prints what the callbacks logged since the last call (the callbacks
// run on the server's goroutines; printing from here keeps the output in
// order).
func (r *receiver) flush(env *exampleenv.Env) {
	r.mu.Lock()
	lines := r.lines
	r.lines = nil
	r.mu.Unlock()
	for _, l := range lines {
		env.Printf("   handler: %s\n", l)
	}
}

func run(ctx context.Context, env *exampleenv.Env) error {
	// The merchant's credentials, from the environment or a secret store in
	// production, never from source code (here: the embedded sandbox's).
	creds := env.Creds
	rcv := &receiver{}
	// The handler processes each eventId once (in its own memory; replicas
	// share a store: WithDeduplicator). It says why it refuses a
	// notification (without WithLogger: one warn line to slog.Default());
	// here, into the example's output, and each duplicate it acknowledges
	// (info) is counted.
	opts := []bankpay.WebhookOption{bankpay.WithLogger(slog.New(&countingDuplicates{
		Handler: slog.NewTextHandler(env.Out, &slog.HandlerOptions{Level: slog.LevelWarn}), rcv: rcv}))}
	if env.Sandbox != nil {
		// The handler refuses events dated over 5 minutes ahead of its
		// clock: under test it follows the sandbox's, which moves days ahead.
		opts = append(opts, bankpay.WithWebhookClock(env.Sandbox.Now))
	}
	h := bankpay.NewWebhookHandler(creds,
		// One callback for every event; the typed payload of its type is set.
		func(_ context.Context, ev *bankpay.Event) error {
			switch {
			case ev.EventType == models.EventCustomerIdentityVerified:
				rcv.handled.Add(1)
				rcv.logf("identity of %s verified: %s", ev.TransactionID, ev.Identity.KYCResult)
			case ev.Transaction != nil:
				if rcv.failNext.CompareAndSwap(true, false) {
					rcv.logf("%s event %s: database unavailable, responding 500 so that the service re-sends it", ev.EventType, ev.EventID)
					return errors.New("database unavailable")
				}
				rcv.handled.Add(1)
				rcv.logf("%s event %s: transaction %s (%s) is %s, provider status %s",
					ev.EventType, ev.EventID, ev.TransactionID, ev.MerchantReference, ev.Transaction.Status, ev.Transaction.ProviderStatus)
			default:
				rcv.handled.Add(1)
				rcv.logf("%s event %s for transaction %s", ev.EventType, ev.EventID, ev.TransactionID)
			}
			// Store the event and return quickly: the service wants 200 OK
			// within 3 seconds. An error here responds 500 and the service
			// re-sends the event later.
			return nil
		},
		opts...,
	)

	mux := http.NewServeMux()
	mux.Handle("POST /bankpay/events", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	endpoint := srv.URL + "/bankpay/events"

	env.Section("1. Notifications posted to the handler")
	if err := selfPosted(env, rcv, creds, endpoint); err != nil {
		return err
	}
	if env.Sandbox == nil {
		env.Note("real notifications need the embedded sandbox: a real service cannot reach a loopback address")
		return nil
	}

	env.Section("2. Real notifications from the sandbox")
	return fromSandbox(ctx, env, rcv, endpoint)
}

// selfPosted posts a signed notification, the same one again and a forged
// one to the handler.
func selfPosted(env *exampleenv.Env, rcv *receiver, creds bankpay.Credentials, endpoint string) error {
	client := &http.Client{Timeout: 5 * time.Second}
	// A notification as the service sends it: form-encoded fields.
	form := url.Values{
		"merchantId":                        {creds.MerchantID},
		"merchantReference":                 {"order-42"},
		"paymentType":                       {"2"},
		"transactionType":                   {"6"},
		"eventId":                           {"900000000000001"},
		"eventType":                         {"Completed"},
		"objectId":                          {"100258123456791"},
		"objectType":                        {"Transaction"},
		"timeZone":                          {"UTC"},
		"createdAt":                         {fmt.Sprint(time.Now().UnixMilli())},
		"accessId":                          {creds.AccessID},
		"status":                            {"4"},
		"statusMessage":                     {"Completed"},
		"paymentProviderTransaction.status": {"10"},
		"paymentProviderTransaction.statusMessage": {"Established"},
	}
	body := form.Encode()

	// The service's signature: bankpay.SignNotification computes the same
	// Authorization header, for tests of the merchant's own handling.
	signed, err := bankpaytest.SignNotification([]byte(body), creds)
	if err != nil {
		return err
	}
	forgedCreds := creds
	forgedCreds.AccessKey = bankpay.NewSecret("guessed-key")
	forgedBody := strings.Replace(body, "status=4", "status=5", 1)
	forged, err := bankpaytest.SignNotification([]byte(forgedBody), forgedCreds)
	if err != nil {
		return err
	}

	steps := []struct {
		name, body, auth string
		want             int
	}{
		{"signed notification", body, signed, http.StatusOK},
		{"same notification re-sent", body, signed, http.StatusOK},
		{"forged notification", forgedBody, forged, http.StatusUnauthorized},
	}
	ok := true
	for _, s := range steps {
		env.Call("POST /bankpay/events (%s)", s.name)
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
		rcv.flush(env)
		env.Result("response: %s", resp.Status)
		if resp.StatusCode != s.want {
			env.Note("unexpected: want %d", s.want)
			ok = false
		}
	}
	client.CloseIdleConnections()
	env.Note("events handled: %d (the re-send and the forgery were not handled again)", rcv.handled.Load())
	if !ok || rcv.handled.Load() != 1 {
		return fmt.Errorf("the handler did not behave as expected")
	}
	return nil
}

// fromSandbox has the embedded sandbox deliver the events of a disbursement
// to the handler, one of them re-sent after a failure.
func fromSandbox(ctx context.Context, env *exampleenv.Env, rcv *receiver, endpoint string) error {
	before := rcv.handled.Load()
	c := env.Client
	env.Call("Transactions.Establish(Disbursement, notificationUrl %s)", endpoint)
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency:          models.USD,
		Amount:            "25.00",
		MerchantReference: exampleenv.Ref("wh-auth"),
		PaymentType:       models.PaymentTypeDisbursement,
		ReturnURL:         "https://shop.example/payouts/return", // required by the OpenAPI; no redirect for a Disbursement
		CancelURL:         "https://shop.example/payouts/cancel",
		NotificationURL:   endpoint,
		Account:           &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber},
	})
	if err != nil {
		return fmt.Errorf("establish: %w", err)
	}
	env.Result("%s", exampleenv.DescribeEstablished(auth))
	if err := env.Sandbox.Flush(ctx); err != nil {
		return err
	}
	rcv.flush(env)

	env.Call("Transactions.Deposit(%s)", auth.TransactionID)
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: exampleenv.Ref("wh")})
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(dep))

	// The deposit's Process event will fail once in the handler.
	rcv.failNext.Store(true)
	if err := env.Advance(ctx, time.Minute); err != nil {
		return err
	}
	rcv.flush(env)
	env.Note("the sandbox re-sends an event not responded 200 every %s", bankpaytest.ResendInterval)
	if err := env.Advance(ctx, bankpaytest.ResendInterval); err != nil {
		return err
	}
	rcv.flush(env)
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays); err != nil {
		return err
	}
	rcv.flush(env)

	for _, ev := range env.Sandbox.EventsFor(dep.TransactionID) {
		var codes []string
		for _, a := range ev.Attempts {
			codes = append(codes, fmt.Sprint(a.StatusCode))
		}
		env.Note("sandbox: event %s %s delivered %t, attempts responded %s", ev.EventID, ev.EventType, ev.Delivered, strings.Join(codes, ", "))
		if !ev.Delivered {
			return fmt.Errorf("event %s %s was not delivered", ev.EventID, ev.EventType)
		}
	}
	got := rcv.handled.Load() - before
	env.Note("events handled: %d (Authorize, Process after its re-send, Complete)", got)
	if got != 3 {
		return fmt.Errorf("handled %d sandbox events, want 3", got)
	}
	return nil
}

// countingDuplicates is the handler's log, counting the re-sent events (a
// delivery of an eventId already processed: the handler responds 200
// without calling the callback again, and logs "duplicate event" at info
// level); the other records go to Handler.
type countingDuplicates struct {
	slog.Handler
	rcv *receiver
}

// duplicateMsg is the message of the handler's log line for a duplicate.
const duplicateMsg = "bankpay: webhook: duplicate event"

// Enabled implements slog.Handler: info records too, for the duplicates.
func (d *countingDuplicates) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || d.Handler.Enabled(ctx, l)
}

// WithAttrs implements slog.Handler, counting still.
func (d *countingDuplicates) WithAttrs(as []slog.Attr) slog.Handler {
	return &countingDuplicates{Handler: d.Handler.WithAttrs(as), rcv: d.rcv}
}

// WithGroup implements slog.Handler, counting still.
func (d *countingDuplicates) WithGroup(name string) slog.Handler {
	return &countingDuplicates{Handler: d.Handler.WithGroup(name), rcv: d.rcv}
}

// Handle implements slog.Handler.
func (d *countingDuplicates) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == duplicateMsg {
		eventID := ""
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "eventId" {
				eventID = a.Value.String()
			}
			return true
		})
		d.rcv.duplicates.Add(1)
		d.rcv.logf("event %s already processed, acknowledged again", eventID)
		return nil
	}
	if !d.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return d.Handler.Handle(ctx, r)
}
