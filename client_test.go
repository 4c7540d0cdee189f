package bankpay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientValidatesCredentials(t *testing.T) {
	for _, tc := range []struct {
		creds Credentials
		field string
	}{
		{Credentials{AccessKey: NewSecret("k"), MerchantID: "m"}, "accessId"},
		{Credentials{AccessID: "a", MerchantID: "m"}, "accessKey"},
		{Credentials{AccessID: "a", AccessKey: NewSecret("k")}, "merchantId"},
	} {
		_, err := NewClient(tc.creds)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, "NewClient(%v) = %v, want ValidationError on %s", tc.creds, err, tc.field) {
			assert.Equal(t, tc.field, ve.Field, "NewClient(%v) = %v, want ValidationError on %s", tc.creds, err, tc.field)
		}
		assert.True(t, isValidation(err), "error %v is not a *ValidationError", err)
	}
}

func TestNewClientBaseURL(t *testing.T) {
	c, err := NewClient(testCreds)
	require.NoError(t, err, "default base URL = %v, %v", c, err)
	require.Equal(t, SandboxBaseURL, c.cfg.baseURL, "default base URL = %v, %v", c, err)
	for raw, ok := range map[string]bool{
		ProductionBaseURL:                 true,
		"https://api.example.com/api/v1/": true,
		"http://127.0.0.1:8089/api/v1":    true,
		"http://localhost:1/api/v1":       true,
		"http://[::1]:1/api/v1":           true,
		"http://example.com/api/v1":       false, // plain http off loopback
		"http://10.0.0.1/api/v1":          false,
		"ftp://example.com/api/v1":        false,
		"/api/v1":                         false,
		"https://user:pw@example.com":     false,
		"https://example.com/api?x=1":     false,
		"https://example.com/api/v1?":     false, // an empty query: the paths would follow the '?'
		"https://example.com/api/v1/?":    false,
		"https://example.com/api/v1#":     true, // an empty fragment is dropped
		"::not a url":                     false,
	} {
		c, err := NewClient(testCreds, WithBaseURL(raw))
		if !assert.Equal(t, err == nil, ok, "WithBaseURL(%q): err = %v, want ok=%v", raw, err, ok) {
			continue
		}
		if ok {
			assert.False(t, strings.HasSuffix(c.cfg.baseURL, "/"), "base URL %q keeps a trailing slash", c.cfg.baseURL)
			u, err := url.Parse(c.cfg.baseURL + "/transactions/T1")
			if assert.NoError(t, err) {
				assert.True(t, strings.HasSuffix(u.Path, "/transactions/T1") && u.RawQuery == "" && !u.ForceQuery,
					"WithBaseURL(%q): a call's URL is %s", raw, u)
			}
		} else {
			assert.True(t, isValidation(err), "WithBaseURL(%q) error %v is not a ValidationError", raw, err)
		}
	}
}

func TestNewClientOptionErrors(t *testing.T) {
	for name, opt := range map[string]Option{
		"httpClient":       WithHTTPClient(nil),
		"maxRetries":       WithMaxRetries(-1),
		"retryBackoff":     WithRetryBackoff(time.Second, time.Millisecond),
		"maxRetryAfter":    withMaxRetryAfter(-time.Second),
		"maxResponseBytes": withMaxResponseBytes(0),
		"userAgent":        WithHeader("User-Agent", "a\r\nX-Evil: 1"),
	} {
		_, err := NewClient(testCreds, opt)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, "%s: err = %v", name, err) {
			assert.Equal(t, name, ve.Field, "%s: err = %v", name, err)
		}
	}
	_, err := NewClient(testCreds, nil)
	assert.NoError(t, err, "a nil option must be ignored: %v", err)
}

// WithHeader("User-Agent", v) puts v before the SDK's product token; a
// second one goes before the first.
func TestUserAgentOption(t *testing.T) {
	c, mock, _ := newTestClient(t, WithHeader("User-Agent", "shop/2.1"))
	var ua string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua = req.Header.Get("User-Agent")
		return jsonResponse(200, aboutID(authorizationJSON, "1"))(req)
	})
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err)
	assert.Equal(t, "shop/2.1 bankpay-go/"+version, ua, "User-Agent = %q", ua)
	_, err = c.Transactions.Get(context.Background(), "1", WithHeader("user-agent", "job/7"), WithHeader("User-Agent", "step/2"))
	require.NoError(t, err)
	assert.Equal(t, "step/2 job/7 shop/2.1 bankpay-go/"+version, ua, "User-Agent = %q", ua)
	_, err = c.Transactions.Get(context.Background(), "1", WithHeader("User-Agent", ""))
	require.NoError(t, err)
	assert.Equal(t, "shop/2.1 bankpay-go/"+version, ua, "an empty value adds nothing: %q", ua)
}

func TestCredentialsNeverPrintTheKey(t *testing.T) {
	c, _, _ := newTestClient(t)
	type holder struct{ Creds Credentials }
	for _, s := range []string{
		fmt.Sprintf("%v", testCreds), fmt.Sprintf("%+v", testCreds), fmt.Sprintf("%#v", testCreds),
		fmt.Sprintf("%s", testCreds), fmt.Sprintf("%q", testCreds), fmt.Sprintf("%x", testCreds),
		fmt.Sprint(testCreds), fmt.Sprintf("%+v", holder{testCreds}), fmt.Sprintf("%#v", holder{testCreds}),
		fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", *c),
	} {
		assertNoSecret(t, s)
	}
	got := fmt.Sprintf("%v", testCreds)
	assert.Contains(t, got, "[redacted]", "String() = %q", got)
	assert.Contains(t, got, testCreds.AccessID, "String() = %q", got)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("creds", "creds", testCreds, "nested", holder{testCreds})
	assertNoSecret(t, buf.String())
	assert.Contains(t, buf.String(), `"AccessKey":{}`, "slog output %s", buf.String())
}

func TestLoggerWritesNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mock, _ := newTestClient(t, WithLogger(logger))
	sequence(t, mock,
		jsonResponse(503, `{"errors":[{"code":100,"message":"account 123456789 busy"}]}`),
		jsonResponse(200, authorizationJSON),
	)
	_, err := c.Transactions.Get(context.Background(), "1002581234567")
	require.NoError(t, err)
	out := buf.String()
	assertNoSecret(t, out)
	assert.NotContains(t, out, "123456789 ", "log leaks: %s", out)
	assert.NotContains(t, out, "Basic ", "log leaks: %s", out)
	for _, want := range []string{"bankpay: retrying", "path=/transactions/1002581234567", "status=200", "attempts=2"} {
		assert.Contains(t, out, want, "log lacks %q:\n%s", want, out)
	}
}

func TestDoRejectsNilContext(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	req, _ := pipeline.NewRequest(http.MethodGet, "/transactions/1", nil, nil)
	//lint:ignore SA1012 the nil context is the point of the test
	err := c.do(nil, req, nil, nil) //nolint:staticcheck
	require.True(t, isValidation(err), "err = %v", err)
	require.Equal(t, int32(0), calls.Load(), "request sent")
}

func TestNewRequestBodies(t *testing.T) {
	type inner struct {
		City string `url:"city"`
	}
	type outer struct {
		In *inner `url:"beneficiary"`
	}
	for _, tc := range []struct {
		body        any
		contentType string
		want        string
	}{
		{nil, "", ""},
		{map[string]int{"a": 1}, "application/json", `{"a":1}`},
		{pipeline.FormBody{V: &outer{&inner{"Austin"}}}, "application/x-www-form-urlencoded", "beneficiary.city=Austin"},
	} {
		r, err := pipeline.NewRequest(http.MethodPost, "/x", nil, tc.body)
		require.NoError(t, err)
		assert.Equal(t, tc.contentType, r.ContentType, "NewRequest(%v) = %+v", tc.body, r)
		assert.Equal(t, tc.want, string(r.Body), "NewRequest(%v) = %+v", tc.body, r)
		assert.True(t, r.StateChanging, "NewRequest(%v) = %+v", tc.body, r)
	}
	_, err := pipeline.NewRequest(http.MethodPost, "/x", nil, make(chan int))
	assert.Error(t, err, "unencodable JSON body accepted")
	_, err = pipeline.NewRequest(http.MethodPost, "/x", nil, pipeline.FormBody{V: 42})
	assert.Error(t, err, "unencodable form body accepted")
	r, _ := pipeline.NewRequest(http.MethodGet, "/x", nil, nil)
	assert.False(t, r.StateChanging, "GET marked state-changing")
}

// changelogVersion is the current version CHANGELOG.md names: its first
// "## [x.y.z]" heading (Unreleased comes before it).
func changelogVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindSubmatch(b)
	require.NotNil(t, m, "CHANGELOG.md has no \"## [x.y.z] - date\" heading")
	return string(m[1])
}

// TestVersionIsChangelogs: the User-Agent carries the CHANGELOG's current
// version, and every other module of the repository requires that version
// of the core, with no replace (go.work serves the core to them until it is
// tagged), and is a module of go.work.
func TestVersionIsChangelogs(t *testing.T) {
	current := changelogVersion(t)
	assert.Equal(t, current, version, "config.go's version and CHANGELOG.md's current version differ")

	c, mock, _ := newTestClient(t)
	var ua string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua = req.Header.Get("User-Agent")
		return jsonResponse(200, aboutID(authorizationJSON, "1"))(req)
	})
	_, err := c.Transactions.Get(context.Background(), "1")
	require.NoError(t, err)
	assert.Equal(t, "bankpay-go/"+current, ua)

	work, err := os.ReadFile("go.work")
	require.NoError(t, err)
	// The directories go.work uses: "use ./x" or the lines of "use ( … )".
	uses := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:use\s+)?(\.[^\s()]*)\s*(?://.*)?$`).FindAllSubmatch(work, -1) {
		uses[filepath.Clean(string(m[1]))] = true
	}
	assert.True(t, uses["."], "go.work does not use the core")
	if m := regexp.MustCompile(`(?m)^replace github\.com/bankpay/bankpay-go (v\S+) =>`).FindSubmatch(work); m != nil {
		assert.Equal(t, "v"+current, string(m[1]), "go.work replaces another version of the core than the current one")
	}

	requireCore := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/bankpay/bankpay-go (v\S+)`)
	modules := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" || path == "go.mod" {
			return nil
		}
		modules++
		dir := filepath.Dir(path)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if m := requireCore.FindSubmatch(b); assert.NotNil(t, m, "%s does not require the core", path) {
			assert.Equal(t, "v"+current, string(m[1]), "%s requires another version of the core than CHANGELOG.md's current one", path)
		}
		assert.NotRegexp(t, `(?m)^\s*replace\b`, string(b), "%s has a replace: add the module to go.work instead (CONTRIBUTING.md, Releases)", path)
		assert.True(t, uses[dir], "go.work does not use %s", dir)
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, modules, 3, "the store and example modules were not found")
}

// redirectServer responds every call to a path ending in /deposit or
// /redirected-get with a redirect to /api/v1/transactions/T1, which responses
// an authorization. It records every request it gets.
func redirectServer(t *testing.T, status int) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/api/v1/transactions/T1/deposit", "/api/v1/redirected-get":
			http.Redirect(w, r, "/api/v1/transactions/T1", status)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"transaction":{"transactionId":"T1","transactionType":1,"status":2,"amount":"1.00"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A deposit responded with a redirect must not be followed: a 302/303 would
// turn it into a GET whose response (here the authorization) comes back as if
// it were the deposit, and a 307/308 would send the payout again to another
// address. The caller gets the 3xx as an *APIError, and one request was sent.
func TestStateChangingCallNeverFollowsRedirects(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/ownHTTPClient=%v", status, own), func(t *testing.T) {
				srv, requests := redirectServer(t, status)
				opts := []Option{WithBaseURL(srv.URL + "/api/v1"), WithMaxRetries(0)}
				if own {
					opts = append(opts, WithHTTPClient(&http.Client{})) // Go's default redirect policy
				}
				c, err := NewClient(testCreds, opts...)
				require.NoError(t, err)
				defer func() { _ = c.Close() }()
				tx, err := c.Transactions.Deposit(context.Background(), "T1", &DepositParams{MerchantReference: "r", Amount: "1.00"})
				var ae *APIError
				assert.Nil(t, tx, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status)
				if assert.ErrorAs(t, err, &ae, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status) {
					assert.Equal(t, status, ae.StatusCode, "deposit responded %d: tx %+v, err %v; want an *APIError with status %d", status, tx, err, status)
				}
				got := requests()
				assert.Len(t, got, 1, "requests sent: %q, want the deposit only", got)
			})
		}
	}
}

// The SDK's own HTTP client follows no redirect at all: the API responses
// every call itself, so a 3xx is an error, not another object.
func TestDefaultClientFollowsNoRedirect(t *testing.T) {
	srv, requests := redirectServer(t, http.StatusFound)
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	req, err := pipeline.NewRequest(http.MethodGet, "/redirected-get", nil, nil)
	require.NoError(t, err)
	var out map[string]any
	err = c.do(context.Background(), req, &out, nil)
	var ae *APIError
	if assert.ErrorAs(t, err, &ae, "err = %v, want an *APIError with status 302", err) {
		assert.Equal(t, http.StatusFound, ae.StatusCode, "err = %v, want an *APIError with status 302", err)
	}
	got := requests()
	assert.Len(t, got, 1, "requests sent: %q, want one", got)

	// A caller's own client keeps its redirect policy for reads.
	c, err = NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0), WithHTTPClient(&http.Client{}))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	assert.NoError(t, c.do(context.Background(), req, &out, nil), "GET through the caller's client")
}

// A read redirected to another scheme or host is not followed, whatever
// the caller's client allows: following it would send the Basic
// credentials there (in clear over http). The caller's client is not
// modified, and a redirect on the same scheme and host is still followed.
func TestRedirectElsewhereNotFollowedWithCredentials(t *testing.T) {
	const origin = "https://api.bankpay.test/api/v1/transactions/"
	permissive := func(*http.Request, []*http.Request) error { return nil }
	for _, target := range []string{
		"http://api.bankpay.test/api/v1/transactions/T2",
		"https://evil.example/api/v1/transactions/T2",
		"https://api.bankpay.test:8443/api/v1/transactions/T2",
		"http://127.0.0.1/api/v1/transactions/T2",
		"https://api.bankpay.test/api/v1/transactions/T2", // followed
	} {
		for name, policy := range map[string]func(*http.Request, []*http.Request) error{"default": nil, "permissive": permissive} {
			t.Run(target+"/"+name, func(t *testing.T) {
				mock := httpmock.NewMockTransport()
				var mu sync.Mutex
				var reached []string // URL and Authorization of every request after the first
				mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
					if r.URL.String() == origin+"T1" {
						resp := httpmock.NewStringResponse(http.StatusFound, "")
						resp.Header.Set("Location", target)
						return resp, nil
					}
					mu.Lock()
					reached = append(reached, r.URL.String()+" "+r.Header.Get("Authorization"))
					mu.Unlock()
					return jsonResponse(http.StatusOK, aboutID(faultTxn, "T1"))(r)
				})
				hc := &http.Client{Transport: mock, CheckRedirect: policy}
				c, err := NewClient(testCreds, WithBaseURL(testBaseURL), WithHTTPClient(hc), WithMaxRetries(0))
				require.NoError(t, err)
				tx, err := c.Transactions.Get(context.Background(), "T1")
				if strings.HasPrefix(target, origin) {
					require.NoError(t, err)
					assert.Equal(t, "T1", tx.TransactionID)
					require.Len(t, reached, 1)
				} else {
					var ae *APIError
					require.ErrorAs(t, err, &ae)
					assert.Equal(t, http.StatusFound, ae.StatusCode)
					assert.Empty(t, reached, "the redirect was followed")
				}
				assert.Equal(t, reflect.ValueOf(policy).Pointer(), reflect.ValueOf(hc.CheckRedirect).Pointer(), "the caller's client was modified")
				assert.Equal(t, http.RoundTripper(mock), hc.Transport)
			})
		}
	}
}

// Whatever base URL WithBaseURL takes, a call's URL (the base and a row's
// path) goes to the base's host, at a path ending in the call's, with no
// query or fragment of its own.
func FuzzWithBaseURL(f *testing.F) {
	for _, s := range []string{ProductionBaseURL, "https://api.example.com/api/v1/", "http://[::1]:1/api/v1", "https://h/api/v1?",
		"https://h/a%2Fb/", "https://h/%7E/", "https://h#", "https://h/;x", "HTTPS://H:443//", "https://h/api/v1/#/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cfg := config{target: forClient}
		WithBaseURL(raw)(&cfg)
		if cfg.err != nil || cfg.baseURL == "" {
			return
		}
		given, err := url.Parse(raw)
		require.NoError(t, err)
		u, err := url.Parse(cfg.baseURL + "/transactions/T1")
		require.NoError(t, err, "WithBaseURL(%q)", raw)
		assert.Equal(t, given.Host, u.Host, "WithBaseURL(%q): %s", raw, u)
		assert.True(t, strings.HasSuffix(u.Path, "/transactions/T1") && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "",
			"WithBaseURL(%q): a call's URL is %s", raw, u)
	})
}
