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
	body   bodyKind
	fn     handlerFunc
}

// apiRoutes maps a path below /api/v1, with the id segment written {id}, to
// its handler.
var apiRoutes = map[string]route{
	"establish":                 {http.MethodPost, bodyJSON, (*Server).handleEstablish},
	"transactions/{id}":         {http.MethodGet, bodyNone, (*Server).handleGetTransaction},
	"transactions/{id}/deposit": {http.MethodPost, bodyForm, (*Server).handleDeposit},
	"transactions/{id}/capture": {http.MethodPost, bodyForm, (*Server).handleCapture},
	"transactions/{id}/payment/paymentProvider/account/balance": {http.MethodGet, bodyNone, (*Server).handleBalance},
	"transactions/{id}/payment/paymentProvider/user":            {http.MethodGet, bodyNone, (*Server).handleBankUser},
	"transactions/{id}/accountSummary":                          {http.MethodGet, bodyNone, (*Server).handleSummary},
	"transactions/{id}/user":                                    {http.MethodGet, bodyNone, (*Server).handleIdentityUser},
	"transactions/{id}/user/detail":                             {http.MethodGet, bodyNone, (*Server).handleIdentityDetail},
	"transactions/{id}/feedback":                                {http.MethodPost, bodyJSON, (*Server).handleFeedback},
	"customers":                                                 {http.MethodPost, bodyJSON, (*Server).handleCustomerByExternalID},
	"customers/{id}":                                            {http.MethodPost, bodyJSON, (*Server).handleCustomerByID},
	"accounts/tokenize":                                         {http.MethodPost, bodyJSON, (*Server).handleTokenize},
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
		if err = checkContentType(r, rt.body); err == nil {
			out, err = rt.fn(s, r, body, m, id)
		}
	}
	s.mu.Unlock()

	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
