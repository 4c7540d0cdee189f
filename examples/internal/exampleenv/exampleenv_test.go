package exampleenv

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

func getenv(vars map[string]string) Option {
	return WithGetenv(func(k string) string { return vars[k] })
}

func TestStartEmbeddedWhenNothingIsSet(t *testing.T) {
	var out bytes.Buffer
	env, err := Start(getenv(nil), WithOutput(&out))
	require.NoError(t, err)
	defer env.Close()
	require.True(t, env.Embedded(), "no embedded sandbox")
	require.NotNil(t, env.Sandbox, "no embedded sandbox")
	// The client calls the sandbox: it knows no such transaction.
	_, err = env.Client.Transactions.Get(context.Background(), "100000000000000")
	assert.ErrorIs(t, err, bankpay.ErrNotFound, "client does not call the sandbox %s: %v", env.Sandbox.URL, err)
	m := env.Sandbox.Merchants()[0]
	assert.False(t, m.NoVIP, "the sandbox merchant is not configured for VIP and money transfer: %+v", m)
	assert.False(t, m.NoMoneyTransfer, "the sandbox merchant is not configured for VIP and money transfer: %+v", m)
	assert.Contains(t, out.String(), "embedded bankpaytest sandbox", "output does not say which service is used: %q", out.String())
	assert.NotContains(t, out.String(), env.Creds.AccessKey.Reveal(), "the access key is printed")
}

func TestStartConfigured(t *testing.T) {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Credentials()
	var out bytes.Buffer
	env, err := Start(WithOutput(&out), getenv(map[string]string{
		EnvAccessID: c.AccessID, EnvAccessKey: c.AccessKey.Reveal(), EnvMerchantID: c.MerchantID, EnvBaseURL: srv.URL,
	}))
	require.NoError(t, err)
	defer env.Close()
	require.False(t, env.Embedded(), "an embedded sandbox although the service is configured")
	_, err = env.Client.Transactions.Get(context.Background(), "100000000000000")
	assert.ErrorIs(t, err, bankpay.ErrNotFound, "client does not call %s: %v", srv.URL, err)
	r := env.StartReceiver()
	assert.Empty(t, r.URL, "a loopback receiver URL %q for a real service", r.URL)
	ctx := context.Background()
	d := &models.EstablishData{Currency: models.USD, Amount: "1.00", MerchantReference: "r", PaymentType: models.PaymentTypeDeferred,
		ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c"}
	_, err = env.Authorization(ctx, d, bankpaytest.OutcomeAuthorize)
	assert.ErrorIs(t, err, ErrNeedsBrowser, "Authorization: %v, want ErrNeedsBrowser", err)
	err = env.Advance(ctx, time.Minute)
	assert.ErrorIs(t, err, ErrNeedsSandboxClock, "Advance: %v, want ErrNeedsSandboxClock", err)
	err = env.AdvanceBankingDays(ctx, 1)
	assert.ErrorIs(t, err, ErrNeedsSandboxClock, "AdvanceBankingDays: %v, want ErrNeedsSandboxClock", err)
}

func TestStartRefusesPartialConfiguration(t *testing.T) {
	_, err := Start(getenv(map[string]string{EnvBaseURL: "https://sandbox.example/api/v1", EnvAccessID: "id"}), WithOutput(&bytes.Buffer{}))
	require.Error(t, err, "err = %v, want one naming the missing variables", err)
	require.Contains(t, err.Error(), EnvAccessKey, "err = %v, want one naming the missing variables", err)
	require.Contains(t, err.Error(), EnvMerchantID, "err = %v, want one naming the missing variables", err)
}

func TestRunStopsCleanly(t *testing.T) {
	var out bytes.Buffer
	for _, stop := range []error{ErrNeedsBrowser, ErrNeedsSandboxClock} {
		err := Run("x", func(context.Context, *Env) error { return stop }, getenv(nil), WithOutput(&out))
		assert.NoError(t, err, "Run with %v: %v, want nil", stop, err)
	}
	assert.Contains(t, out.String(), "Stopping here", "no explanation: %q", out.String())
	boom := errors.New("boom")
	err := Run("x", func(context.Context, *Env) error { return boom }, getenv(nil), WithOutput(&out))
	assert.ErrorIs(t, err, boom, "Run: %v, want boom", err)
}

// TestWebhookClock: the embedded sandbox's clock; a standalone sandbox's
// (loopback) read over HTTP, ahead of the real time once advanced; the
// real time against the service.
func TestWebhookClock(t *testing.T) {
	env, err := Start(getenv(nil), WithOutput(&bytes.Buffer{}), WithSandboxOptions(bankpaytest.WithStartTime(time.Now().Add(72*time.Hour))))
	require.NoError(t, err)
	defer env.Close()
	assert.Equal(t, env.Sandbox.Now(), env.WebhookClock()())

	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(time.Now().Add(96 * time.Hour)))
	defer srv.Close()
	c := srv.Credentials()
	vars := map[string]string{EnvAccessID: c.AccessID, EnvAccessKey: c.AccessKey.Reveal(), EnvMerchantID: c.MerchantID, EnvBaseURL: srv.URL}
	standalone, err := Start(WithOutput(&bytes.Buffer{}), getenv(vars))
	require.NoError(t, err)
	defer standalone.Close()
	assert.WithinDuration(t, srv.Now(), standalone.WebhookClock()(), time.Second, "the standalone sandbox's clock")

	vars[EnvBaseURL] = "https://api.bankpay.example/api/v1"
	live, err := Start(WithOutput(&bytes.Buffer{}), getenv(vars))
	require.NoError(t, err)
	defer live.Close()
	assert.WithinDuration(t, time.Now(), live.WebhookClock()(), time.Second, "the real time")
}
