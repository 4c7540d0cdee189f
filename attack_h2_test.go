package bankpay

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/faultinject"
)

// A state-changing request without a body (a POST or DELETE through
// NewRequest/Do, or a form body that encodes to nothing) is replayed by Go's
// HTTP/2 transport on a stream reset with PROTOCOL_ERROR whatever GetBody
// says: a nil body is always "rewindable". The server must see it once.
func TestAttackH2ResetBodylessPostSentOnce(t *testing.T) {
	for name, body := range map[string]any{"nil": nil, "emptyForm": formBody{V: struct{}{}}} {
		t.Run(name, func(t *testing.T) {
			s := faultinject.NewH2Server(faultinject.H2Reset())
			defer s.Close()
			c := newH2Client(t, s)
			req, err := newRequest(http.MethodPost, "/transactions/T1/cancel", nil, body)
			require.NoError(t, err)
			require.True(t, req.StateChanging)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			err = c.do(ctx, req, nil, nil)
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent, "the request reached the server: Sent must be true")
			assert.Equal(t, 1, ne.Attempts)
			assert.Equal(t, 1, len(s.Streams()), "the server saw the state-changing request more than once")
		})
	}
}
