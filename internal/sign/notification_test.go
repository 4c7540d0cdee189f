package sign

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzNotificationMessage checks NotificationMessage against
// url.QueryUnescape: the same message, and an error exactly when it fails.
func FuzzNotificationMessage(f *testing.F) {
	for _, s := range []string{"", "a=1&b=2", "message=Authorized+by+the+user", "%41%62%2B%2b+%20", "%", "%4", "%4g",
		"a%", "a%2", "%zz", "x=%E2%82%AC", "%00%ff%FF", "++", "a=b%26c%3Dd", "%%41"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := NotificationMessage(body)
		want, werr := url.QueryUnescape(string(body))
		require.Equal(t, werr != nil, err != nil, "NotificationMessage(%q) = %q, %v; url.QueryUnescape = %q, %v", body, got, err, want, werr)
		require.Equal(t, want, got, "NotificationMessage(%q) = %q, %v; url.QueryUnescape = %q, %v", body, got, err, want, werr)
		if werr != nil {
			require.Equal(t, werr.Error(), err.Error(), "error %v, want %v", err, werr)
		}
	})
}
