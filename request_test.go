package bankpay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithResponseInto hands back a response whose request (and the requests
// of the redirects before it) carries no credentials, and whose headers
// are scrubbed of an echo of them; the SDK's own requests still carried the
// Authorization header.
func TestResponseIntoCarriesNoCredentials(t *testing.T) {
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		if strings.HasSuffix(r.URL.Path, "/T1") {
			http.Redirect(w, r, "/api/v1/transactions/T2", http.StatusFound)
			return
		}
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, faultTxn)
	}))
	defer ts.Close()
	c, err := NewClient(testCreds, WithBaseURL(ts.URL+"/api/v1"), WithHTTPClient(ts.Client()))
	require.NoError(t, err)
	var resp *http.Response
	_, err = c.Transactions.Get(context.Background(), "T1", WithResponseInto(&resp))
	require.NoError(t, err)
	require.Len(t, seen, 2)
	auth := c.secrets.authHeader()
	assert.Equal(t, []string{auth, auth}, seen, "the requests themselves were authorized")

	require.NotNil(t, resp)
	require.NotNil(t, resp.Request)
	assert.Equal(t, "/api/v1/transactions/T2", resp.Request.URL.Path)
	assert.Empty(t, resp.Request.Header.Values("Authorization"))
	require.NotNil(t, resp.Request.Response, "the redirect's response")
	require.NotNil(t, resp.Request.Response.Request)
	assert.Equal(t, "/api/v1/transactions/T1", resp.Request.Response.Request.URL.Path)
	assert.Empty(t, resp.Request.Response.Request.Header.Values("Authorization"))
	assert.Equal(t, "Basic [redacted]", resp.Header.Get("X-Echo"), "an echo of the key is scrubbed")
	assertNoSecretForm(t, testCreds, "the response handed back", fmt.Sprintf("%+v %+v %+v", resp.Header, resp.Request.Header, resp.Request.Response.Request.Header))
}
