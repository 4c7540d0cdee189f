package bankpaytest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/bankpay/bankpay-go/models"
)

func (c *api) preauthorize(id string, v url.Values) response {
	c.t.Helper()
	return c.postForm("/transactions/"+id+"/capture/preAuth", v)
}

func TestPreauthorize(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth, tok := c.payAuthorization("pa", "100.00")
	form := func(kv ...string) url.Values {
		v := url.Values{"merchantReference": {"pa-1"}, "period": {"2"}, "amount": {"80.00"}, "splitToken": {tok}}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	for _, bad := range []url.Values{
		form("merchantReference", ""), form("period", ""), form("period", "0"), form("period", "7"), form("period", "x"),
		form("amount", "100.01"), form("amount", "0.00"), form("amount", "8"), form("amount", "12345678.00"),
		form("metadata.remittance.withdrawalMethod", "Wire"),
	} {
		c.preauthorize(auth.TransactionID, bad).wantError(t, http.StatusBadRequest, 200)
	}
	c.preauthorize(auth.TransactionID, form("splitToken", tok+"x")).wantError(t, http.StatusBadRequest, 380)

	start := srv.Now()
	pa := c.mustTxn(c.preauthorize(auth.TransactionID, form("externalTier", "vip", "interactionId", "consumerNotPresent",
		"metadata.remittance.withdrawalMethod", "Cash")))
	assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
	assert.Equal(t, auth.TransactionID, pa.OriginalTransactionID)
	assert.Equal(t, models.StatusAuthorized, pa.Status)
	assert.Equal(t, models.ProviderStatus("AC107"), pa.PaymentProviderTransaction.Status)
	assert.Equal(t, models.Amount("80.00"), pa.Amount)
	assert.True(t, pa.PreAuthorized)
	assert.Equal(t, start.Add(2*time.Hour).UnixMilli(), int64(pa.ExpiredAt))
	c.preauthorize(auth.TransactionID, form()).wantError(t, http.StatusBadRequest, 210)
	assert.Empty(t, srv.EventsFor(pa.TransactionID))

	// It lapses after its period.
	srv.Advance(2*time.Hour - time.Millisecond)
	assert.Equal(t, models.StatusAuthorized, c.txn(pa.TransactionID).Status)
	srv.Advance(time.Millisecond)
	got := c.txn(pa.TransactionID)
	assert.Equal(t, models.StatusExpired, got.Status)
	assert.False(t, got.PreAuthorized)
	assert.Equal(t, "Expire", joined(eventTypes(srv.EventsFor(pa.TransactionID))))

	// Without amount: the authorization's; a canceled one does not expire.
	pa2 := c.mustTxn(c.preauthorize(auth.TransactionID, form("merchantReference", "pa-2", "amount", "", "splitToken", "", "period", "1")))
	assert.Equal(t, models.Amount("100.00"), pa2.Amount)
	assert.Equal(t, models.StatusCanceled, c.mustTxn(c.cancel(pa2.TransactionID, map[string]any{})).Status)
	srv.Advance(2 * time.Hour)
	assert.Equal(t, models.StatusCanceled, c.txn(pa2.TransactionID).Status)

	// Only from a Deferred (or Recurring) authorization.
	d := c.establish("pa-d", "10.00")
	c.preauthorize(d.TransactionID, form("splitToken", "")).wantError(t, http.StatusBadRequest, 200)
	zero, _ := c.payAuthorization("pa-z", "0.00")
	c.preauthorize(zero.TransactionID, form("merchantReference", "pa-z", "amount", "", "splitToken", "")).wantError(t, http.StatusBadRequest, 200)
}
