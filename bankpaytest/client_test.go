package bankpaytest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// TestServerClient: srv.Client is a ready client of the default merchant
// against srv (its credentials, srv.URL), with the options given applied
// after those; srv.Credentials hides the key when printed.
func TestServerClient(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("client-1", "10.00")

	got, err := srv.Client().Transactions.Get(context.Background(), auth.TransactionID)
	require.NoError(t, err)
	assert.Equal(t, auth.TransactionID, got.TransactionID)
	assert.Equal(t, models.StatusAuthorized, got.Status)

	// The options given apply after the server's: this transport sees the
	// request to srv's path.
	var seen string
	other := srv.Client(bankpay.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = r.URL.Path
		return nil, errors.New("not sent")
	})}), bankpay.WithMaxRetries(0))
	_, err = other.Transactions.Get(context.Background(), auth.TransactionID)
	require.Error(t, err)
	assert.Equal(t, "/api/v1/transactions/"+auth.TransactionID, seen)

	creds := srv.Credentials()
	assert.NotContains(t, creds.AccessKey.String(), creds.AccessKey.Reveal())
}
