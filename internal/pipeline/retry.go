package pipeline

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Transient reports whether a transport error is worth retrying at all
// (not a bad certificate, a bad URL or too many redirects).
func Transient(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		msg := ue.Err.Error()
		if strings.Contains(msg, "certificate") || strings.Contains(msg, "stopped after") ||
			strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "net/http: invalid header") {
			return false
		}
	}
	return true
}

// RetryAfter reads a Retry-After header in seconds or as an HTTP date.
func RetryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		const year = uint64(365 * 24 * time.Hour / time.Second)
		if err != nil || secs > year {
			secs = year // an absurd value still says "not soon"
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := time.Until(t)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// JitteredBackoff is "equal jitter" exponential backoff: the n-th retry
// (from 0) waits between half and all of min·2ⁿ, capped at max.
func JitteredBackoff(minWait, maxWait time.Duration, n int) time.Duration {
	d := BackoffCeiling(minWait, maxWait, n)
	if d <= 0 {
		return 0
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

// BackoffCeiling is the longest wait of the n-th retry (from 0): min·2ⁿ,
// capped at max.
func BackoffCeiling(minWait, maxWait time.Duration, n int) time.Duration {
	if maxWait <= 0 {
		return 0
	}
	d := minWait
	for i := 0; i < n && d < maxWait; i++ {
		d *= 2
	}
	if d > maxWait || d <= 0 {
		d = maxWait
	}
	return d
}

// NeverSent reports whether err proves the request never reached a server:
// the connection could not be made, or the host could not be resolved.
func NeverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
