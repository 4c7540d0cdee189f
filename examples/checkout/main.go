// Command checkout is a merchant's web shop that charges its buyer through
// the buyer's bank, end to end in a real browser, against the embedded
// bankpaytest sandbox:
//
//	go run ./examples/checkout
//
// and open the printed address. The product page signs establish data with
// the SDK (Client.SignEstablishData), loads the sandbox's client script
// (bankpaytest.Server.ScriptURL) and opens the bank selection as a lightbox
// (establish) or an inline widget (selectBankWidget). The user picks the
// sandbox bank, signs in (password "demo"), authorizes or cancels.
//
// Charging is a Capture: the Authorize event reaches the shop's webhook
// handler (bankpay.NewWebhookHandler at /bankpay/events), which confirms the
// authorization with Transactions.Get and captures the price with the
// event's split token. The return page verifies the signed redirect
// (VerifyRedirectRequest) and follows the capture's events (Process,
// Complete, Refund) as the handler records them; in the sandbox a button
// lets 3 banking days pass, and a Refund button gives the money back.
// A payout (Deposit) is another flow: see examples/payout.
//
// -addr sets the listen address (127.0.0.1:0, a free loopback port, by
// default). -selftest runs one checkout over HTTP without a browser, through
// the sandbox's pages, charges and refunds, prints "checkout: OK" and exits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	selftest := flag.Bool("selftest", false, "run one checkout without a browser and exit")
	flag.Parse()
	if err := run(*addr, *selftest); err != nil {
		fmt.Fprintln(os.Stderr, "checkout:", err)
		os.Exit(1)
	}
}

func run(addr string, selftest bool) error {
	env, err := exampleenv.Start()
	if err != nil {
		return err
	}
	defer env.Close()
	if !env.Embedded() {
		// The shop's page loads the embedded sandbox's client script; against
		// a real service it would load the service's.
		env.Printf("\nStopping here: the checkout runs against the embedded sandbox: %v.\n", exampleenv.ErrNeedsBrowser)
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	shop := newShop(env, "http://"+ln.Addr().String())
	srv := &http.Server{Handler: shop.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	if selftest {
		if err := selfTest(shop.base); err != nil {
			return err
		}
		fmt.Println("checkout: OK")
		return nil
	}
	fmt.Printf("checkout: open %s/ in a browser (sandbox bank password: demo)\n", shop.base)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	<-ctx.Done()
	return nil
}

// price is what the shop sells its one product for.
const price models.Amount = "25.00"

// order is what the shop knows of one checkout, and (view) what its page
// shows.
type order struct {
	Ref       string                   `json:"ref"`
	AuthID    string                   `json:"authorization,omitempty"`
	CaptureID string                   `json:"capture,omitempty"`
	Status    models.TransactionStatus `json:"-"`        // the capture's, from its events
	Events    []models.EventType       `json:"events"`   // the capture's events, in order
	Refunds   []string                 `json:"refunds"`  // refund transaction ids
	Problem   string                   `json:"problem"`  // why the charge failed
	Canceled  bool                     `json:"canceled"` // the user canceled at the bank
	Identity  bool                     `json:"-"`        // an identity check: nothing to charge
	Verified  bool                     `json:"-"`        // a verified redirect came back for it
	AuthState models.TransactionStatus `json:"-"`        // the redirect's status
	Provider  models.ProviderStatus    `json:"-"`        // the redirect's provider status

	// Set by view.
	StatusStr string `json:"status"`    // Status as text
	Title     string `json:"title"`     // the page's heading
	Text      string `json:"text"`      // the page's text
	Final     bool   `json:"final"`     // nothing more happens by itself
	CanWait   bool   `json:"canWait"`   // the sandbox's clock can move the capture on
	CanRefund bool   `json:"canRefund"` // the capture is paid and not wholly refunded
}

type shop struct {
	env     *exampleenv.Env
	base    string // the shop's public base URL, for returnUrl and VerifyRedirectRequest
	webhook http.Handler

	mu     sync.Mutex
	orders map[string]*order // by merchantReference
	byTxn  map[string]*order // by authorization and capture id
}

func newShop(env *exampleenv.Env, base string) *shop {
	s := &shop{env: env, base: base, orders: map[string]*order{}, byTxn: map[string]*order{}}
	// The handler runs each event once (in its own memory: one process;
	// replicas share a store, WithDeduplicator). A sandbox's clock moves
	// ahead of the real time: judge event age by it (the embedded
	// sandbox's, or a standalone one's read by bankpaytest.RemoteClock; the
	// real time against the service).
	s.webhook = bankpay.NewWebhookHandler(env.Creds, s.onEvent, bankpay.WithWebhookClock(env.WebhookClock()))
	return s
}

func (s *shop) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.product)
	mux.HandleFunc("GET /return", s.finish)
	mux.HandleFunc("GET /cancel", s.finish)
	mux.Handle("POST /bankpay/events", s.webhook)
	mux.HandleFunc("GET /orders/{ref}", s.orderJSON)
	mux.HandleFunc("POST /orders/{ref}/refund", s.refund)
	mux.HandleFunc("POST /orders/{ref}/wait", s.wait)
	mux.HandleFunc("GET /sandbox/transactions/{id}", s.recorded)
	return mux
}

// recorded shows what the embedded sandbox recorded for a transaction (its
// type, status, amount, the last 4 digits of its account and event types), for the browser test. A real shop has no
// such page.
func (s *shop) recorded(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	t, ok := s.env.Sandbox.Transaction(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	events := []models.EventType{}
	for _, e := range s.env.Sandbox.EventsFor(id) {
		events = append(events, e.EventType)
	}
	last4 := ""
	if t.Payment != nil && t.Payment.Account != nil {
		n := t.Payment.Account.AccountNumber
		last4 = n[max(0, len(n)-4):]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"type": t.TransactionType, "status": t.Status, "amount": t.Amount,
		"originalTransactionId": t.OriginalTransactionID, "accountLast4": last4, "events": events})
}

// product signs fresh establish data and renders the product page.
// ?identity=1 asks for identity verification (kycType 1) and charges nothing.
func (s *shop) product(w http.ResponseWriter, r *http.Request) {
	d := models.EstablishData{
		MerchantReference: exampleenv.Ref("shop"),
		PaymentType:       models.PaymentTypeDeferred,
		Currency:          models.USD,
		Amount:            price,
		Description:       "Sandbox T-shirt",
		ReturnURL:         s.base + "/return",
		CancelURL:         s.base + "/cancel",
		NotificationURL:   s.base + "/bankpay/events",
	}
	o := &order{Ref: d.MerchantReference}
	if r.URL.Query().Get("identity") == "1" {
		d.KYCType = models.KYCTypeIdentity
		d.ReturnURL += "?flow=identity" // signed by the service with the redirect
		o.Identity = true
	}
	if err := s.env.Client.SignEstablishData(&d); err != nil {
		http.Error(w, "signing failed", http.StatusInternalServerError)
		return
	}
	if r.URL.Query().Get("tamper") == "1" { // shows the service's error for a bad signature
		d.Amount = "1.00"
	}
	s.mu.Lock()
	s.orders[o.Ref] = o
	s.mu.Unlock()
	data, _ := json.Marshal(d)
	page(w, productPage, map[string]any{
		"Price":     price,
		"Script":    s.env.Sandbox.ScriptURL() + "?accessId=" + d.AccessID,
		"Data":      template.JS(data),
		"Reference": d.MerchantReference,
	})
}

// onEvent is the webhook callback. The Authorize event of an order's
// authorization triggers its capture; the capture's events move the order
// on. It runs once per eventId (the deduplicator); an error answers 500 and
// the service sends the event again.
func (s *shop) onEvent(ctx context.Context, ev *bankpay.Event) error {
	if ev.Transaction == nil {
		return nil
	}
	id := ev.TransactionID
	s.mu.Lock()
	o := s.byTxn[id]
	if o == nil && ev.EventType == models.EventAuthorize {
		o = s.orders[ev.MerchantReference]
	}
	s.mu.Unlock()
	if o == nil || o.Identity {
		return nil // not a charge of this shop
	}
	if ev.EventType == models.EventAuthorize {
		return s.charge(ctx, o, id, ev.Transaction.SplitToken)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == o.CaptureID {
		o.Events = append(o.Events, ev.EventType)
		if ev.Transaction.HasStatus {
			o.Status = ev.Transaction.Status
		}
	}
	return nil
}

// charge captures the price from authorization authID with the split token
// of its Authorize event, once. The event's notificationUrl travels through
// the browser, so the authorization is confirmed with Transactions.Get
// first. A re-sent Authorize event after a lost capture response finds the
// capture by its merchantReference instead of charging twice.
func (s *shop) charge(ctx context.Context, o *order, authID, splitToken string) error {
	s.mu.Lock()
	done := o.CaptureID != ""
	s.mu.Unlock()
	if done {
		return nil
	}
	auth, err := s.env.Client.Transactions.Get(ctx, authID)
	if err != nil {
		return fmt.Errorf("confirm authorization %s: %w", authID, err)
	}
	if auth.Status != models.StatusAuthorized || auth.MerchantReference != o.Ref || auth.Amount != price {
		s.fail(o, authID, fmt.Sprintf("authorization %s is %s for %s %s, not an authorized %s for this order", authID, auth.Status, auth.Amount, auth.MerchantReference, price))
		return nil
	}
	p := &bankpay.CaptureParams{MerchantReference: o.Ref + "-pay", Amount: price, SplitToken: splitToken}
	capture, err := s.env.Client.Transactions.Capture(ctx, authID, p)
	switch {
	case errors.Is(err, bankpay.ErrDuplicate), bankpay.OutcomeUnknown(err):
		// Captured before, or perhaps: look it up rather than pay again.
		capture, err = s.env.Client.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: authID, Type: models.TypeCapture, MerchantReference: p.MerchantReference})
		if err != nil {
			return fmt.Errorf("find capture %s: %w", p.MerchantReference, err) // 500: the event comes again
		}
	case errors.Is(err, bankpay.ErrBadRequest):
		s.fail(o, authID, "the capture was refused: "+err.Error())
		return nil
	case err != nil:
		return fmt.Errorf("capture %s: %w", authID, err)
	}
	fmt.Printf("checkout: order %s: captured %s from authorization %s (Authorize event): capture %s (%s)\n", o.Ref, capture.Amount, authID, capture.TransactionID, capture.Status)
	s.mu.Lock()
	defer s.mu.Unlock()
	o.AuthID, o.CaptureID, o.Status = authID, capture.TransactionID, capture.Status
	s.byTxn[authID], s.byTxn[capture.TransactionID] = o, o
	return nil
}

func (s *shop) fail(o *order, authID, why string) {
	log.Printf("checkout: order %s: %s", o.Ref, why)
	s.mu.Lock()
	defer s.mu.Unlock()
	o.AuthID, o.Problem = authID, why
	s.byTxn[authID] = o
}

// finish handles returnUrl and cancelUrl: verify the signed redirect, check
// it is for an order of this shop, then show the order page, which follows
// the capture the Authorize event triggers.
func (s *shop) finish(w http.ResponseWriter, r *http.Request) {
	red, err := bankpay.VerifyRedirectRequest(r, s.base, s.env.Creds)
	var o *order
	if err == nil {
		s.mu.Lock()
		o = s.orders[red.MerchantReference]
		s.mu.Unlock()
	}
	if o == nil {
		w.WriteHeader(http.StatusBadRequest)
		page(w, orderPage, &order{Title: "Payment not verified", Text: "The redirect's signature did not verify.", Final: true})
		return
	}
	s.mu.Lock()
	o.Verified = true
	if o.AuthID == "" {
		o.AuthID = red.TransactionID
	}
	o.Canceled = r.URL.Path == "/cancel" || red.Status == models.StatusCanceled
	o.AuthState, o.Provider = red.Status, red.ProviderTransactionStatus
	v := s.view(o)
	s.mu.Unlock()
	page(w, orderPage, v)
}

// view is the order as the page shows it. The caller holds s.mu.
func (s *shop) view(o *order) *order {
	v := *o
	v.Events = append([]models.EventType{}, o.Events...)
	v.Refunds = append([]string{}, o.Refunds...)
	v.StatusStr = ""
	if o.CaptureID != "" {
		v.StatusStr = o.Status.String()
	}
	v.Final = true
	switch {
	case o.Identity:
		v.Title, v.Text = "Identity checked", fmt.Sprintf("Verification finished: status %s, provider status %s.", o.AuthState, o.Provider)
	case o.Canceled:
		v.Title, v.Text = "Payment canceled", "You canceled at your bank. Nothing was charged."
	case o.Problem != "":
		v.Title, v.Text = "Payment failed", o.Problem
	case o.CaptureID == "":
		v.Title, v.Text, v.Final = "Authorized", "Your bank authorized the payment; collecting it…", false
	case o.Status == models.StatusAuthorized || o.Status == models.StatusProcessed:
		v.Title = "Charged"
		v.Text = fmt.Sprintf("Charged %s USD. Order %s, capture %s (%s): the money arrives in %d banking days.", price, o.Ref, o.CaptureID, o.Status, bankpaytest.CompletionBankingDays)
		v.CanWait = true
	case o.Status == models.StatusCompleted:
		v.Title, v.Text, v.CanRefund = "Paid", fmt.Sprintf("Paid %s USD. Order %s, capture %s (Completed).", price, o.Ref, o.CaptureID), true
	case o.Status == models.StatusPartiallyRefunded:
		v.Title, v.Text, v.CanRefund = "Partially refunded", fmt.Sprintf("Order %s: capture %s partly refunded.", o.Ref, o.CaptureID), true
	case o.Status == models.StatusRefunded:
		v.Title, v.Text = "Refunded", fmt.Sprintf("Refunded %s USD. Order %s, capture %s, refund %s.", price, o.Ref, o.CaptureID, strings.Join(o.Refunds, ", "))
	default:
		v.Title, v.Text = "Payment failed", fmt.Sprintf("Capture %s is %s.", o.CaptureID, o.Status)
	}
	return &v
}

// orderJSON is what the order page polls.
func (s *shop) orderJSON(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	o := s.orders[r.PathValue("ref")]
	var v *order
	if o != nil && (o.Verified || o.CaptureID != "") {
		v = s.view(o)
	}
	s.mu.Unlock()
	if v == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// refund gives the whole balance of the order's capture back.
func (s *shop) refund(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	o := s.orders[r.PathValue("ref")]
	var id string
	if o != nil {
		id = o.CaptureID
	}
	s.mu.Unlock()
	if id == "" {
		http.NotFound(w, r)
		return
	}
	rf, err := s.env.Client.Transactions.Refund(r.Context(), id, &bankpay.RefundParams{MerchantReference: o.Ref + "-refund"})
	if err != nil {
		log.Printf("checkout: refund %s: %v", id, err)
		http.Error(w, "refund refused: "+err.Error(), http.StatusConflict)
		return
	}
	fmt.Printf("checkout: order %s: refund %s of capture %s (%s)\n", o.Ref, rf.TransactionID, id, rf.Status)
	s.mu.Lock()
	o.Refunds = append(o.Refunds, rf.TransactionID)
	s.mu.Unlock()
	// The Refund event of the capture moves the order on; wait for it here
	// so the page shows it at once.
	if err := s.env.Sandbox.Flush(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.orderJSON(w, r)
}

// wait lets 3 banking days pass on the embedded sandbox's clock, so that the
// capture is processed and completes. A real shop has no such button: on
// the service, time does it.
func (s *shop) wait(w http.ResponseWriter, r *http.Request) {
	s.env.Sandbox.Advance(time.Minute)
	s.env.Sandbox.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	if err := s.env.Sandbox.Flush(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.orderJSON(w, r)
}

func page(w http.ResponseWriter, t *template.Template, v any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := t.Execute(w, v); err != nil {
		log.Printf("template: %v", err)
	}
}

const head = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Sandbox shop</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:auto;padding:1rem}button{font-size:1rem;padding:.6rem 1rem;margin:.2rem}[hidden]{display:none}</style></head><body><main>`

var productPage = template.Must(template.New("product").Parse(head + `
<h1>Sandbox T-shirt</h1><p>{{.Price}} USD</p>
<p><button type="button" id="pay-lightbox">Pay by bank</button>
<button type="button" id="pay-widget">Pay by bank (inline)</button></p>
<div id="bank-widget"></div>
<script type="application/json" id="establish-data">{{.Data}}</script>
<script src="{{.Script}}"></script>
<script>
var data = JSON.parse(document.getElementById("establish-data").textContent);
document.getElementById("pay-lightbox").onclick = function () { BankPay.establish(data, {closeButton: true, dragAndDrop: false}); };
document.getElementById("pay-widget").onclick = function () { BankPay.selectBankWidget(data, {widgetContainerId: "bank-widget"}); };
</script></main></body></html>`))

// orderPage follows the order: it polls /orders/{ref} until nothing more
// happens by itself, and offers the sandbox's wait and the refund.
var orderPage = template.Must(template.New("order").Parse(head + `
<h1 id="result">{{.Title}}</h1><p id="text">{{.Text}}</p>
{{if .AuthID}}<p>Authorization <span id="txn">{{.AuthID}}</span></p>{{end}}
{{if .Ref}}<p id="capture-line"{{if not .CaptureID}} hidden{{end}}>Capture <span id="capture">{{.CaptureID}}</span>: <span id="status">{{.StatusStr}}</span>;
events <span id="events">{{range $i, $e := .Events}}{{if $i}}, {{end}}{{$e}}{{else}}none yet{{end}}</span></p>
<p><button type="button" id="wait"{{if not .CanWait}} hidden{{end}}>Let 3 banking days pass (sandbox)</button>
<button type="button" id="refund"{{if not .CanRefund}} hidden{{end}}>Refund</button></p>
<script type="application/json" id="order-ref">{{.Ref}}</script>
<script>
(function () {
  var ref = JSON.parse(document.getElementById("order-ref").textContent);
  var $ = function (id) { return document.getElementById(id); };
  function show(o) {
    $("result").textContent = o.title; $("text").textContent = o.text;
    $("capture-line").hidden = !o.capture;
    $("capture").textContent = o.capture || ""; $("status").textContent = o.status;
    $("events").textContent = (o.events || []).join(", ") || "none yet";
    $("wait").hidden = !o.canWait; $("refund").hidden = !o.canRefund;
    return o;
  }
  function poll() {
    fetch("/orders/" + encodeURIComponent(ref)).then(function (r) { return r.json(); }).then(show)
      .then(function (o) { if (!o.final) setTimeout(poll, 300); }).catch(function () { setTimeout(poll, 1000); });
  }
  function act(path) {
    return function () {
      fetch("/orders/" + encodeURIComponent(ref) + path, {method: "POST"}).then(function (r) {
        if (!r.ok) return r.text().then(function (t) { $("text").textContent = t; });
        return r.json().then(show);
      });
    };
  }
  $("wait").onclick = act("/wait");
  $("refund").onclick = act("/refund");
  poll();
})();
</script>{{end}}
<p><a href="/">Back to the shop</a></p></main></body></html>`))
