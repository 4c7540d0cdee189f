package bankpaytest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRouting: unknown and unclean paths get 404/200 (never a
// redirect), a known path with another method (HEAD on a GET route
// included) 405/200 with Allow, and wrong credentials 401 before either
// inside the API and control prefixes.
func TestRouting(t *testing.T) {
	srv := newServer(t)
	creds := srv.Credentials()
	root := strings.TrimSuffix(srv.URL, "/api/v1")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, key string) *http.Response {
		req, err := http.NewRequest(method, root+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth(creds.AccessID, key)
		resp, err := noRedirect.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
		authFirst    bool
	}{
		{"GET", "/api/v1//transactions/1", 404, "", true},
		{"GET", "/api/v1/transactions/1/../2", 404, "", true},
		{"GET", "/api/v1/./establish", 404, "", true},
		{"GET", "/api/v1/transactions/", 404, "", true},
		{"GET", "/api/v1/transactions/1/", 404, "", true},
		{"GET", "/api/v1/nope", 404, "", true},
		{"GET", "/api/v1", 404, "", false},
		{"GET", "/elsewhere", 404, "", false},
		{"GET", "/sandbox", 404, "", true},
		{"GET", "/sandbox/nope", 404, "", true},
		{"HEAD", "/api/v1/transactions/1", 405, "GET", true},
		{"PUT", "/api/v1/customers", 405, "POST, GET", true},
		{"DELETE", "/api/v1/customers/9", 405, "POST, GET", true},
		{"DELETE", "/api/v1/transactions/1/user/detail", 405, "GET", true},
		{"GET", "/sandbox/advance", 405, "POST", true},
		{"POST", "/sandbox/now", 405, "GET", true},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp := do(tc.method, tc.path, creds.AccessKey.Reveal())
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.allow, resp.Header.Get("Allow"))
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			want := tc.status
			if tc.authFirst {
				want = 401
			}
			assert.Equal(t, want, do(tc.method, tc.path, "wrong").StatusCode, "with wrong credentials")
		})
	}
}
