package bankpay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

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

// syncBuffer is a bytes.Buffer safe for the concurrent writes of slog.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretsNeverLoggedNorInErrors runs a full flow against the bankpaytest
// sandbox with a debug logger, collects every log line and every error
// string, and asserts that no secret or personal value shows up in them:
// the access key, full account numbers, the routing number, tax ids, dates
// of birth, driver licence numbers and IBANs.
func TestSecretsNeverLoggedNorInErrors(t *testing.T) {
	sb := bankpaytest.NewServer(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{VIP: true, MoneyTransfer: true}))
	defer sb.Close()
	sc := sb.Credentials()
	creds := Credentials{AccessID: sc.AccessID, AccessKey: NewSecret(sc.AccessKey), MerchantID: sc.MerchantID}

	var out syncBuffer
	text := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	jsonLog := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(creds, WithBaseURL(sb.URL), WithLogger(text), WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	ctx := context.Background()

	var errs []error
	expectErr := func(step string, err error, target error) {
		t.Helper()
		if err == nil || (target != nil && !errors.Is(err, target)) {
			t.Errorf("%s: err = %v, want %v", step, err, target)
		}
		errs = append(errs, err)
	}
	must := func(step string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
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
	_, err = c.Transactions.Deposit(ctx, txn.TransactionID, &DepositParams{MerchantReference: "sec-dep-1", Amount: "10.00"})
	must("deposit", err)
	_, err = c.Transactions.Deposit(ctx, txn.TransactionID, &DepositParams{MerchantReference: "sec-dep-1", Amount: "10.00"})
	expectErr("deposit again", err, ErrDuplicate)
	_, err = c.Transactions.Get(ctx, "100000000000404")
	expectErr("get unknown", err, ErrNotFound)
	for _, tc := range []struct {
		account string
		target  error
	}{{"1002000000", ErrBadRequest}, {"1003750000", ErrUnauthorized}, {"1001000000", ErrServer}} {
		_, err = establish("sec-est-"+tc.account, tc.account)
		expectErr("establish trigger", err, tc.target)
		_, err = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: tc.account, RoutingNumber: bankpaytest.SandboxRoutingNumber, Customer: customer})
		expectErr("tokenize trigger", err, tc.target)
	}
	_, err = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, VerifyAccount: true, Customer: customer})
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
	expectErr("identity user too early", err, ErrIdentityNotReady)
	_, err = c.Identity.Detail(ctx, auth.TransactionID)
	expectErr("identity detail too early", err, ErrIdentityNotReady)
	sb.Advance(5 * bankpaytest.IdentityStep)
	_, err = c.Identity.User(ctx, auth.TransactionID)
	must("identity user", err)
	_, err = c.Identity.Detail(ctx, auth.TransactionID)
	must("identity detail", err)
	must("register", c.Identity.Register(ctx, auth.TransactionID, "registered Jane Doe, tax id on file"))
	capture := &CaptureParams{MerchantReference: "sec-cap-1", Amount: "25.00",
		Beneficiary: &models.Beneficiary{Name: "John Roe", TaxID: secretTaxIDs[2], DateOfBirth: secretDOBs[1],
			Address: &models.Address{Address1: "2 Calle", City: "CDMX", Country: "MX"}},
		BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: "987654321012", IBAN: secretIBAN,
			PaymentProvider: &models.PaymentProvider{Name: "Banco", Country: "MX", RoutingNumber: bankpaytest.SandboxRoutingNumber}},
		Metadata: &CaptureMetadata{Remittance: &models.Remittance{WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "MX", AccountLastFour: "1012"}},
	}
	_, err = c.Transactions.Capture(ctx, auth.TransactionID, capture)
	must("capture", err)
	_, err = c.Transactions.Capture(ctx, auth.TransactionID, capture)
	expectErr("capture again", err, ErrDuplicate)

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
	_, err = c.Customers.UpdateByExternalID(ctx, "ext-secret-1", &CustomerUpdateParams{Name: "Jane Doe", VIP: intPtr(2), TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0]})
	must("customer update", err)
	_, err = c.Customers.Update(ctx, "no-such-customer", &CustomerUpdateParams{Name: "Jane Doe", TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0]})
	expectErr("customer update unknown", err, nil)

	// Input rejected before sending.
	_, err = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "1000000O10", RoutingNumber: bankpaytest.SandboxRoutingNumber})
	expectErr("tokenize letter", err, nil)
	if !isValidation(errs[len(errs)-1]) {
		t.Errorf("want a *ValidationError, got %v", errs[len(errs)-1])
	}
	_, err = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: "12400311"})
	expectErr("tokenize short routing", err, nil)
	if !isValidation(errs[len(errs)-1]) {
		t.Errorf("want a *ValidationError, got %v", errs[len(errs)-1])
	}
	_, err = establish("", "1000000006")
	expectErr("establish without reference", err, nil)

	// A wrong key, and no network at all.
	bad, err := NewClient(Credentials{AccessID: sc.AccessID, AccessKey: NewSecret("wrong-key-s3cr3t"), MerchantID: sc.MerchantID},
		WithBaseURL(sb.URL), WithLogger(text))
	must("client", err)
	_, err = bad.Transactions.Get(ctx, txn.TransactionID)
	expectErr("wrong key", err, ErrUnauthorized)
	_ = bad.Close()
	off, err := NewClient(creds, WithBaseURL(faultinject.RefusedURL+"/api/v1"), WithLogger(text), WithMaxRetries(1),
		WithRetryBackoff(time.Millisecond, time.Millisecond))
	must("client", err)
	_, err = off.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber})
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
	if n, d := strings.Count(logs, `msg="bankpay: `), strings.Count(logs, `level=DEBUG msg="bankpay: response"`); n < 25 || d < 10 {
		t.Errorf("only %d SDK log lines (%d at debug level): is the debug logger on?\n%s", n, d, logs)
	}
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
			t.Errorf("secret %q appears: …%s…", s, all[lo:hi])
		}
	}
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
	c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr}),
		WithLogger(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var errs []string
	_, err = c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber,
		Customer: &models.Customer{TaxID: secretTaxIDs[0], DateOfBirth: secretDOBs[0], DriverLicense: &models.DriverLicense{Number: secretLicences[0]}}})
	errs = append(errs, fmt.Sprint(err), fmt.Sprintf("%+v", err))
	_, err = c.Customers.Update(ctx, "c-1", &CustomerUpdateParams{TaxID: secretTaxIDs[2], DateOfBirth: secretDOBs[1]})
	errs = append(errs, fmt.Sprint(err))
	// The same data as people write it: spaces and slashes between groups.
	_, err = c.Customers.Update(ctx, "c-2", &CustomerUpdateParams{TaxID: "123 45 6789", DateOfBirth: "02/01/1990", Phone: "1000 0000 10"})
	errs = append(errs, fmt.Sprint(err))
	_, err = c.Transactions.Capture(ctx, "1", &CaptureParams{MerchantReference: "r", Amount: "1.00",
		Beneficiary:        &models.Beneficiary{Name: "B", Address: &models.Address{Country: "MX"}},
		BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: "987654321012", IBAN: secretIBAN}})
	errs = append(errs, fmt.Sprint(err))
	var ae *APIError
	if errors.As(err, &ae) {
		for _, it := range ae.Errors {
			errs = append(errs, it.Message, it.Location)
		}
	}
	all := strings.Join(errs, "\n") + out.String()
	if s.Requests() != 4 || !strings.Contains(all, "invalid request") {
		t.Fatalf("requests %d, errors:\n%s", s.Requests(), all)
	}
	for _, secret := range append(append(append([]string{testCreds.AccessKey.Reveal(), bankpaytest.SandboxRoutingNumber, "987654321012", bankpaytest.AccountVerified,
		"45 6789", "01/1990", "0000 10"},
		secretTaxIDs...), secretDOBs...), secretLicences...) {
		if strings.Contains(all, secret) {
			t.Errorf("secret %q in:\n%s", secret, all)
		}
	}
	// An IBAN mixes letters and digits: its digit run is masked.
	if strings.Contains(all, secretIBAN) {
		t.Errorf("IBAN %s shows whole", secretIBAN)
	}
}
