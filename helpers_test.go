package bankpay

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCreds are the credentials of every unit test. The key must never show
// up in an error or a log line.
var testCreds = Credentials{AccessID: "test-access-id", AccessKey: NewSecret("s3cret-access-key"), MerchantID: "1002463580"}

const testBaseURL = "https://api.bankpay.test/api/v1"

// newTestClient returns a client whose HTTP transport is a fresh httpmock
// transport (a transport per test, under the retry layer). Retries wait on a
// fake clock: the computed waits are recorded in the returned *waits and not
// slept.
func newTestClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport, *waits) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	all := append([]Option{WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock})}, opts...)
	c, err := NewClient(testCreds, all...)
	require.NoError(t, err, "NewClient: %v", err)
	w := &waits{}
	c.cfg.waitScale = w.record
	return c, mock, w
}

// waits is the fake clock of the retry layer.
type waits struct{ list []time.Duration }

func (w *waits) record(d time.Duration) time.Duration {
	w.list = append(w.list, d)
	return 0
}

// wantRequest is what a test expects the client to send.
type wantRequest struct {
	Method      string
	Path        string // escaped path, with the /api/v1 prefix
	RawQuery    string // exact encoded query ("" for none)
	ContentType string // "" when no body is expected
	Body        string // exact body
}

// expect makes every request to mock be checked against want and responded
// with status and body (JSON content type). It returns the call counter.
func expect(t *testing.T, mock *httpmock.MockTransport, want wantRequest, status int, body string) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		checkRequest(t, req, want)
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	return &n
}

// checkRequest asserts method, path, query, auth, accept, content type and
// the exact body of req.
func checkRequest(t *testing.T, req *http.Request, want wantRequest) {
	t.Helper()
	assert.Equal(t, want.Method, req.Method, "method = %s, want %s", req.Method, want.Method)
	host := req.URL.Scheme + "://" + req.URL.Host
	assert.Equal(t, "https://api.bankpay.test", host, "host = %s", host)
	path := req.URL.EscapedPath()
	assert.Equal(t, want.Path, path, "path = %s, want %s", path, want.Path)
	assert.Equal(t, want.RawQuery, req.URL.RawQuery, "query = %q, want %q", req.URL.RawQuery, want.RawQuery)
	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte(testCreds.AccessID+":"+testCreds.AccessKey.Reveal()))
	auth := req.Header.Get("Authorization")
	assert.Equal(t, wantAuth, auth, "Authorization = %q, want %q", auth, wantAuth)
	accept := req.Header.Get("Accept")
	assert.Equal(t, "application/json", accept, "Accept = %q", accept)
	assert.True(t, strings.HasPrefix(req.Header.Get("User-Agent"), "bankpay-go/"), "User-Agent = %q", req.Header.Get("User-Agent"))
	ct := req.Header.Get("Content-Type")
	assert.Equal(t, want.ContentType, ct, "Content-Type = %q, want %q", ct, want.ContentType)
	var got []byte
	if req.Body != nil {
		got, _ = io.ReadAll(req.Body)
	}
	assert.Equal(t, want.Body, string(got), "body =\n  %s\nwant\n  %s", got, want.Body)
}

// expectNoRequest fails the test if the client sends anything.
func expectNoRequest(t *testing.T, mock *httpmock.MockTransport) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		assert.Failf(t, "unexpected request", "unexpected request %s %s", req.Method, req.URL)
		return httpmock.NewStringResponse(500, ""), nil
	})
	return &n
}

// sequence responses successive requests with the given responders, and fails
// the test if more requests come than responders.
func sequence(t *testing.T, mock *httpmock.MockTransport, rs ...httpmock.Responder) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		if !assert.Less(t, i, len(rs), "request %d not expected: %s %s", i+1, req.Method, req.URL.Path) {
			return httpmock.NewStringResponse(500, ""), nil
		}
		return rs[i](req)
	})
	return &n
}

// jsonResponse is a responder with a JSON body and optional headers (k, v, k, v…).
func jsonResponse(status int, body string, headers ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			resp.Header.Set(headers[i], headers[i+1])
		}
		return resp, nil
	}
}

// assertNoSecret fails if s contains the access key.
func assertNoSecret(t *testing.T, s string) {
	t.Helper()
	assert.NotContains(t, s, testCreds.AccessKey.Reveal(), "secret access key leaked in %q", s)
}

// isValidation reports whether err is a *ValidationError.
func isValidation(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
