package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// requestRecorder is a control client that records the URLs it is asked
// to send to and answers 200 {} without dialling.
type requestRecorder struct {
	mu   sync.Mutex
	urls []string
}

func (r *requestRecorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
}

func (r *requestRecorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// TestSandboxOnlyCommandsRefusePlainHTTPElsewhere: with BANKPAY_SANDBOX=1
// a sandbox-only command against a host that is not loopback over plain
// http:// would send the merchant's key in the clear: exit 2, nothing
// sent. Over https://, or http:// to a loopback address, it is sent.
func TestSandboxOnlyCommandsRefusePlainHTTPElsewhere(t *testing.T) {
	commands := [][]string{
		{"trigger", "Complete"}, {"events", "list"}, {"events", "resend", "1", "-to", "http://localhost:8080/"},
		{"listen", "-forward-to", "http://localhost:8080/events"},
	}
	for base, refused := range map[string]bool{
		"http://sandbox.example:8089/api/v1": true,
		"http://192.0.2.7/api/v1":            true,
		"HTTP://[2001:db8::1]:8089/api/v1":   true,
		"https://sandbox.example/api/v1":     false,
		"http://127.0.0.1:8089/api/v1":       false,
		"http://localhost:8089/api/v1":       false,
	} {
		for _, args := range commands {
			if !refused && args[0] == "listen" {
				continue // it follows the events until stopped
			}
			rec := &requestRecorder{}
			var out, errOut bytes.Buffer
			e := &env{getenv: func(k string) string {
				return map[string]string{"BANKPAY_ACCESS_ID": "sbx-id", "BANKPAY_ACCESS_KEY": "sbx-key-7Qm2",
					"BANKPAY_MERCHANT_ID": "1002463580", "BANKPAY_BASE_URL": base, "BANKPAY_SANDBOX": "1"}[k]
			}, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, ctlHTTP: rec}
			code := run(context.Background(), args, e)
			if refused {
				assert.Equal(t, exitUsage, code, "%s %v: %s", base, args, errOut.String())
				assert.Contains(t, errOut.String(), "plain http://", "%s %v", base, args)
				assert.Contains(t, errOut.String(), "nothing was sent", "%s %v", base, args)
				assert.NotContains(t, errOut.String(), "sbx-key-7Qm2")
				assert.Empty(t, rec.sent(), "%s %v: sent", base, args)
				continue
			}
			assert.NotEqual(t, exitUsage, code, "%s %v: %s", base, args, errOut.String())
			assert.NotEmpty(t, rec.sent(), "%s %v: nothing sent", base, args)
		}
	}
}
