package exampleenv

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func getenv(vars map[string]string) Option {
	return WithGetenv(func(k string) string { return vars[k] })
}

func TestStartEmbeddedWhenNothingIsSet(t *testing.T) {
	var out bytes.Buffer
	env, err := Start(getenv(nil), WithOutput(&out))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if !env.Embedded() || env.Sandbox == nil {
		t.Fatal("no embedded sandbox")
	}
	// The client calls the sandbox: it knows no such transaction.
	if _, err := env.Client.Transactions.Get(context.Background(), "100000000000000"); !errors.Is(err, bankpay.ErrNotFound) {
		t.Errorf("client does not call the sandbox %s: %v", env.Sandbox.URL, err)
	}
	m := env.Sandbox.Merchants()[0]
	if m.NoVIP || m.NoMoneyTransfer {
		t.Errorf("the sandbox merchant is not configured for VIP and money transfer: %+v", m)
	}
	if !strings.Contains(out.String(), "embedded bankpaytest sandbox") {
		t.Errorf("output does not say which service is used: %q", out.String())
	}
	if strings.Contains(out.String(), env.Creds.AccessKey.Reveal()) {
		t.Error("the access key is printed")
	}
}

func TestStartConfigured(t *testing.T) {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Credentials()
	var out bytes.Buffer
	env, err := Start(WithOutput(&out), getenv(map[string]string{
		EnvAccessID: c.AccessID, EnvAccessKey: c.AccessKey.Reveal(), EnvMerchantID: c.MerchantID, EnvBaseURL: srv.URL,
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Embedded() {
		t.Fatal("an embedded sandbox although the service is configured")
	}
	if _, err := env.Client.Transactions.Get(context.Background(), "100000000000000"); !errors.Is(err, bankpay.ErrNotFound) {
		t.Errorf("client does not call %s: %v", srv.URL, err)
	}
	if r := env.StartReceiver(); r.URL != "" {
		t.Errorf("a loopback receiver URL %q for a real service", r.URL)
	}
	ctx := context.Background()
	d := &models.EstablishData{Currency: models.USD, Amount: "1.00", MerchantReference: "r", PaymentType: models.PaymentTypeDeferred,
		ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c"}
	if _, err := env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize); !errors.Is(err, ErrNeedsBrowser) {
		t.Errorf("Authorization: %v, want ErrNeedsBrowser", err)
	}
	if err := env.Advance(ctx, time.Minute); !errors.Is(err, ErrNeedsSandboxClock) {
		t.Errorf("Advance: %v, want ErrNeedsSandboxClock", err)
	}
	if err := env.AdvanceBankingDays(ctx, 1); !errors.Is(err, ErrNeedsSandboxClock) {
		t.Errorf("AdvanceBankingDays: %v, want ErrNeedsSandboxClock", err)
	}
}

func TestStartRefusesPartialConfiguration(t *testing.T) {
	_, err := Start(getenv(map[string]string{EnvBaseURL: "https://sandbox.example/api/v1", EnvAccessID: "id"}), WithOutput(&bytes.Buffer{}))
	if err == nil || !strings.Contains(err.Error(), EnvAccessKey) || !strings.Contains(err.Error(), EnvMerchantID) {
		t.Fatalf("err = %v, want one naming the missing variables", err)
	}
}

func TestRunStopsCleanly(t *testing.T) {
	var out bytes.Buffer
	for _, stop := range []error{ErrNeedsBrowser, ErrNeedsSandboxClock} {
		err := Run("x", func(context.Context, *Env) error { return stop }, getenv(nil), WithOutput(&out))
		if err != nil {
			t.Errorf("Run with %v: %v, want nil", stop, err)
		}
	}
	if !strings.Contains(out.String(), "Stopping here") {
		t.Errorf("no explanation: %q", out.String())
	}
	boom := errors.New("boom")
	if err := Run("x", func(context.Context, *Env) error { return boom }, getenv(nil), WithOutput(&out)); !errors.Is(err, boom) {
		t.Errorf("Run: %v, want boom", err)
	}
}
