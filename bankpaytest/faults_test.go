package bankpaytest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// postDepositRaw posts a deposit and returns the transport error, if any.
func postDepositRaw(t *testing.T, srv *bankpaytest.Server, c *api, authID, ref string) error {
	t.Helper()
	body := url.Values{"merchantReference": {ref}, "amount": {"5.00"}}.Encode()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/transactions/"+authID+"/deposit", strings.NewReader(body))
	require.NoError(t, err)
	req.SetBasicAuth(c.creds.AccessID, c.creds.AccessKey.Reveal())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return nil
}

// TestLoseResponse: the deposit whose response is lost is made; only the
// next matching request loses its response.
func TestLoseResponse(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("auth", "0.00")
	path := "/transactions/" + auth.TransactionID + "/deposit"

	srv.LoseResponse(http.MethodPost, path)
	c.get("/transactions/"+auth.TransactionID).wantOK(t, nil) // another request keeps its response
	err := postDepositRaw(t, srv, c, auth.TransactionID, "lost-1")
	require.Error(t, err, "the response was lost")
	assert.Equal(t, []string{"lost-1"}, refs(c.listTransactions(t, "transactionType=6")), "the deposit was made")

	require.NoError(t, postDepositRaw(t, srv, c, auth.TransactionID, "kept-2"), "one response lost per call")

	// The same over the control endpoint.
	ctl := send(t, &c.creds, http.MethodPost, srv.ControlURL+"/loseResponse?method=post&path="+url.QueryEscape(path), "", nil)
	ctl.wantOK(t, nil)
	require.Error(t, postDepositRaw(t, srv, c, auth.TransactionID, "lost-3"))
	assert.Equal(t, []string{"lost-1", "kept-2", "lost-3"}, refs(c.listTransactions(t, "transactionType=6")))

	send(t, &c.creds, http.MethodPost, srv.ControlURL+"/loseResponse?method=POST", "", nil).wantError(t, http.StatusBadRequest, 200)
	send(t, nil, http.MethodPost, srv.ControlURL+"/loseResponse?method=POST&path=/x", "", nil).wantError(t, http.StatusUnauthorized, 375)
}

func refs(ts []models.Transaction) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.MerchantReference
	}
	return out
}
