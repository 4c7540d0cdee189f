// Command disputes shows the reference data and the dispute recovery use
// cases: the merchant lists the countries it can pay out in and the banks a
// user can pick, page by page; later a collected payment is returned by the
// user's bank, the Dispute event names it and the amount returned, and the
// merchant recovers it with Disputes.Create, whose Idempotency-Key makes a
// repeated request recover once.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("disputes", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()
	c := env.Client

	env.Section("1. Where can we pay out, and with which banks?")
	env.Call("Countries.List(paymentType Disbursement)")
	countries, err := c.Countries.List(ctx, &bankpay.CountryListParams{PaymentType: "Disbursement"})
	if err != nil {
		return fmt.Errorf("list countries: %w", err)
	}
	var codes []string
	for _, country := range countries {
		codes = append(codes, fmt.Sprintf("%s (%s, %s)", country.Alpha2Code, country.Name, strings.Join(country.Currencies, "/")))
	}
	env.Result("%d countries: %s", len(countries), strings.Join(codes, ", "))

	env.Call("PaymentProviders.List(countries US and CA, paymentType Deferred), 2 per page")
	n := 0
	for pp, err := range c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{
		Countries: []string{"US", "CA"}, PaymentType: "Deferred", Count: 2}) {
		if err != nil {
			return fmt.Errorf("list payment providers: %w", err)
		}
		n++
		env.Result("%s %s (%s, subtype %s)", pp.PaymentProviderID, pp.Name, pp.Country, pp.SubType)
	}
	env.Note("%d providers, read page by page as the loop asked for more", n)

	env.Section("2. A money transfer, collected")
	d := &models.EstablishData{
		Description:       "Transfer to family",
		Currency:          models.USD,
		Amount:            "300.00",
		MerchantReference: exampleenv.Ref("dsp-auth"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://remit.example/bankpay/return",
		CancelURL:         "https://remit.example/bankpay/cancel",
		NotificationURL:   events.URL,
		Customer: &models.Customer{ExternalID: "sender-7310", Name: "Maria Garcia",
			Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"}},
	}
	r, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}
	p := &bankpay.CaptureParams{
		MerchantReference: exampleenv.Ref("dsp-cap"),
		Amount:            "120.00",
		Beneficiary:       &models.Beneficiary{Name: "Luis Garcia", Address: &models.Address{Country: "MX"}},
	}
	env.Call("Transactions.Capture(%s, %s, ref %s)", r.TransactionID, p.Amount, p.MerchantReference)
	capture, err := c.Transactions.Capture(ctx, r.TransactionID, p)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(capture))
	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays+1); err != nil {
		return err
	}

	return disputeAndRecover(ctx, env, c, events, capture)
}

// disputeAndRecover plays the user's bank returning the capture (a Dispute event), then recovers it.
func disputeAndRecover(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, events *exampleenv.Receiver, capture *models.Transaction) error {
	env.Section("3. The user's bank returns it: a Dispute event")
	if env.Sandbox == nil {
		return fmt.Errorf("waiting for a return: %w", exampleenv.ErrNeedsSandboxClock)
	}
	env.Note("[bank] the user says the debit was not authorized (ACH return R10)")
	if err := env.Sandbox.Dispute(capture.TransactionID); err != nil {
		return fmt.Errorf("dispute: %w", err)
	}
	if err := env.Flush(ctx); err != nil {
		return err
	}
	var dispute *bankpay.Event
	for _, ev := range events.EventsFor(capture.TransactionID) {
		if ev.EventType == models.EventDispute {
			dispute = ev
		}
	}
	if dispute == nil {
		return errors.New("no Dispute event arrived")
	}
	disputed, returned := dispute.Raw.Get("transactionId"), models.Amount(dispute.Raw.Get("amountReturned"))
	env.Result("Dispute: transaction %s, returnType %s, amountReturned %s, reference %s",
		disputed, dispute.Raw.Get("returnType"), returned, dispute.Raw.Get("reference"))

	return recoverDispute(ctx, env, c, disputed, returned)
}

// recoverDispute recovers the returned amount of the disputed transaction with Disputes.Create, once whatever the repeats, and follows the recovery to Completed.
func recoverDispute(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, disputed string, returned models.Amount) error {
	env.Section("4. Recover it")
	rp := &bankpay.DisputeParams{TransactionID: disputed, Amount: returned, IdempotencyKey: "recover-" + disputed}
	env.Call("Disputes.Create(transaction %s, amount %s, Idempotency-Key %s)", rp.TransactionID, rp.Amount, rp.IdempotencyKey)
	rec, err := c.Disputes.Create(ctx, rp)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(rec))
	if rec.TransactionType != models.TypeRepresentment || rec.OriginalTransactionID != disputed {
		return fmt.Errorf("recovery: got %s", exampleenv.DescribeTxn(rec))
	}

	env.Call("Disputes.Create again with the same key (a retry after a timeout, say)")
	again, err := c.Disputes.Create(ctx, rp)
	if err != nil {
		return fmt.Errorf("repeat the recovery: %w", err)
	}
	if again.TransactionID != rec.TransactionID {
		return fmt.Errorf("the repeated request made recovery %s, want %s again", again.TransactionID, rec.TransactionID)
	}
	env.Result("the same recovery %s: recovered once", again.TransactionID)

	env.Call("Disputes.Create(transaction %s, amount 0.01) with a new key", disputed)
	_, err = c.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: disputed, Amount: "0.01"})
	var apiErr *bankpay.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, bankpay.ErrBadRequest) {
		return fmt.Errorf("recover more than returned: got %v, want a 400 *bankpay.APIError", err)
	}
	env.Result("HTTP %d, code %d: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)

	if err := env.AdvanceBankingDays(ctx, bankpaytest.CompletionBankingDays+1); err != nil {
		return err
	}
	env.Call("Transactions.Get(%s)", rec.TransactionID)
	got, err := c.Transactions.Get(ctx, rec.TransactionID)
	if err != nil {
		return fmt.Errorf("get the recovery: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(got))
	if got.Status != models.StatusCompleted {
		return fmt.Errorf("recovery: got %s, want Completed", exampleenv.DescribeTxn(got))
	}
	return nil
}
