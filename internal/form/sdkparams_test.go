package form_test

import (
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// FuzzBodyOfSDKParams checks the planned encoding of the SDK's form params
// (deposit, capture and preauthorization, every field, some parts nil)
// against go-querystring.
func FuzzBodyOfSDKParams(f *testing.F) {
	f.Add("ref-1", "10.00", "Jane Doe", "1 Main St", "US", "DE89 3704", "BankDeposit", uint8(0))
	f.Add("r&f=1", "", "", "", "", "", "", uint8(255))
	f.Add("é%+ ", "0.00", "a[b]", "x.y", "", "?", "#", uint8(0x55))
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h string, mask uint8) {
		on := func(bit uint) bool { return mask&(1<<bit) == 0 }
		dp := &bankpay.DepositParams{MerchantReference: a, Amount: models.Amount(b), InstantPayoutRequest: on(0), AuthorizationAmount: models.Amount(c), ExternalTier: h}
		cp := &bankpay.CaptureParams{MerchantReference: a, Amount: models.Amount(b)}
		if on(7) {
			cp.SplitToken, cp.InteractionID = g, h
		}
		pp := &bankpay.PreauthorizeParams{MerchantReference: a, Amount: models.Amount(b), Period: int(mask % 8),
			SplitToken: c, ExternalTier: d, WithdrawalMethod: h, InteractionID: e}
		if on(1) {
			cp.Beneficiary = &models.Beneficiary{Name: c, DateOfBirth: h, TaxID: g}
			if on(2) {
				cp.Beneficiary.Address = &models.Address{Address1: d, Address2: g, City: h, State: e, Zip: a, Country: e}
			}
		}
		if on(3) {
			cp.BeneficiaryAccount = &models.BeneficiaryAccount{AccountNumber: a, IBAN: g}
			if on(4) {
				cp.BeneficiaryAccount.PaymentProvider = &models.PaymentProvider{PaymentProviderID: h, Type: 1,
					InstantPayoutAvailable: true, Name: c, Country: e, Swift: g, RoutingNumber: d}
			}
		}
		if on(5) {
			cp.Remittance = &models.Remittance{}
			if on(6) {
				cp.Remittance = &models.Remittance{WithdrawalMethod: h, CountryCorridor: e, AccountLastFour: d}
			}
		}
		for _, v := range []any{dp, cp, pp} {
			require.True(t, form.Planned(v), "%T is not planned", v)
			got, err := form.Body(v)
			require.NoError(t, err)
			vals, err := form.Values(v)
			require.NoError(t, err)
			want := vals.Encode()
			require.Equal(t, want, string(got), "Body(%T)\n got  %s\n want %s", v, got, want)
		}
	})
}
