package bankpaytest

import (
	"net"
	"net/http"
	"strings"
)

// lostResponse is one response LoseResponse has the sandbox lose.
type lostResponse struct {
	method, path string
}

// LoseResponse makes the sandbox lose the response to the next API request
// with method and path (below /api/v1, as the client sends it:
// "/transactions/100000000001001/deposit"): the request is served and
// takes effect, then the connection is reset (a TCP RST; over HTTP/2, the
// stream) instead of the response being written, as when the network fails
// after the service acted. The client sees a network error after sending;
// a bankpay client returns a *bankpay.NetworkError with Sent true. Each
// call loses one response; they are matched in order.
func (s *Server) LoseResponse(method, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.lost = append(s.st.lost, lostResponse{method: strings.ToUpper(method), path: path})
}

// takeLost reports whether the response to r is to be lost, and forgets
// that loss.
func (s *Server) takeLost(r *http.Request) bool {
	path, ok := strings.CutPrefix(r.URL.EscapedPath(), apiPrefix)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.st.lost {
		if l.method == r.Method && l.path == path {
			s.st.lost = append(s.st.lost[:i], s.st.lost[i+1:]...)
			return true
		}
	}
	return false
}

// withFaults serves the requests whose response LoseResponse asked to lose
// into a writer that keeps nothing, then resets the connection.
func (s *Server) withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.takeLost(r) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(discardWriter{header: http.Header{}}, r)
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // RST, not FIN
				}
				_ = c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // HTTP/2: the stream is reset
	})
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}

// controlLoseResponse serves POST /sandbox/loseResponse?method=…&path=….
func (s *Server) controlLoseResponse(r *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	method, path := q.Get("method"), q.Get("path")
	if method == "" || !strings.HasPrefix(path, "/") {
		return nil, badRequest("method and path (below /api/v1, starting with /) are required")
	}
	s.st.lost = append(s.st.lost, lostResponse{method: strings.ToUpper(method), path: path})
	return struct{}{}, nil
}
