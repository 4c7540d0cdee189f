package bankpaytest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRouting: unknown and unclean paths get 404/200 (never a
// redirect), a known path with another method (HEAD on a GET route
// included) 405/200 with Allow, and wrong credentials 401 before either
// inside the API and control prefixes.
func TestRouting(t *testing.T) {
	srv := NewServer()
	t.Cleanup(srv.Close)
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

// TestAPIRoutesServeEveryRow: the sandbox's API routes and the SDK's
// operation rows (internal/ops) are the same set. Every row's method and
// path (its id filled) reaches a route with that method, not the 404 or
// 405 fallbacks; every route is a row of the table, one route a pattern,
// and reached by some row.
func TestAPIRoutesServeEveryRow(t *testing.T) {
	mux := http.NewServeMux()
	new(Server).mount(mux, apiPrefix, routes(apiRoutes))
	reached := map[string]bool{}
	for _, op := range ops.All() {
		path := apiPrefix + pathParam.ReplaceAllString(op.Path, "x1")
		_, pattern := mux.Handler(httptest.NewRequest(op.Method, path, nil))
		assert.True(t, strings.HasPrefix(pattern, op.Method+" "), "%s (%s %s): no route of the sandbox, reaches %q", op.Name, op.Method, op.Path, pattern)
		reached[pattern] = true
	}
	rows := ops.All()
	seen := map[string]bool{}
	for i, rt := range routes(apiRoutes) {
		assert.Contains(t, rows, apiRoutes[i].op, "%s: a route with no row of internal/ops", rt.pattern)
		assert.False(t, seen[rt.pattern], "%s: two routes", rt.pattern)
		seen[rt.pattern] = true
		method, path, _ := strings.Cut(rt.pattern, " ")
		assert.True(t, reached[method+" "+apiPrefix+path], "%s: a route no row reaches", rt.pattern)
	}
}
