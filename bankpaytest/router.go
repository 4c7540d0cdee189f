package bankpaytest

import (
	"net/http"
	"strings"
)

const (
	apiPrefix     = "/api/v1"
	controlPrefix = "/sandbox"
)

// handlerFunc serves one API route for the authenticated merchant m; id is
// the path's {id} segment. It runs with s.mu held and returns the answer
// body (always 200) or an error answer.
type handlerFunc func(s *Server, r *http.Request, body []byte, m *merchant, id string) (any, *Error)

type route struct {
	method string
	fn     handlerFunc
}

// apiRoutes maps a path below /api/v1, with the id segment written {id}, to
// its handler.
var apiRoutes = map[string]route{
	"establish":                 {http.MethodPost, (*Server).handleEstablish},
	"transactions/{id}":         {http.MethodGet, (*Server).handleGetTransaction},
	"transactions/{id}/deposit": {http.MethodPost, (*Server).handleDeposit},
	"transactions/{id}/capture": {http.MethodPost, (*Server).handleCapture},
	"transactions/{id}/payment/paymentProvider/account/balance": {http.MethodGet, (*Server).handleBalance},
	"transactions/{id}/payment/paymentProvider/user":            {http.MethodGet, (*Server).handleBankUser},
	"transactions/{id}/accountSummary":                          {http.MethodGet, (*Server).handleSummary},
	"transactions/{id}/user":                                    {http.MethodGet, (*Server).handleIdentityUser},
	"transactions/{id}/user/detail":                             {http.MethodGet, (*Server).handleIdentityDetail},
	"transactions/{id}/feedback":                                {http.MethodPost, (*Server).handleFeedback},
	"customers":                                                 {http.MethodPost, (*Server).handleCustomerByExternalID},
	"customers/{id}":                                            {http.MethodPost, (*Server).handleCustomerByID},
	"accounts/tokenize":                                         {http.MethodPost, (*Server).handleTokenize},
}

// splitRoute turns "transactions/123/deposit" into the route key
// "transactions/{id}/deposit" and the id "123".
func splitRoute(p string) (key, id string) {
	for _, coll := range [...]string{"transactions/", "customers/"} {
		if !strings.HasPrefix(p, coll) {
			continue
		}
		rest := p[len(coll):]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return coll + "{id}", rest
		}
		return coll + "{id}" + rest[i:], rest[:i]
	}
	return p, ""
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == controlPrefix || strings.HasPrefix(p, controlPrefix+"/"):
		s.serveControl(w, r)
		return
	case !strings.HasPrefix(p, apiPrefix+"/"):
		writeError(w, notFound("resource"))
		return
	}
	key, id := splitRoute(p[len(apiPrefix)+1:])
	rt, known := apiRoutes[key]
	if known && id == "" && strings.Contains(key, "{id}") {
		known = false
	}

	// Read the body before taking the lock.
	var body []byte
	if r.Body != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		b, err := readBody(r, s.maxBody)
		if err != nil {
			writeError(w, err)
			return
		}
		body = b
	}

	s.mu.Lock()
	m, aerr := s.authenticate(r)
	var (
		out any
		err *Error
	)
	switch {
	case aerr != nil:
		err = aerr
	case !known:
		err = notFound("resource")
	case r.Method != rt.method:
		w.Header().Set("Allow", rt.method)
		err = &Error{Status: http.StatusMethodNotAllowed, Code: CodeInvalidParameter, Message: "method not allowed"}
	default:
		out, err = rt.fn(s, r, body, m, id)
	}
	s.mu.Unlock()

	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
