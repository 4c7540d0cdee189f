package bankpaytest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/stretchr/testify/assert"
)

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
