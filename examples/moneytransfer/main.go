// Command moneytransfer shows the international money transfer use case, for
// merchants the operator configured for it: the establish data carries the
// originator (the customer, with name and address), the user authorizes, and
// the merchant captures the payment with the beneficiary, the beneficiary's
// account and the remittance data, sent form-encoded with dotted names.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox (whose
// merchant is configured for money transfer).
package main

import (
	"context"
	"errors"
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
	"github.com/bankpay/bankpay-go/models"
)

func main() { exampleenv.Main("moneytransfer", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	events := env.StartReceiver()

	env.Section("1. Authorization with the originator's details")
	d := &models.EstablishData{
		Description:       "Transfer to family",
		Currency:          models.USD,
		Amount:            "500.00",
		MerchantReference: exampleenv.Ref("imt-auth"),
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://remit.example/bankpay/return",
		CancelURL:         "https://remit.example/bankpay/cancel",
		NotificationURL:   events.URL,
		// The originator: name and full address are required for money
		// transfer; date of birth and tax id when available.
		Customer: &models.Customer{
			ExternalID:  "sender-5521",
			Name:        "Maria Garcia",
			DateOfBirth: "1984-03-09",
			Address: &models.Address{
				Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US",
			},
		},
	}
	r, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		return err
	}

	env.Section("2. Checked before sending")
	bad := &bankpay.CaptureParams{
		MerchantReference: exampleenv.Ref("imt"),
		Amount:            "120.00",
		Beneficiary:       &models.Beneficiary{Name: "Luis Garcia"}, // no address.country
	}
	env.Call("Transactions.Capture(%s) with a beneficiary without a country", r.TransactionID)
	_, err = env.Client.Transactions.Capture(ctx, r.TransactionID, bad)
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("capture without beneficiary country: got %v, want a *bankpay.ValidationError", err)
	}
	env.Result("refused by the SDK, nothing sent: field %s %s", ve.Field, ve.Reason)

	return captureTransfer(ctx, env, r)
}

// captureTransfer captures the transfer against the authorization r, then asks for more than it allows.
func captureTransfer(ctx context.Context, env *exampleenv.Env, r *bankpay.Redirect) error {
	env.Section("3. Capture the transfer")
	p := &bankpay.CaptureParams{
		MerchantReference: exampleenv.Ref("imt"),
		Amount:            "120.00",
		Beneficiary: &models.Beneficiary{
			Name:        "Luis Garcia",
			DateOfBirth: "1990-07-21",
			Address:     &models.Address{Address1: "Calle 5 de Mayo 12", City: "Guadalajara", State: "JAL", Zip: "44100", Country: "MX"},
		},
		BeneficiaryAccount: &models.BeneficiaryAccount{
			AccountNumber: "012320001234567891",
			PaymentProvider: &models.PaymentProvider{
				Name: "Banco Ejemplo", Country: "MX", Swift: "BEJEMXMM",
			},
		},
		Remittance: &models.Remittance{
			WithdrawalMethod: models.WithdrawalBankDeposit,
			CountryCorridor:  "MX",
			AccountLastFour:  "7891",
		},
	}
	env.Call("Transactions.Capture(%s, %s to %s in %s via %s, ref %s)", r.TransactionID, p.Amount,
		p.Beneficiary.Name, p.Beneficiary.Address.Country, p.Remittance.WithdrawalMethod, p.MerchantReference)
	env.Note("form body: merchantReference, amount, beneficiary.name, beneficiary.address.country, beneficiaryAccount.paymentProvider.swift, metadata.remittance.withdrawalMethod, ...")
	c, err := env.Client.Transactions.Capture(ctx, r.TransactionID, p)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(c))
	if c.TransactionType != models.TypeCapture || c.OriginalTransactionID != r.TransactionID {
		return fmt.Errorf("capture: got %s", exampleenv.DescribeTxn(c))
	}

	env.Call("Transactions.Get(%s)", c.TransactionID)
	got, err := env.Client.Transactions.Get(ctx, c.TransactionID)
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	env.Result("%s", exampleenv.DescribeTxn(got))

	env.Section("4. More than the authorization allows")
	over := *p
	over.MerchantReference = exampleenv.Ref("imt")
	over.Amount = "400.00" // 120.00 + 400.00 > 500.00
	env.Call("Transactions.Capture(%s, %s, ref %s)", r.TransactionID, over.Amount, over.MerchantReference)
	_, err = env.Client.Transactions.Capture(ctx, r.TransactionID, &over)
	var apiErr *bankpay.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, bankpay.ErrBadRequest) {
		return fmt.Errorf("capture over the authorization amount: got %v, want a 400 *bankpay.APIError", err)
	}
	env.Result("HTTP %d, code %d: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	return env.Flush(ctx)
}
