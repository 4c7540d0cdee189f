package bankpay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// HTTP/1.1 keep-alive race: the server reads a state-changing request on a
// reused connection and closes it without a response (as an idle timeout
// racing the request does). net/http retries on such a connection by itself
// when it thinks nothing was sent or the request is replayable; the server
// must see the request once, and Sent must be true.
func TestAttackH1KeepAliveCloseStateChangingSentOnce(t *testing.T) {
	for name, body := range map[string]any{"form": formBody{V: struct {
		Amount string `url:"amount"`
	}{"10.00"}}, "none": nil} {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			var mu sync.Mutex
			posts := 0
			go func() {
				for {
					conn, err := ln.Accept()
					if err != nil {
						return
					}
					go func(conn net.Conn) {
						defer conn.Close()
						br := bufio.NewReader(conn)
						for {
							req, err := http.ReadRequest(br)
							if err != nil {
								return
							}
							_, _ = io.Copy(io.Discard, req.Body)
							if req.Method == http.MethodPost {
								mu.Lock()
								posts++
								mu.Unlock()
								return // closed, no response
							}
							fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(faultTxn), faultTxn)
						}
					}(conn)
				}
			}()
			c, err := NewClient(testCreds, WithBaseURL("http://"+ln.Addr().String()+"/api/v1"), WithMaxRetries(3))
			require.NoError(t, err)
			defer func() { _ = c.Close() }()
			_, err = c.Transactions.Get(context.Background(), "T1") // a kept-alive connection
			require.NoError(t, err)
			req, err := newRequest(http.MethodPost, "/transactions/T1/deposit", nil, body)
			require.NoError(t, err)
			err = c.do(context.Background(), req, nil, nil)
			var ne *NetworkError
			require.True(t, errors.As(err, &ne), "err = %v", err)
			assert.True(t, ne.Sent)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, 1, posts, "the server saw the state-changing request more than once")
		})
	}
}
