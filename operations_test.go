package bankpay

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableRow is a row of operations.go as its source writes it.
type tableRow struct {
	varName, name, method, path, retry string
}

// tableRows reads the rows of the operation table from operations.go's
// source: every package-level var initialized with &operation{…}.
func tableRows(t *testing.T) []tableRow {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "operations.go", nil, 0)
	require.NoError(t, err)
	var rows []tableRow
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				u, ok := v.(*ast.UnaryExpr)
				if !ok {
					continue
				}
				lit, ok := u.X.(*ast.CompositeLit)
				if !ok || lit.Type.(*ast.Ident).Name != "operation" {
					continue
				}
				row := tableRow{varName: vs.Names[i].Name, retry: "retryRead"}
				for _, e := range lit.Elts {
					kv := e.(*ast.KeyValueExpr)
					val := ""
					switch x := kv.Value.(type) {
					case *ast.BasicLit:
						val, _ = strconv.Unquote(x.Value)
					case *ast.SelectorExpr: // http.MethodGet
						val = strings.ToUpper(strings.TrimPrefix(x.Sel.Name, "Method"))
					case *ast.Ident:
						val = x.Name
					}
					switch kv.Key.(*ast.Ident).Name {
					case "name":
						row.name = val
					case "method":
						row.method = val
					case "path":
						row.path = val
					case "retry":
						row.retry = val
					}
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// TestOperationTableCovered checks that every row of the operation table
// is driven by a row of endpoints() (same method and path), or is named
// here with the test file that covers it, and that its retry class
// agrees with its method.
func TestOperationTableCovered(t *testing.T) {
	elsewhere := map[string]string{
		"Accounts.ListSelected":         "accounts_test.go",
		"Accounts.Verify":               "accounts_verify_test.go",
		"Accounts.Feedback":             "accounts_verify_test.go",
		"Customers.Create":              "customers_test.go",
		"Customers.Get":                 "customers_test.go",
		"Customers.List":                "customers_test.go",
		"Customers.Lookup":              "customers_test.go",
		"Identity.CustomerVerification": "identity_test.go",
	}
	param := regexp.MustCompile(`\{[A-Za-z]+\}`)
	rows := tableRows(t)
	require.GreaterOrEqual(t, len(rows), 30, "rows read from operations.go")
	seen := map[string]bool{}
	for _, r := range rows {
		assert.False(t, seen[r.name], "%s: two rows", r.name)
		seen[r.name] = true
		if r.method == http.MethodGet {
			assert.Equal(t, "retryRead", r.retry, "%s: a GET is a read", r.name)
		} else {
			assert.NotEqual(t, "retryRead", r.retry, "%s: a %s changes state", r.name, r.method)
		}
		path := param.ReplaceAllString(r.path, "{id}")
		found := false
		for _, e := range endpoints() {
			found = found || (e.method == r.method && e.path == path)
		}
		if !found {
			assert.Contains(t, elsewhere, r.name, "%s (%s %s): no row in endpoints()", r.name, r.method, r.path)
		}
	}
	for name := range elsewhere {
		assert.True(t, seen[name], "%s is named as tested elsewhere but has no row", name)
	}
}

func TestOperationPathFor(t *testing.T) {
	op := &operation{name: "T.X", method: http.MethodPost, path: "/transactions/{transactionId}/deposit", body: bodyForm}
	got, err := op.pathFor("a/b?c#d")
	require.NoError(t, err)
	assert.Equal(t, "/transactions/a%2Fb%3Fc%23d/deposit", got, "an id cannot change the path")

	_, err = op.pathFor()
	assert.ErrorContains(t, err, "no value for {transactionId}")
	_, err = op.pathFor("1", "2")
	assert.ErrorContains(t, err, "2 ids for 1 path segments")
}

func TestOperationRequest(t *testing.T) {
	read := &operation{name: "T.Get", method: http.MethodGet, path: "/t/{id}", expand: true, notReady: true}
	r, err := requestOf(read, args{ids: []string{"1"}})
	require.NoError(t, err)
	assert.False(t, r.StateChanging)
	assert.True(t, r.Expand)
	assert.ErrorIs(t, r.NotReady, ErrIdentityNotReady)
	_, err = requestOf(read, args{ids: []string{"1"}, body: struct{}{}})
	assert.ErrorContains(t, err, "takes no body", "a body for an operation that sends none")

	form := &operation{name: "T.Deposit", method: http.MethodPost, path: "/t", body: bodyForm, retry: retryUnlessSent}
	r, err = requestOf(form, args{body: &struct {
		Ref string `url:"merchantReference"`
	}{"R1"}})
	require.NoError(t, err)
	assert.True(t, r.StateChanging)
	assert.False(t, r.Idempotent)
	assert.Equal(t, pipeline.ContentTypeForm, r.ContentType)
	assert.Equal(t, "merchantReference=R1", string(r.Body))

	keyed := &operation{name: "D.Create", method: http.MethodPost, path: "/d", body: bodyJSON, retry: retryKeyed}
	_, err = requestOf(keyed, args{body: map[string]string{}})
	var verr *ValidationError
	require.ErrorAs(t, err, &verr, "a keyed operation without its key")
	assert.Equal(t, "idempotencyKey", verr.Field)
	r, err = requestOf(keyed, args{body: map[string]string{"a": "b"}, idempotencyKey: "K1"})
	require.NoError(t, err)
	assert.True(t, r.Idempotent)
	assert.Equal(t, "K1", r.Header.Get("Idempotency-Key"))
	assert.Equal(t, pipeline.ContentTypeJSON, r.ContentType)
	assert.JSONEq(t, `{"a":"b"}`, string(r.Body))
}

// requestOf is the request op prepares with a (operation.request).
func requestOf(op *operation, a args) (*pipeline.Request, error) {
	r := new(pipeline.Request)
	if err := op.request(r, a); err != nil {
		return nil, err
	}
	return r, nil
}
