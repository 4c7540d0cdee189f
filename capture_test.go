package bankpay

import (
	"context"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const captureResponseJSON = `{"transaction":{
  "transactionId":"1002600000009","transactionType":3,"originalTransactionId":"1002581234567",
  "payment":{"paymentId":"1002581234568","paymentType":1,"merchantId":"1002463580","amount":"250.00","currency":"USD"},
  "currency":"USD","amount":"250.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-88","status":1,"statusMessage":"Submitted"},
  "status":2,"statusMessage":"Authorized","createdAt":1700000900000,"merchantReference":"mt-2024-0001","recordVersion":1}}`

const capturePath = "/api/v1/transactions/1002581234567/capture"

// fullCaptureParams sets every capture field, and the service-filled fields
// of the payment provider, which must not be sent.
func fullCaptureParams() *CaptureParams {
	return &CaptureParams{
		MerchantReference: "mt-2024-0001",
		Amount:            "250.00",
		Beneficiary: &models.Beneficiary{
			Name: "Marie Curie", DateOfBirth: "1985-04-12", TaxID: "1234567890",
			Address: &models.Address{Address1: "12 Rue de Rivoli", Address2: "Apt 4", City: "Paris",
				State: "IDF", Zip: "75001", Country: "FR"},
		},
		BeneficiaryAccount: &models.BeneficiaryAccount{
			AccountNumber: "30004000031234567890189",
			IBAN:          "FR7630004000031234567890143",
			PaymentProvider: &models.PaymentProvider{
				PaymentProviderID: "not-sent", Type: 1, InstantPayoutAvailable: true,
				Name: "BNP Paribas", Country: "FR", Swift: "BNPAFRPP", RoutingNumber: "30004",
			},
		},
		Remittance: &models.Remittance{
			WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "FR", AccountLastFour: "0143"},
	}
}

// fullCaptureBody is the golden form of fullCaptureParams: every dotted
// field of the wire contract, sorted by name.
const fullCaptureBody = "amount=250.00" +
	"&beneficiary.address.address1=12+Rue+de+Rivoli" +
	"&beneficiary.address.address2=Apt+4" +
	"&beneficiary.address.city=Paris" +
	"&beneficiary.address.country=FR" +
	"&beneficiary.address.state=IDF" +
	"&beneficiary.address.zip=75001" +
	"&beneficiary.dateOfBirth=1985-04-12" +
	"&beneficiary.name=Marie+Curie" +
	"&beneficiary.taxId=1234567890" +
	"&beneficiaryAccount.accountNumber=30004000031234567890189" +
	"&beneficiaryAccount.iban=FR7630004000031234567890143" +
	"&beneficiaryAccount.paymentProvider.country=FR" +
	"&beneficiaryAccount.paymentProvider.name=BNP+Paribas" +
	"&beneficiaryAccount.paymentProvider.routingNumber=30004" +
	"&beneficiaryAccount.paymentProvider.swift=BNPAFRPP" +
	"&merchantReference=mt-2024-0001" +
	"&metadata.remittance.accountLastFour=0143" +
	"&metadata.remittance.countryCorridor=FR" +
	"&metadata.remittance.withdrawalMethod=BankDeposit"

func TestTransactions_Capture(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: capturePath,
		ContentType: "application/x-www-form-urlencoded", Body: fullCaptureBody}, 200, captureResponseJSON)

	txn, err := c.Transactions.Capture(context.Background(), "1002581234567", fullCaptureParams())
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "1002600000009", txn.TransactionID, "decoded %+v", txn)
	assert.Equal(t, models.TypeCapture, txn.TransactionType, "decoded %+v", txn)
	assert.Equal(t, models.StatusAuthorized, txn.Status, "decoded %+v", txn)
	assert.Equal(t, "1002581234567", txn.OriginalTransactionID, "decoded %+v", txn)
	assert.Equal(t, models.Amount("250.00"), txn.Amount, "fields %+v", txn)
	assert.Equal(t, "mt-2024-0001", txn.MerchantReference, "fields %+v", txn)
	assert.Equal(t, models.PaymentTypeInstant, txn.Payment.PaymentType, "fields %+v", txn)
}

// minimalBeneficiary has only the beneficiary fields a capture requires.
func minimalBeneficiary() *models.Beneficiary {
	return &models.Beneficiary{Name: "Ana Ruiz", Address: &models.Address{Country: "MX"}}
}

func TestTransactions_CaptureMinimal(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: capturePath,
		ContentType: "application/x-www-form-urlencoded",
		Body:        "amount=5.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz&merchantReference=mt-2"}, 200, captureResponseJSON)
	p := &CaptureParams{MerchantReference: "mt-2", Amount: "5.00", Beneficiary: minimalBeneficiary(),
		BeneficiaryAccount: &models.BeneficiaryAccount{}}
	_, err := c.Transactions.Capture(context.Background(), "1002581234567", p)
	require.NoError(t, err)
}

func TestTransactions_CaptureRejects(t *testing.T) {
	with := func(f func(*CaptureParams)) *CaptureParams {
		p := fullCaptureParams()
		f(p)
		return p
	}
	for _, tc := range []struct {
		name  string
		id    string
		p     *CaptureParams
		field string
	}{
		{"empty id", "", fullCaptureParams(), "transactionId"},
		{"control character in id", "1\r\n", fullCaptureParams(), "transactionId"},
		{"nil params", "1", nil, "captureParams"},
		{"no merchantReference", "1", with(func(p *CaptureParams) { p.MerchantReference = "" }), "merchantReference"},
		{"no amount", "1", with(func(p *CaptureParams) { p.Amount = "" }), "amount"},
		{"amount without places", "1", with(func(p *CaptureParams) { p.Amount = "250" }), "amount"},
		{"amount three places", "1", with(func(p *CaptureParams) { p.Amount = "2.500" }), "amount"},
		{"amount zero", "1", with(func(p *CaptureParams) { p.Amount = "0.00" }), "amount"},
		{"amount negative", "1", with(func(p *CaptureParams) { p.Amount = "-1.00" }), "amount"},
		{"no beneficiary", "1", with(func(p *CaptureParams) { p.Beneficiary = nil }), "beneficiary.name"},
		{"only a beneficiary account", "1", &CaptureParams{MerchantReference: "r", Amount: "1.00",
			BeneficiaryAccount: &models.BeneficiaryAccount{IBAN: "FR7630004000031234567890143"}}, "beneficiary.name"},
		{"empty beneficiary", "1", with(func(p *CaptureParams) { p.Beneficiary = &models.Beneficiary{} }), "beneficiary.name"},
		{"beneficiary without name", "1", with(func(p *CaptureParams) { p.Beneficiary.Name = "" }), "beneficiary.name"},
		{"beneficiary without address", "1", with(func(p *CaptureParams) { p.Beneficiary.Address = nil }), "beneficiary.address.country"},
		{"beneficiary without country", "1", with(func(p *CaptureParams) { p.Beneficiary.Address.Country = "" }), "beneficiary.address.country"},
		{"withdrawalMethod unknown", "1", with(func(p *CaptureParams) { p.Remittance.WithdrawalMethod = "Wire" }), "metadata.remittance.withdrawalMethod"},
		{"withdrawalMethod wrong case", "1", with(func(p *CaptureParams) { p.Remittance.WithdrawalMethod = "bankdeposit" }), "metadata.remittance.withdrawalMethod"},
		{"countryCorridor three letters", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "FRA" }), "metadata.remittance.countryCorridor"},
		{"countryCorridor lower case", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "fr" }), "metadata.remittance.countryCorridor"},
		{"countryCorridor mixed case", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "Fr" }), "metadata.remittance.countryCorridor"},
		{"countryCorridor non-ASCII", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "É" }), "metadata.remittance.countryCorridor"},
		{"countryCorridor one letter", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "F" }), "metadata.remittance.countryCorridor"},
		{"countryCorridor digit", "1", with(func(p *CaptureParams) { p.Remittance.CountryCorridor = "F1" }), "metadata.remittance.countryCorridor"},
		{"accountLastFour three digits", "1", with(func(p *CaptureParams) { p.Remittance.AccountLastFour = "143" }), "metadata.remittance.accountLastFour"},
		{"accountLastFour five digits", "1", with(func(p *CaptureParams) { p.Remittance.AccountLastFour = "01434" }), "metadata.remittance.accountLastFour"},
		{"accountLastFour letter", "1", with(func(p *CaptureParams) { p.Remittance.AccountLastFour = "01a3" }), "metadata.remittance.accountLastFour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Capture(context.Background(), tc.id, tc.p)
				return err
			})
		})
	}
}

func TestTransactions_CaptureAcceptsEveryWithdrawalMethod(t *testing.T) {
	for _, m := range []string{models.WithdrawalBankDeposit, models.WithdrawalCash, models.WithdrawalDebitCard,
		models.WithdrawalDigitalWallet, models.WithdrawalHomeDelivery} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "POST", Path: capturePath, ContentType: "application/x-www-form-urlencoded",
			Body: "amount=1.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz&merchantReference=mt-3" +
				"&metadata.remittance.withdrawalMethod=" + m}, 200, captureResponseJSON)
		p := &CaptureParams{MerchantReference: "mt-3", Amount: "1.00", Beneficiary: minimalBeneficiary(),
			Remittance: &models.Remittance{WithdrawalMethod: m}}
		_, err := c.Transactions.Capture(context.Background(), "1002581234567", p)
		assert.NoError(t, err, "%s: %v", m, err)
	}
}

func TestTransactions_CaptureErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: capturePath,
		ContentType: "application/x-www-form-urlencoded", Body: fullCaptureBody},
		func(c *Client) error {
			_, err := c.Transactions.Capture(context.Background(), "1002581234567", fullCaptureParams())
			return err
		})
}

func TestTransactions_CaptureZeroAmountReason(t *testing.T) {
	p := fullCaptureParams()
	p.Amount = "0.00"
	ve, ok := p.validate().(*ValidationError)
	require.True(t, ok, "err = %v", p.validate())
	require.Equal(t, "amount", ve.Field, "err = %v", p.validate())
	require.Equal(t, "must be greater than 0.00", ve.Reason, "err = %v", p.validate())
	p.Amount = "0.01"
	err := p.validate()
	require.NoError(t, err, "0.01: %v", err)
}

// A Pay capture: the split token of the Authorize event instead of a
// beneficiary, escaped by the form encoding.
func TestTransactions_CapturePay(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: capturePath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=25.00&interactionId=consumerNotPresent&merchantReference=pay-1&splitToken=c3Bs%2BdG9r%2FZW4%3D"}, 200, captureResponseJSON)
	txn, err := c.Transactions.Capture(context.Background(), "1002581234567", &CaptureParams{
		MerchantReference: "pay-1", Amount: "25.00", SplitToken: "c3Bs+dG9r/ZW4=", InteractionID: "consumerNotPresent"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, models.TypeCapture, txn.TransactionType)

	// A split token with a money transfer's fields sends both.
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: capturePath, ContentType: "application/x-www-form-urlencoded",
		Body: "amount=5.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz&merchantReference=mt-9&splitToken=t"}, 200, captureResponseJSON)
	_, err = c.Transactions.Capture(context.Background(), "1002581234567", &CaptureParams{
		MerchantReference: "mt-9", Amount: "5.00", SplitToken: "t", Beneficiary: minimalBeneficiary()})
	require.NoError(t, err)
}

func TestTransactions_CapturePayRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *CaptureParams
		field string
	}{
		{"neither split token nor beneficiary", &CaptureParams{MerchantReference: "p", Amount: "1.00"}, "beneficiary.name"},
		{"split token, no reference", &CaptureParams{Amount: "1.00", SplitToken: "t"}, "merchantReference"},
		{"split token, no amount", &CaptureParams{MerchantReference: "p", SplitToken: "t"}, "amount"},
		{"split token, amount over 10 characters", &CaptureParams{MerchantReference: "p", Amount: "10000000.00", SplitToken: "t"}, "amount"},
		{"split token, beneficiary without country", &CaptureParams{MerchantReference: "p", Amount: "1.00", SplitToken: "t",
			Beneficiary: &models.Beneficiary{Name: "Ana Ruiz"}}, "beneficiary.address.country"},
		{"money transfer, amount over 10 characters", &CaptureParams{MerchantReference: "p", Amount: "10000000.00",
			Beneficiary: minimalBeneficiary()}, "amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Capture(context.Background(), "1002581234567", tc.p)
				return err
			})
		})
	}
}

// A capture with neither a split token nor a beneficiary names both ways
// out: a beneficiary for a money transfer, or splitToken for a payment.
func TestCaptureNeitherTokenNorBeneficiaryReason(t *testing.T) {
	c, _, _ := newTestClient(t)
	_, err := c.Transactions.Capture(context.Background(), "A1", &CaptureParams{MerchantReference: "p", Amount: "1.00"})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "beneficiary.name", ve.Field)
	assert.Contains(t, ve.Reason, "money transfer")
	assert.Contains(t, ve.Reason, "splitToken")
}
