package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// readInput reads the file name, or standard input for "-".
func (e *env) readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(e.stdin, 1<<20))
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return b, nil
}

// runSignEstablish prints the canonical string and the requestSignature of
// establish data (a JSON file, as the front-end SDK takes it), to debug a
// 375 (the service computed another signature): compare the canonical
// string with the one the operator's support gives.
func runSignEstablish(_ context.Context, e *env, args []string) error {
	fs := e.flags("sign-establish")
	sha512 := fs.Bool("sha512", false, "sign with HMAC-SHA512 instead of HMAC-SHA1")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one establish data file (- for standard input)")
	}
	raw, err := e.readInput(fs.Arg(0))
	if err != nil {
		return err
	}
	var d models.EstablishData
	if err := json.Unmarshal(raw, &d); err != nil {
		return usagef("establish data is not valid JSON: %v", err)
	}
	creds, err := e.credentials()
	if err != nil {
		return err
	}
	var opts []bankpay.Option
	if *sha512 {
		opts = append(opts, bankpay.WithHMACSHA512())
	}
	c, err := bankpay.NewClient(creds, opts...)
	if err != nil {
		return err
	}
	if err := c.SignEstablishData(&d); err != nil {
		return err
	}
	canonical := sign.EstablishMessage(&d)
	if e.json {
		return e.printJSON(struct {
			Canonical        string               `json:"canonical"`
			RequestSignature string               `json:"requestSignature"`
			EstablishData    models.EstablishData `json:"establishData"`
		}{canonical, d.RequestSignature, d})
	}
	fmt.Fprintf(e.stdout, "canonical string:\n%s\n\nrequestSignature:\n%s\n", canonical, d.RequestSignature)
	return nil
}

// runVerifyRedirect checks the signature of a return or cancel URL.
func runVerifyRedirect(_ context.Context, e *env, args []string) error {
	fs := e.flags("verify-redirect")
	ref := fs.String("expect-ref", "", "refuse the redirect unless its merchantReference is this one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one URL, as the browser requested it")
	}
	key := e.getenv("BANKPAY_ACCESS_KEY")
	if key == "" {
		return usagef("BANKPAY_ACCESS_KEY not set")
	}
	var opts []bankpay.Option
	if *ref != "" {
		opts = append(opts, bankpay.RedirectExpectReference(*ref))
	}
	r, err := bankpay.VerifyRedirect(fs.Arg(0), bankpay.Credentials{AccessKey: bankpay.NewSecret(key)}, opts...)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(r)
	}
	fmt.Fprintf(e.stdout, "signature valid (%s)\n", r.Algorithm)
	return e.printRows([][2]string{
		{"transactionId", r.TransactionID},
		{"status", fmt.Sprintf("%s (%d)", r.Status, int(r.Status))},
		{"merchantReference", r.MerchantReference},
		{"paymentType", r.PaymentType.String()},
		{"providerStatus", string(r.ProviderTransactionStatus)},
		{"instantPayoutAvailable", fmt.Sprint(r.InstantPayoutAvailable)},
		{"unsigned (untrusted)", r.Unsigned.Encode()},
	})
}

// runVerifyNotification checks a captured event notification (its body and
// Authorization header) and prints the event.
func runVerifyNotification(_ context.Context, e *env, args []string) error {
	fs := e.flags("verify-notification")
	bodyFile := fs.String("body", "", "file holding the request body as received (- for standard input)")
	auth := fs.String("authorization", "", "the request's Authorization header")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bodyFile == "" || *auth == "" || fs.NArg() != 0 {
		return usagef("want -body FILE and -authorization HEADER")
	}
	body, err := e.readInput(*bodyFile)
	if err != nil {
		return err
	}
	creds, err := e.credentials()
	if err != nil {
		return err
	}
	// The event as its signature covers it (the body's type is sniffed).
	ev, err := bankpay.VerifyNotification(body, *auth, creds)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(ev)
	}
	fmt.Fprintln(e.stdout, "signature valid")
	rows := [][2]string{
		{"eventId", ev.EventID},
		{"eventType", string(ev.EventType)},
		{"transactionId", ev.TransactionID},
		{"merchantReference", ev.MerchantReference},
		{"createdAt", ev.CreatedAt.Format("2006-01-02T15:04:05.000Z07:00")},
	}
	if t := ev.Transaction; t != nil && t.HasStatus {
		rows = append(rows, [2]string{"status", fmt.Sprintf("%s (%d)", t.Status, int(t.Status))})
	}
	return e.printRows(rows)
}
