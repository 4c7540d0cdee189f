// Command checkout is a merchant's web shop paying through the user's bank,
// end to end in a real browser, against the embedded bankpaytest sandbox:
//
//	go run ./examples/checkout
//
// and open the printed address. The product page signs establish data with
// the SDK (Client.SignEstablishData), loads the sandbox's client script and
// opens the bank selection as a lightbox (establish) or an inline widget
// (selectBankWidget). The user picks the sandbox bank, signs in (password
// "demo"), authorizes or cancels; the return page verifies the signed
// redirect (VerifyRedirectRequest), deposits the payment and shows the result.
//
// -addr sets the listen address (127.0.0.1:0, a free loopback port, by
// default). -selftest runs one checkout over HTTP without a browser, through
// the sandbox's pages, prints "checkout: OK" and exits.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"

	bankpay "github.com/bankpay/bankpay-go"
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
	shop := &shop{env: env, base: "http://" + ln.Addr().String(), results: map[string]string{}}
	srv := &http.Server{Handler: shop.routes()}
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

type shop struct {
	env  *exampleenv.Env
	base string // the shop's public base URL, for returnUrl and VerifyRedirectRequest

	mu      sync.Mutex
	results map[string]string // merchantReference → last result, for the page and the tests
}

func (s *shop) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.product)
	mux.HandleFunc("GET /return", s.finish)
	mux.HandleFunc("GET /cancel", s.finish)
	mux.HandleFunc("GET /sandbox/transactions/{id}", s.recorded)
	return mux
}

// recorded shows what the embedded sandbox recorded for a transaction (its
// status and event types), for the browser test. A real shop has no such page.
func (s *shop) recorded(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	t, ok := s.env.Sandbox.Transaction(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	var events []models.EventType
	for _, e := range s.env.Sandbox.EventsFor(id) {
		events = append(events, e.Type)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": t.Status, "events": events})
}

// product signs fresh establish data and renders the product page.
// ?identity=1 asks for identity verification (kycType 1).
func (s *shop) product(w http.ResponseWriter, r *http.Request) {
	d := models.EstablishData{
		MerchantReference: exampleenv.Ref("shop"),
		PaymentType:       models.PaymentTypeDeferred,
		Currency:          models.USD,
		Amount:            price,
		Description:       "Sandbox T-shirt",
		ReturnURL:         s.base + "/return",
		CancelURL:         s.base + "/cancel",
	}
	if r.URL.Query().Get("identity") == "1" {
		d.KYCType = models.KYCTypeIdentity
		d.ReturnURL += "?flow=identity" // signed by the service with the redirect
	}
	if err := s.env.Client.SignEstablishData(&d); err != nil {
		http.Error(w, "signing failed", http.StatusInternalServerError)
		return
	}
	if r.URL.Query().Get("tamper") == "1" { // shows the service's error for a bad signature
		d.Amount = "1.00"
	}
	data, _ := json.Marshal(d)
	page(w, productPage, map[string]any{
		"Price":     price,
		"Script":    s.env.Sandbox.ScriptURL() + "?accessId=" + d.AccessID,
		"Data":      template.JS(data),
		"Reference": d.MerchantReference,
	})
}

// finish handles returnUrl and cancelUrl: verify the signed redirect, then
// deposit an authorized payment.
func (s *shop) finish(w http.ResponseWriter, r *http.Request) {
	red, err := bankpay.VerifyRedirectRequest(r, s.base, s.env.Creds)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		page(w, resultPage, map[string]any{"Title": "Payment not verified", "Text": "The redirect's signature did not verify."})
		return
	}
	title, text := "Payment canceled", "You canceled at your bank. Nothing was charged."
	switch {
	case r.URL.Query().Get("flow") == "identity" && r.URL.Path == "/return":
		title, text = "Identity checked", fmt.Sprintf("Verification finished: status %s, provider status %s.", red.Status, red.ProviderTransactionStatus)
	case red.Status == models.StatusAuthorized && r.URL.Path == "/return":
		dep, err := s.env.Client.Transactions.Deposit(r.Context(), red.TransactionID, &bankpay.DepositParams{
			MerchantReference: red.MerchantReference + "-dep", Amount: price,
		})
		if err != nil {
			log.Printf("deposit %s: %v", red.TransactionID, err)
			title, text = "Payment failed", "The deposit was refused."
			break
		}
		title, text = "Paid", fmt.Sprintf("Paid %s USD. Order %s, deposit %s (%s).", price, red.MerchantReference, dep.TransactionID, dep.Status)
	}
	s.mu.Lock()
	s.results[red.MerchantReference] = title
	s.mu.Unlock()
	page(w, resultPage, map[string]any{"Title": title, "Text": text, "TransactionID": red.TransactionID})
}

func page(w http.ResponseWriter, t *template.Template, v any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := t.Execute(w, v); err != nil {
		log.Printf("template: %v", err)
	}
}

const head = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Sandbox shop</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:auto;padding:1rem}button{font-size:1rem;padding:.6rem 1rem;margin:.2rem}</style></head><body><main>`

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

var resultPage = template.Must(template.New("result").Parse(head + `
<h1 id="result">{{.Title}}</h1><p>{{.Text}}</p>{{if .TransactionID}}<p>Transaction <span id="txn">{{.TransactionID}}</span></p>{{end}}
<p><a href="/">Back to the shop</a></p></main></body></html>`))
