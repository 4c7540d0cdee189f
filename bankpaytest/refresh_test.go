package bankpaytest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

func TestRefresh(t *testing.T) {
	for _, bare := range []bool{false, true} {
		srv := newServer(t, shape(bare)...)
		c := newAPI(t, srv, srv.Credentials())
		auth, tok := c.payAuthorization("rfr", "10.00")
		path := "/transactions/" + auth.TransactionID + "/refresh"

		c.postJSON(path, map[string]string{}).wantError(t, http.StatusBadRequest, 200)
		c.postJSON(path, map[string]string{"splitToken": tok + "x"}).wantError(t, http.StatusBadRequest, 380)

		// The OpenAPI's shape in both modes.
		var env wire.RefreshEnvelope
		c.postJSON(path, map[string]string{"splitToken": tok}).wantOK(t, &env)
		require.NotNil(t, env.Refresh)
		assert.NotEmpty(t, env.Refresh.ProcessID)

		// The Refresh event comes RefreshDelay later.
		count := func() int {
			n := 0
			for _, e := range srv.EventsFor(auth.TransactionID) {
				if e.EventType == models.EventRefresh {
					n++
				}
			}
			return n
		}
		srv.Advance(bankpaytest.RefreshDelay - 1)
		assert.Zero(t, count())
		srv.Advance(1)
		require.Equal(t, 1, count())
		evs := srv.EventsFor(auth.TransactionID)
		ev := evs[len(evs)-1]
		assert.Equal(t, "true", ev.Raw.Get("success"))
		assert.Equal(t, "true", ev.Raw.Get("hardRefresh"))
		assert.Equal(t, "2", ev.Raw.Get("status"))
		assert.Equal(t, auth.TransactionID, ev.Raw.Get("objectId"))
	}
}

func TestRefreshRefusals(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	d := c.establish("rfr-d", "0.00")
	c.postJSON("/transactions/"+d.TransactionID+"/refresh", map[string]string{"splitToken": "x"}).wantError(t, http.StatusBadRequest, 380)
	dep := c.mustDeposit(d.TransactionID, "rfr-1", "1.00")
	c.postJSON("/transactions/"+dep.TransactionID+"/refresh", map[string]string{"splitToken": "x"}).wantError(t, http.StatusBadRequest, 200)
	auth, tok := c.payAuthorization("rfr-c", "10.00")
	c.mustTxn(c.cancel(auth.TransactionID, map[string]any{}))
	c.postJSON("/transactions/"+auth.TransactionID+"/refresh", map[string]string{"splitToken": tok}).wantError(t, http.StatusBadRequest, 200)
}
