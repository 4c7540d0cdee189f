package bankpay

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	rows := ops.All()
	require.GreaterOrEqual(t, len(rows), 30, "rows of internal/ops")
	seen := map[string]bool{}
	for _, r := range rows {
		assert.False(t, seen[r.Name], "%s: two rows", r.Name)
		seen[r.Name] = true
		if r.Method == http.MethodGet {
			assert.Equal(t, ops.RetryRead, r.Retry, "%s: a GET is a read", r.Name)
		} else {
			assert.NotEqual(t, ops.RetryRead, r.Retry, "%s: a %s changes state", r.Name, r.Method)
		}
		path := param.ReplaceAllString(r.Path, "{id}")
		found := false
		for _, e := range endpoints() {
			found = found || (e.method == r.Method && e.path == path)
		}
		if !found {
			assert.Contains(t, elsewhere, r.Name, "%s (%s %s): no row in endpoints()", r.Name, r.Method, r.Path)
		}
	}
	for name := range elsewhere {
		assert.True(t, seen[name], "%s is named as tested elsewhere but has no row", name)
	}
}

func TestOperationRequest(t *testing.T) {
	read := &operation{Name: "T.Get", Method: http.MethodGet, Path: "/t/{id}", Expand: true, NotReady: true}
	r, err := requestOf(read, args{ids: []string{"1"}})
	require.NoError(t, err)
	assert.False(t, r.StateChanging)
	assert.True(t, r.Expand)
	assert.ErrorIs(t, r.NotReady, ErrIdentityNotReady)
	_, err = requestOf(read, args{ids: []string{"1"}, body: struct{}{}})
	assert.ErrorContains(t, err, "takes no body", "a body for an operation that sends none")

	form := &operation{Name: "T.Deposit", Method: http.MethodPost, Path: "/t", Body: ops.BodyForm, Retry: ops.RetryUnlessSent}
	r, err = requestOf(form, args{body: &struct {
		Ref string `url:"merchantReference"`
	}{"R1"}})
	require.NoError(t, err)
	assert.True(t, r.StateChanging)
	assert.False(t, r.Idempotent)
	assert.Equal(t, pipeline.ContentTypeForm, r.ContentType)
	assert.Equal(t, "merchantReference=R1", string(r.Body))

	keyed := &operation{Name: "D.Create", Method: http.MethodPost, Path: "/d", Body: ops.BodyJSON, Retry: ops.RetryKeyed}
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

// requestOf is the request op prepares with a (prepare).
func requestOf(op *operation, a args) (*pipeline.Request, error) {
	r := new(pipeline.Request)
	if err := prepare(op, r, a); err != nil {
		return nil, err
	}
	return r, nil
}

// TestContributingDiff: the diff of the smallest operation in
// CONTRIBUTING.md is the code as it is: each hunk's lines after the
// change (context and added) appear, in order and together, in its file.
func TestContributingDiff(t *testing.T) {
	doc, err := os.ReadFile("CONTRIBUTING.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), "```diff\n")
	require.True(t, ok, "CONTRIBUTING.md has a diff")
	block, _, _ = strings.Cut(block, "```")
	files := strings.Split(block, "--- a/")[1:]
	require.GreaterOrEqual(t, len(files), 5, "the method, the row, the sandbox's route and handler, the contract's entry")
	for _, f := range files {
		name, rest, _ := strings.Cut(f, "\n")
		src, err := os.ReadFile(name)
		require.NoError(t, err, name)
		for _, hunk := range strings.Split(rest, "\n@@")[1:] {
			var after []string
			for _, l := range strings.Split(hunk, "\n")[1:] {
				if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "+") {
					after = append(after, l[1:])
				} else if l == "" {
					after = append(after, l)
				}
			}
			text := strings.TrimRight(strings.Join(after, "\n"), "\n")
			assert.Contains(t, string(src), text, "%s: a hunk of CONTRIBUTING.md's diff is not the code", name)
		}
	}
}
