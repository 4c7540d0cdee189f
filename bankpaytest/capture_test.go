package bankpaytest_test

import (
	"net/url"
	"testing"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func transferData(ref string) models.EstablishData {
	d := uiData(ref, models.PaymentTypeDeferred, "500.00")
	d.Customer = &models.Customer{
		Name:    "Jane Doe",
		Address: &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
	}
	return d
}

func captureForm(ref, amount string) url.Values {
	return url.Values{
		"merchantReference":                          {ref},
		"amount":                                     {amount},
		"beneficiary.name":                           {"Juan Perez"},
		"beneficiary.address.city":                   {"Guadalajara"},
		"beneficiary.address.country":                {"MX"},
		"beneficiary.dateOfBirth":                    {"1980-01-02"},
		"beneficiaryAccount.accountNumber":           {"12345678"},
		"beneficiaryAccount.paymentProvider.name":    {"Banco"},
		"beneficiaryAccount.paymentProvider.country": {"MX"},
		"beneficiaryAccount.paymentProvider.swift":   {"BANCMXMM"},
		"metadata.remittance.withdrawalMethod":       {"BankDeposit"},
		"metadata.remittance.countryCorridor":        {"MX"},
		"metadata.remittance.accountLastFour":        {"5678"},
	}
}

func TestCapture(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{MoneyTransfer: true}))
	ms := srv.Merchants()
	plain, mt := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	_, auth := mt.authorize(transferData("mt-1"), bankpaytest.OutcomeAuthorize)
	id := auth.TransactionID

	var env models.TransactionEnvelope
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-1", "200.00")).wantOK(t, &env)
	c := env.Transaction
	if c.TransactionType != models.TypeCapture || c.Status != models.StatusAuthorized || c.OriginalTransactionID != id ||
		c.Amount != "200.00" || c.MerchantReference != "cap-1" || len(c.TransactionID) != 15 {
		t.Fatalf("capture %+v", c)
	}
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-1", "1.00")).wantError(t, 400, 210)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-2", "300.01")).wantError(t, 400, 200)
	mt.postForm("/transactions/"+id+"/capture", captureForm("cap-3", "300.00")).wantOK(t, nil)

	t.Run("merchant not configured for money transfer", func(t *testing.T) {
		_, a := plain.authorize(transferData("plain-1"), bankpaytest.OutcomeAuthorize)
		plain.postForm("/transactions/"+a.TransactionID+"/capture", captureForm("p", "1.00")).wantError(t, 400, 200)
	})
	t.Run("missing fields", func(t *testing.T) {
		_, a := mt.authorize(transferData("mt-2"), bankpaytest.OutcomeAuthorize)
		for _, field := range []string{"merchantReference", "amount", "beneficiary.name", "beneficiary.address.country"} {
			f := captureForm("m-"+field, "1.00")
			f.Del(field)
			t.Run(field, func(t *testing.T) {
				mt.postForm("/transactions/"+a.TransactionID+"/capture", f).wantError(t, 400, 200)
			})
		}
		for field, bad := range map[string]string{
			"amount":                               "1",
			"beneficiary.address.country":          "Mexico",
			"metadata.remittance.withdrawalMethod": "Pigeon",
			"metadata.remittance.countryCorridor":  "mx",
			"metadata.remittance.accountLastFour":  "12345",
		} {
			f := captureForm("bad-"+field, "1.00")
			f.Set(field, bad)
			t.Run("invalid "+field, func(t *testing.T) {
				mt.postForm("/transactions/"+a.TransactionID+"/capture", f).wantError(t, 400, 200)
			})
		}
	})
	t.Run("customer fields required", func(t *testing.T) {
		noAddress := transferData("mt-3")
		noAddress.Customer.Address.City = ""
		_, a := mt.authorize(noAddress, bankpaytest.OutcomeAuthorize)
		mt.postForm("/transactions/"+a.TransactionID+"/capture", captureForm("c1", "1.00")).wantError(t, 400, 200)
		noCustomer := uiData("mt-4", models.PaymentTypeDeferred, "5.00")
		_, b := mt.authorize(noCustomer, bankpaytest.OutcomeAuthorize)
		mt.postForm("/transactions/"+b.TransactionID+"/capture", captureForm("c2", "1.00")).wantError(t, 400, 200)
	})
	t.Run("authorization kinds", func(t *testing.T) {
		_, canceled := mt.authorize(transferData("mt-5"), bankpaytest.OutcomeCancel)
		mt.postForm("/transactions/"+canceled.TransactionID+"/capture", captureForm("k1", "1.00")).wantError(t, 400, 200)
		mt.postForm("/transactions/100000000999999/capture", captureForm("k2", "1.00")).wantError(t, 404, 200)
		mt.postJSON("/transactions/"+id+"/capture", map[string]string{"merchantReference": "k3"}).wantError(t, 400, 200)
	})
}
