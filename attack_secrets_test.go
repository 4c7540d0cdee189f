package bankpay

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A proxy or server that echoes the access key in forms the redaction did
// not know: hex (a request dump), or cut at its start rather than at its
// end ("…" + the key's tail, as a log line clipped from the left shows it).
func TestAttackEchoedKeyHexAndTail(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-echo-tests-ABCDEFGH"), MerchantID: "1002463580"}
	key := creds.AccessKey.Reveal()
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}), WithMaxRetries(0))
	require.NoError(t, err)
	for name, echo := range map[string]string{
		"hex":       hex.EncodeToString([]byte(key)),
		"HEX":       strings.ToUpper(hex.EncodeToString([]byte(key))),
		"tail":      "…" + key[len(key)-20:],
		"hexOfTail": hex.EncodeToString([]byte(key[len(key)-12:])),
	} {
		t.Run(name, func(t *testing.T) {
			sequence(t, mock, jsonResponse(502, `<html>upstream said: `+echo+` for amount 100.00</html>`))
			_, err := c.Transactions.Get(context.Background(), "1")
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Contains(t, ae.Body, "for amount 100.00", "the rest stays readable")
			bare := strings.TrimPrefix(echo, "…")
			for i := 0; i+minEcho <= len(bare); i++ {
				require.NotContains(t, ae.Body, bare[i:i+minEcho])
				require.NotContains(t, err.Error(), bare[i:i+minEcho])
			}
		})
	}
}
