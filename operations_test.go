package bankpay

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"
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
