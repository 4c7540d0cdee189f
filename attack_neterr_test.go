package bankpay

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hostile server (or proxy) that responds with a malformed status line
// quoting what the client sent: net/http puts the server's bytes in its
// error ("malformed HTTP response \"…\""), and a NetworkError must not
// carry the access key or the Authorization header out in its text.
func TestAttackNetworkErrorEchoRedacted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn net.Conn) {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				auth := req.Header.Get("Authorization")
				pair, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
				_, key, _ := strings.Cut(string(pair), ":")
				if strings.HasSuffix(req.URL.Path, "/status") {
					fmt.Fprintf(conn, "HTTP/1.1 %s\r\n\r\n", key)
					return
				}
				fmt.Fprintf(conn, "%s %s\r\n\r\n", auth, key)
			}(conn)
		}
	}()
	c, err := NewClient(testCreds, WithBaseURL("http://"+ln.Addr().String()+"/api/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	for _, path := range []string{"/echo/line", "/echo/status"} {
		req, err := newRequest(http.MethodGet, path, nil, nil)
		require.NoError(t, err)
		err = c.do(context.Background(), req, nil, nil)
		var ne *NetworkError
		require.True(t, errors.As(err, &ne), "err = %v", err)
		key := testCreds.AccessKey.Reveal()
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%v", ne.Err)} {
			assert.NotContains(t, text, key[:minEcho], path)
			assert.NotContains(t, text, c.secrets.authHeader()[6:6+minEcho], path)
		}
		assert.True(t, errors.Is(err, ne.Err), "the cause stays matchable")
	}
}
