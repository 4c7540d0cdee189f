package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// specAccount is a row of the spec's sandbox account table, written here from
// the spec, independently of bankpaytest's table.
type specAccount struct {
	number   string
	score    int
	third    int // -1: none
	verified bool
	kind     string
}

var specAccounts = []specAccount{
	// 1000000000 to 1000000010: the last two digits are the score, no
	// third-party score, verified from 6.
	{"1000000000", 0, -1, false, "non third-party"},
	{"1000000001", 1, -1, false, "non third-party"},
	{"1000000002", 2, -1, false, "non third-party"},
	{"1000000003", 3, -1, false, "non third-party"},
	{"1000000004", 4, -1, false, "non third-party"},
	{"1000000005", 5, -1, false, "non third-party"},
	{"1000000006", 6, -1, true, "non third-party"},
	{"1000000007", 7, -1, true, "non third-party"},
	{"1000000008", 8, -1, true, "non third-party"},
	{"1000000009", 9, -1, true, "non third-party"},
	{"1000000010", 10, -1, true, "non third-party"},
	// FCRA: 1000001000 to 1000001900 in steps of 100, and 1000001999;
	// scores 0 to 10, third-party 0 to 900 and 999, verified from 600.
	{"1000001000", 0, 0, false, "FCRA"},
	{"1000001100", 1, 100, false, "FCRA"},
	{"1000001200", 2, 200, false, "FCRA"},
	{"1000001300", 3, 300, false, "FCRA"},
	{"1000001400", 4, 400, false, "FCRA"},
	{"1000001500", 5, 500, false, "FCRA"},
	{"1000001600", 6, 600, true, "FCRA"},
	{"1000001700", 7, 700, true, "FCRA"},
	{"1000001800", 8, 800, true, "FCRA"},
	{"1000001900", 9, 900, true, "FCRA"},
	{"1000001999", 10, 999, true, "FCRA"},
	// Non-FCRA: score 1, third-party 15 to 45, verified from 35.
	{"1000001015", 1, 15, false, "Non-FCRA"},
	{"1000001020", 1, 20, false, "Non-FCRA"},
	{"1000001025", 1, 25, false, "Non-FCRA"},
	{"1000001035", 1, 35, true, "Non-FCRA"},
	{"1000001045", 1, 45, true, "Non-FCRA"},
}

// specTriggers are the spec's tokenize error triggers.
var specTriggers = []struct {
	number       string
	status, code int
	sentinel     error
}{
	{"1002000000", 400, 200, bankpay.ErrBadRequest},
	{"1003000000", 401, 300, bankpay.ErrUnauthorized},
	{"1003250000", 401, 325, bankpay.ErrUnauthorized},
	{"1003750000", 401, 375, bankpay.ErrUnauthorized},
	{"1001000000", 500, 100, bankpay.ErrServer},
}

// TestSandboxTablesMatchSpec compares the sandbox's account and trigger
// tables with the spec's; it starts no sandbox, so it has no response shape.
func TestSandboxTablesMatchSpec(t *testing.T) {
	got := map[string]bankpaytest.SandboxAccount{}
	for _, a := range bankpaytest.SandboxAccounts() {
		_, dup := got[a.AccountNumber]
		assert.True(t, !dup, "account %s twice in the sandbox table", a.AccountNumber)
		got[a.AccountNumber] = a
	}
	assert.Len(t, got, len(specAccounts))
	for _, want := range specAccounts {
		a, ok := got[want.number]
		if !assert.True(t, ok, "sandbox table lacks %s", want.number) {
			continue
		}
		assert.Equal(t, want.score, a.Score, want.number)
		assert.Equal(t, want.verified, a.Verified, want.number)
		assert.Equal(t, want.kind, a.ScoreType, want.number)
		if want.third < 0 {
			assert.Nil(t, a.ThirdPartyScore, want.number)
		} else if assert.NotNil(t, a.ThirdPartyScore, want.number) {
			assert.Equal(t, want.third, *a.ThirdPartyScore, want.number)
		}
	}
	triggers := bankpaytest.ErrorTriggers()
	require.Len(t, triggers, len(specTriggers))
	for i, want := range specTriggers {
		assert.Equal(t, bankpaytest.ErrorTrigger{AccountNumber: want.number, Status: want.status, Code: want.code}, triggers[i])
	}
}

func TestTokenizeTable(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		start := s.Now()
		for _, row := range specAccounts {
			t.Run(row.number, func(t *testing.T) {
				tk, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{
					AccountNumber: row.number, RoutingNumber: "124003116", AccountType: 1, VerifyAccount: true,
				})
				require.NoError(t, err)
				a := tk.Account
				require.NotNil(t, a)
				if sh.bare {
					// The OpenAPI's answer: the account alone, its number's
					// last 4 digits.
					assert.Empty(t, tk.MerchantID)
					assert.Equal(t, row.number[len(row.number)-4:], a.AccountNumber)
				} else {
					assert.Equal(t, itCreds.MerchantID, tk.MerchantID)
					assert.Equal(t, row.number, a.AccountNumber, "the submitted data is echoed")
				}
				assert.Equal(t, "124003116", a.RoutingNumber)
				assert.Equal(t, 1, a.Type)
				assert.NotEmpty(t, a.Token)
				v := a.Verification
				require.NotNil(t, v)
				assert.Equal(t, row.verified, v.Verified)
				assert.Equal(t, 3, v.Type, "verification type 3 (Database)")
				require.NotNil(t, v.Score)
				assert.Equal(t, row.score, *v.Score)
				assert.True(t, *v.Score >= 0 && *v.Score <= 10)
				if row.third < 0 {
					assert.Nil(t, v.ThirdPartyScore)
				} else if assert.NotNil(t, v.ThirdPartyScore) {
					assert.Equal(t, row.third, *v.ThirdPartyScore)
				}
				assert.Equal(t, start, v.VerificationDate.Time())
			})
		}
	})
}

func TestTokenizeTokens(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		other := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000003", AccessKey: bankpay.NewSecret("other-key"), MerchantID: "1100000003"}}
		s := startSandbox(t, sh, bankpaytest.WithMerchant(other))
		ctx := context.Background()
		p := &bankpay.TokenizeParams{AccountNumber: "1000000007", RoutingNumber: "124003116",
			Customer: &models.Customer{ExternalID: "cust-7", Name: "Amara Okafor"}}
		first, err := s.client.Accounts.Tokenize(ctx, p)
		require.NoError(t, err)
		assert.Nil(t, first.Account.Verification, "no verification unless asked")
		if sh.bare {
			assert.Nil(t, first.Customer, "the OpenAPI's answer is the account alone")
		} else {
			require.NotNil(t, first.Customer)
			assert.Equal(t, "Amara Okafor", first.Customer.Name)
		}
		second, err := s.client.Accounts.Tokenize(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, first.Account.Token, second.Account.Token, "unique per merchant per account")
		p2 := *p
		p2.AccountNumber = "1000000008"
		third, err := s.client.Accounts.Tokenize(ctx, &p2)
		require.NoError(t, err)
		assert.NotEqual(t, first.Account.Token, third.Account.Token)
		oc := clientFor(t, s.Server, other.Credentials)
		theirs, err := oc.Accounts.Tokenize(ctx, p)
		require.NoError(t, err)
		assert.NotEqual(t, first.Account.Token, theirs.Account.Token, "another merchant gets another token")

		// Not a sandbox account: 400 with code 330 (invalid account).
		_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1234567", RoutingNumber: "124003116"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidAccount, bankpay.ErrBadRequest)
		// Refused by the SDK, nothing sent.
		_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000007"})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "account.routingNumber", ve.Field)
	})
}

func TestErrorTriggers(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		for _, tr := range specTriggers {
			t.Run(tr.number, func(t *testing.T) {
				for _, verify := range []bool{false, true} {
					_, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: tr.number, RoutingNumber: "124003116", VerifyAccount: verify})
					apiErr := requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
					assert.Equal(t, 1, apiErr.Attempts, "tokenize is not retried")
					assert.NotContains(t, err.Error(), tr.number, "errors never carry the account number")
				}
				// The Disbursement establish responds the same.
				_, err := s.client.Transactions.Establish(ctx, disbursementParams("trigger-"+tr.number, "", "10.00", tr.number))
				requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
			})
		}
	})
}
