package bankpaytest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// TestRemoteClock: a webhook handler whose clock is RemoteClock accepts
// every event of a sandbox (as cmd/bankpay-sandbox runs it: following the
// real time, over HTTP) that was advanced 3 banking days, events that a
// handler on the real time refuses as future-dated.
func TestRemoteClock(t *testing.T) {
	var mu sync.Mutex
	var got []*bankpay.Event
	hook := httptest.NewServer(nil)
	t.Cleanup(hook.Close)
	srv := bankpaytest.NewServer(bankpaytest.WithWallClock(), bankpaytest.WithAnyEventAddress(),
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: hook.URL}))
	t.Cleanup(srv.Close)
	creds := srv.Credentials()
	clock := bankpaytest.RemoteClock(srv.URL, creds)
	hook.Config.Handler = bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
		return nil
	}, bankpay.WithWebhookClock(clock))

	assert.WithinDuration(t, time.Now(), clock(), 5*time.Second, "the clock of a sandbox not advanced")
	c := srv.Client()
	ctx := context.Background()
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: "rc-1", Description: "payout",
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe", Type: 1},
	})
	require.NoError(t, err)
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rc-1-dep", Amount: "5.00"})
	require.NoError(t, err)

	creq, err := http.NewRequest(http.MethodPost, srv.ControlURL+"/advance?bankingDays=3", nil)
	require.NoError(t, err)
	creq.SetBasicAuth(creds.AccessID, creds.AccessKey.Reveal())
	resp, err := http.DefaultClient.Do(creq)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, srv.Flush(ctx))

	assert.WithinDuration(t, srv.Now(), clock(), 5*time.Second, "the clock of the advanced sandbox")
	events := srv.EventsFor(dep.TransactionID)
	require.NotEmpty(t, events)
	var complete bool
	for _, e := range events {
		assert.Equal(t, http.StatusOK, e.LastStatus(), "%s %s: %+v", e.EventType, e.EventID, e.Attempts)
		if e.EventType == models.EventComplete {
			complete = true
			assert.True(t, e.CreatedAt.After(time.Now().Add(time.Hour)), "dated ahead of the real time: a handler on it refuses it")
		}
	}
	assert.True(t, complete, "a Complete event: %+v", events)
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, got, len(events)+len(srv.EventsFor(auth.TransactionID)), "every event reached the callback once")
}

// TestRemoteClockUnreachable: when the sandbox cannot be read, the clock
// is the real time plus the sandbox's lead at the last read.
func TestRemoteClockUnreachable(t *testing.T) {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(time.Now().Add(48 * time.Hour)))
	clock := bankpaytest.RemoteClock(srv.ControlURL, srv.Credentials())
	assert.WithinDuration(t, srv.Now(), clock(), time.Second)
	srv.Close()
	assert.WithinDuration(t, time.Now().Add(48*time.Hour), clock(), 5*time.Second, "the last lead kept")

	bad := bankpaytest.NewServer()
	t.Cleanup(bad.Close)
	wrong := bankpaytest.RemoteClock(bad.URL, bankpay.Credentials{AccessID: "x", AccessKey: bankpay.NewSecret("y"), MerchantID: "m"})
	assert.WithinDuration(t, time.Now(), wrong(), 5*time.Second, "refused (401): the real time")
}
