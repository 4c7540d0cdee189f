package pipeline

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzRetryAfterCap: a huge Retry-After is never waited for: the retry
// rule stops (the retry half of the root's FuzzErrorBody, whose seeds it
// shares).
func FuzzRetryAfterCap(f *testing.F) {
	f.Add(uint16(502), "120")
	f.Add(uint16(500), "86400")
	f.Add(uint16(503), "Wed, 21 Oct 2099 07:28:00 GMT")
	f.Add(uint16(429), "99999999999999999999")
	f.Add(uint16(404), "-1")
	f.Add(uint16(500), "0")
	const maxRetryAfter = 30 * time.Second // the SDK's default cap
	f.Fuzz(func(t *testing.T, status uint16, retryAfterHeader string) {
		st := 400 + int(status)%200 // 400 to 599
		resp := &http.Response{StatusCode: st, Header: http.Header{}}
		if retryAfterHeader != "" {
			resp.Header.Set("Retry-After", retryAfterHeader)
		}
		if d, ok := RetryAfter(resp); ok && d > maxRetryAfter && st == 503 {
			a := &Call{cfg: Config{MaxRetryAfter: maxRetryAfter}, retryAll: true, count: 1}
			retry, _ := a.checkRetry(context.Background(), resp, nil)
			require.False(t, retry, "retry after a Retry-After of %v", d)
		}
	})
}
