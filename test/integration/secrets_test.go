package integration

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/models"
)

// Personal data of the secrets flow: none of it may appear in a log line
// the SDK writes or in an error string.
var (
	secretAccounts = []string{bankpaytest.AccountVerified, "1002000000", "1003750000", "1001000000", "987654321012", "1000000006"}
	secretTaxIDs   = []string{"123-45-6789", "123456789", "987-65-4321", "987654321"}
	secretDOBs     = []string{"1990-01-02", "1985-12-31"}
	secretLicences = []string{"D12345678"}
	secretIBAN     = "DE89370400440532013000"
)

// TestSecretsNeverLoggedNorInErrors runs a full flow against the bankpaytest
// sandbox with a debug logger, collects every log line and every error
// string, and asserts that no secret or personal value shows up in them:
// the access key, full account numbers, the routing number, tax ids, dates
// of birth, driver licence numbers and IBANs.
func TestSecretsNeverLoggedNorInErrors(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		sb := bankpaytest.NewServer(sh.options(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))...)
		defer sb.Close()
		creds := sb.Credentials()

		var out syncBuffer
		text := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
		jsonLog := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(sb.URL), bankpay.WithLogger(text), bankpay.WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		require.NoError(t, err)
		defer func() { _ = c.Close() }()
		ctx := context.Background()

		var errs []error
		expectErr := func(step string, err error, target error) {
			t.Helper()
			if assert.Error(t, err, "%s: err = %v, want %v", step, err, target) && target != nil {
				assert.ErrorIs(t, err, target, "%s: err = %v, want %v", step, err, target)
			}
			errs = append(errs, err)
		}
		must := func(step string, err error) {
			t.Helper()
			require.NoError(t, err, "%s: %v", step, err)
		}
		customer := &models.Customer{
			Name: "Jane Doe", ExternalID: "ext-secret-1", TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0],
			DriverLicense: &models.DriverLicense{Number: secretLicences[0], State: "TX"},
			Address:       &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "78701", Country: "US"},
			Email:         "jane@example.com", Phone: "5125550100",
		}
		establish := func(ref, account string) (*models.Transaction, error) {
			return c.Transactions.Establish(ctx, &models.EstablishData{
				PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: ref,
				Description: "payout", Customer: customer,
				Account: &models.Account{AccountNumber: account, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe", Type: 1},
			})
		}

		// Disbursement: establish, read, deposit, deposit again.
		txn, err := establish("sec-est-1", bankpaytest.AccountVerified)
		must("establish", err)
		_, err = c.Transactions.Get(ctx, txn.TransactionID)
		must("get", err)
		_, err = c.Transactions.Deposit(ctx, txn.TransactionID, &bankpay.DepositParams{MerchantReference: "sec-dep-1", Amount: "10.00"})
		must("deposit", err)
		_, err = c.Transactions.Deposit(ctx, txn.TransactionID, &bankpay.DepositParams{MerchantReference: "sec-dep-1", Amount: "10.00"})
		expectErr("deposit again", err, bankpay.ErrDuplicate)
		_, err = c.Transactions.Get(ctx, "100000000000404")
		expectErr("get unknown", err, bankpay.ErrNotFound)
		for _, tc := range []struct {
			account string
			target  error
		}{{"1002000000", bankpay.ErrBadRequest}, {"1003750000", bankpay.ErrUnauthorized}, {"1001000000", bankpay.ErrServer}} {
			_, err = establish("sec-est-"+tc.account, tc.account)
			expectErr("establish trigger", err, tc.target)
			_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: tc.account, RoutingNumber: bankpaytest.SandboxRoutingNumber, Customer: customer})
			expectErr("tokenize trigger", err, tc.target)
		}
		_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, VerifyAccount: true, Customer: customer})
		must("tokenize", err)

		// A Deferred authorization with identity verification: identity reads
		// before and after the data, feedback, a money transfer capture.
		d := models.EstablishData{
			PaymentType: models.PaymentTypeDeferred, Currency: models.USD, Amount: "100.00", MerchantReference: "sec-def-1",
			ReturnURL: "https://merchant.example/return", CancelURL: "https://merchant.example/cancel",
			KYCType: models.KYCTypeIdentity, Customer: customer, Description: "kyc",
		}
		must("sign", c.SignEstablishData(&d))
		_, auth, err := sb.Authorize(d, bankpaytest.OutcomeEligible)
		must("authorize", err)
		_, err = c.Identity.User(ctx, auth.TransactionID)
		expectErr("identity user too early", err, bankpay.ErrIdentityNotReady)
		_, err = c.Identity.Detail(ctx, auth.TransactionID)
		expectErr("identity detail too early", err, bankpay.ErrIdentityNotReady)
		sb.Advance(5 * bankpaytest.IdentityStep)
		_, err = c.Identity.User(ctx, auth.TransactionID)
		must("identity user", err)
		_, err = c.Identity.Detail(ctx, auth.TransactionID)
		must("identity detail", err)
		must("register", c.Identity.Register(ctx, auth.TransactionID, "registered Jane Doe, tax id on file"))
		capture := &bankpay.CaptureParams{MerchantReference: "sec-cap-1", Amount: "25.00",
			Beneficiary: &models.Beneficiary{Name: "John Roe", TaxID: secretTaxIDs[2], DateOfBirth: secretDOBs[1],
				Address: &models.Address{Address1: "2 Calle", City: "CDMX", Country: "MX"}},
			BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: "987654321012", IBAN: secretIBAN,
				PaymentProvider: &models.PaymentProvider{Name: "Banco", Country: "MX", RoutingNumber: bankpaytest.SandboxRoutingNumber}},
			Remittance: &models.Remittance{WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "MX", AccountLastFour: "1012"},
		}
		_, err = c.Transactions.Capture(ctx, auth.TransactionID, capture)
		must("capture", err)
		_, err = c.Transactions.Capture(ctx, auth.TransactionID, capture)
		expectErr("capture again", err, bankpay.ErrDuplicate)

		// A Retrieval: the account data reads.
		r := models.EstablishData{PaymentType: models.PaymentTypeRetrieval, Currency: models.USD, Amount: "0.00", MerchantReference: "sec-ret-1", Customer: customer,
			ReturnURL: "https://merchant.example/return", CancelURL: "https://merchant.example/cancel"}
		must("sign", c.SignEstablishData(&r))
		_, ret, err := sb.Authorize(r, bankpaytest.OutcomeAuthorize)
		must("authorize retrieval", err)
		_, err = c.Accounts.Balance(ctx, ret.TransactionID)
		must("balance", err)
		_, err = c.Accounts.User(ctx, ret.TransactionID)
		must("bank user", err)
		_, err = c.Accounts.Summary(ctx, ret.TransactionID)
		must("summary", err)

		// Customers, with personal data in the body.
		_, err = c.Customers.UpdateByExternalID(ctx, "ext-secret-1", &bankpay.CustomerParams{Name: "Jane Doe", VIP: intPtr(2), TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0]})
		must("customer update", err)
		_, err = c.Customers.Update(ctx, "no-such-customer", &bankpay.CustomerParams{Name: "Jane Doe", TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0]})
		expectErr("customer update unknown", err, nil)

		// Input rejected before sending.
		_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000O10", RoutingNumber: bankpaytest.SandboxRoutingNumber})
		expectErr("tokenize letter", err, nil)
		assert.True(t, isValidation(errs[len(errs)-1]), "want a *ValidationError, got %v", errs[len(errs)-1])
		_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: "12400311"})
		expectErr("tokenize short routing", err, nil)
		assert.True(t, isValidation(errs[len(errs)-1]), "want a *ValidationError, got %v", errs[len(errs)-1])
		_, err = establish("", "1000000006")
		expectErr("establish without reference", err, nil)

		// A wrong key, and no network at all.
		bad, err := bankpay.NewClient(bankpay.Credentials{AccessID: creds.AccessID, AccessKey: bankpay.NewSecret("wrong-key-s3cr3t"), MerchantID: creds.MerchantID},
			bankpay.WithBaseURL(sb.URL), bankpay.WithLogger(text))
		must("client", err)
		_, err = bad.Transactions.Get(ctx, txn.TransactionID)
		expectErr("wrong key", err, bankpay.ErrUnauthorized)
		_ = bad.Close()
		off, err := bankpay.NewClient(creds, bankpay.WithBaseURL(faultinject.RefusedURL+"/api/v1"), bankpay.WithLogger(text), bankpay.WithMaxRetries(1),
			bankpay.WithRetryBackoff(time.Millisecond, time.Millisecond))
		must("client", err)
		_, err = off.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber})
		expectErr("refused", err, nil)

		// The caller logs what it has: credentials, params, errors.
		for _, l := range []*slog.Logger{text, jsonLog} {
			l.Info("credentials", "creds", creds, "client", c)
			for _, e := range errs {
				l.Error("call failed", "err", e)
			}
		}
		fmt.Fprintf(&out, "%v %+v %#v %s\n", creds, creds, creds, creds)
		fmt.Fprintf(&out, "%v %+v\n", c, c)

		logs := out.String()
		sdkLines, debugLines := strings.Count(logs, `msg="bankpay: `), strings.Count(logs, `level=DEBUG msg="bankpay: response"`)
		assert.GreaterOrEqual(t, sdkLines, 25, "only %d SDK log lines (%d at debug level): is the debug logger on?\n%s", sdkLines, debugLines, logs)
		assert.GreaterOrEqual(t, debugLines, 10, "only %d SDK log lines (%d at debug level): is the debug logger on?\n%s", sdkLines, debugLines, logs)
		var everything strings.Builder
		everything.WriteString(logs)
		for _, e := range errs {
			everything.WriteString(e.Error())
			everything.WriteByte('\n')
		}
		all := everything.String()
		secrets := append([]string{creds.AccessKey.Reveal(), "wrong-key-s3cr3t", bankpaytest.SandboxRoutingNumber, secretIBAN}, secretAccounts...)
		secrets = append(append(append(secrets, secretTaxIDs...), secretDOBs...), secretLicences...)
		for _, s := range secrets {
			if i := strings.Index(all, s); i >= 0 {
				lo, hi := max(0, i-120), min(len(all), i+len(s)+60)
				assert.Failf(t, "secret appears", "secret %q appears: …%s…", s, all[lo:hi])
			}
		}
	})
}

// TestSecretsStayOutOfErrorsOnLoopback echoes the request back as the
// error message, the worst a server (or a proxy) can do, and checks that
// the error the caller gets has the personal data masked.
func TestSecretsStayOutOfErrorsOnLoopback(t *testing.T) {
	s := faultinject.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		body := make([]byte, 4096)
		n, _ := r.Body.Read(body)
		msg := strings.NewReplacer(`"`, `'`, `\`, `/`).Replace(string(body[:n]))
		fmt.Fprintf(w, `{"errors":[{"code":200,"message":"invalid request: %s","location":"%s"}]}`, msg, msg)
	}))
	defer s.Close()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	var out syncBuffer
	c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(s.URL+"/api/v1"), bankpay.WithHTTPClient(&http.Client{Transport: tr}),
		bankpay.WithLogger(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	ctx := context.Background()
	var errs []string
	_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber,
		Customer: &models.Customer{TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0], DriverLicense: &models.DriverLicense{Number: secretLicences[0]}}})
	errs = append(errs, fmt.Sprint(err), fmt.Sprintf("%+v", err))
	_, err = c.Customers.Update(ctx, "c-1", &bankpay.CustomerParams{TaxID: secretTaxIDs[2], DateOfBirth: secretDOBs[1]})
	errs = append(errs, fmt.Sprint(err))
	// The same data as people write it: spaces and slashes between groups.
	_, err = c.Customers.Update(ctx, "c-2", &bankpay.CustomerParams{TaxID: "123 45 6789", DateOfBirth: "02/01/1990", Phone: "1000 0000 10"})
	errs = append(errs, fmt.Sprint(err))
	_, err = c.Transactions.Capture(ctx, "1", &bankpay.CaptureParams{MerchantReference: "r", Amount: "1.00",
		Beneficiary:        &models.Beneficiary{Name: "B", Address: &models.Address{Country: "MX"}},
		BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: "987654321012", IBAN: secretIBAN}})
	errs = append(errs, fmt.Sprint(err))
	var ae *bankpay.APIError
	if errors.As(err, &ae) {
		for _, it := range ae.Errors {
			errs = append(errs, it.Message, it.Location)
		}
	}
	all := strings.Join(errs, "\n") + out.String()
	require.Equal(t, 4, s.Requests(), "requests %d, errors:\n%s", s.Requests(), all)
	require.Contains(t, all, "invalid request", "requests %d, errors:\n%s", s.Requests(), all)
	for _, secret := range append(append(append([]string{testCreds.AccessKey.Reveal(), bankpaytest.SandboxRoutingNumber, "987654321012", bankpaytest.AccountVerified,
		"45 6789", "01/1990", "0000 10"},
		secretTaxIDs...), secretDOBs...), secretLicences...) {
		assert.NotContains(t, all, secret, "secret %q in:\n%s", secret, all)
	}
	// An IBAN mixes letters and digits: its digit run is masked.
	assert.NotContains(t, all, secretIBAN, "IBAN %s shows whole", secretIBAN)
}

// isValidation reports whether err is a *bankpay.ValidationError.
func isValidation(err error) bool {
	var ve *bankpay.ValidationError
	return errors.As(err, &ve)
}
