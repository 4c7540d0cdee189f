package bankpaytest

import (
	"net/http"
	"path"
	"strings"
)

const (
	apiPrefix     = "/api/v1"
	controlPrefix = "/sandbox"
)

// handlerFunc serves one route for the authenticated merchant m; id is the
// pattern's {id} (empty when it has none). It returns the response body
// (always 200) or an error response.
type handlerFunc func(s *Server, r *http.Request, body []byte, m *merchant, id string) (any, *Error)

// route is one endpoint: an http.ServeMux pattern below its prefix, the
// encoding its body must have, whether its handler runs with s.mu held,
// and the handler.
type route struct {
	pattern string // "METHOD /path", Go 1.22 pattern syntax
	body    bodyKind
	locked  bool
	fn      handlerFunc
}

// apiRoutes are the service's endpoints, below /api/v1. Every one runs
// with s.mu held.
var apiRoutes = []route{
	{"POST /establish", bodyJSON, true, (*Server).handleEstablish},
	{"GET /transactions/{id}", bodyNone, true, (*Server).handleGetTransaction},
	{"POST /transactions/{id}/deposit", bodyForm, true, (*Server).handleDeposit},
	{"POST /transactions/{id}/capture", bodyForm, true, (*Server).handleCapture},
	{"POST /transactions/{id}/capture/preAuth", bodyAny, true, (*Server).handlePreauthorize},
	{"POST /transactions/{id}/refund", bodyJSON, true, (*Server).handleRefund},
	{"POST /transactions/{id}/reclaim", bodyJSON, true, (*Server).handleReclaim},
	{"POST /transactions/{id}/cancel", bodyJSON, true, (*Server).handleCancel},
	{"POST /transactions/{id}/refresh", bodyJSON, true, (*Server).handleRefresh},
	{"GET /transactions/{id}/payment/paymentProvider/account/balance", bodyNone, true, (*Server).handleBalance},
	{"GET /transactions/{id}/payment/paymentProvider/user", bodyNone, true, (*Server).handleBankUser},
	{"GET /transactions/{id}/accountSummary", bodyNone, true, (*Server).handleSummary},
	{"GET /transactions/{id}/user", bodyNone, true, (*Server).handleIdentityUser},
	{"GET /transactions/{id}/user/detail", bodyNone, true, (*Server).handleIdentityDetail},
	{"POST /transactions/{id}/feedback", bodyJSON, true, (*Server).handleFeedback},
	{"POST /customers", bodyJSON, true, (*Server).handleCustomerByExternalID},
	{"POST /customers/{id}", bodyJSON, true, (*Server).handleCustomerByID},
	{"GET /customers", bodyNone, true, (*Server).handleListCustomers},
	{"GET /customers/{id}", bodyNone, true, (*Server).handleGetCustomer}, // and /customers/lookup
	{"POST /accounts/tokenize", bodyJSON, true, (*Server).handleTokenize},
	{"GET /countries", bodyNone, true, (*Server).handleCountries},
	{"GET /paymentProviders", bodyNone, true, (*Server).handleProviders},
	{"POST /collections/recovery/dispute", bodyJSON, true, (*Server).handleDispute},
	{"POST /accounts/verify", bodyJSON, true, (*Server).handleVerifyAccount},
	{"POST /feedback", bodyJSON, true, (*Server).handleAccountFeedback},
	{"GET /transactions/{id}/payment/paymentProvider/accounts", bodyNone, true, (*Server).handleSelectedAccounts},
	{"GET /transactions/{id}/payment/customer/verify", bodyNone, true, (*Server).handleCustomerVerify},
	{"GET /transactions", bodyNone, true, (*Server).handleListTransactions},
	{"GET /payments", bodyNone, true, (*Server).handleListPayments},
	{"GET /payments/{id}", bodyNone, true, (*Server).handleGetPayment},
}

// newMux routes the API below /api/v1 and the control endpoints below
// /sandbox. A path a route knows with another method gets 405/200 with
// Allow, an unknown path 404/200; both after authentication, as the
// service does. Outside the two prefixes every path is 404/200.
// A path that is not clean ("//", "/./", "/../") is unknown too, never
// redirected as http.ServeMux would.
func (s *Server) newMux() http.Handler {
	mux := http.NewServeMux()
	s.mount(mux, apiPrefix, apiRoutes)
	s.mount(mux, controlPrefix, controlRoutes)
	mux.HandleFunc(controlPrefix, s.unknown)
	outside := func(w http.ResponseWriter, _ *http.Request) { writeError(w, notFound("resource")) }
	mux.HandleFunc(apiPrefix, outside)
	mux.HandleFunc("/", outside)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		if clean != p {
			if strings.HasPrefix(p, apiPrefix+"/") || strings.HasPrefix(p, controlPrefix+"/") {
				s.unknown(w, r)
			} else {
				outside(w, r)
			}
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// mount registers routes below prefix: each pattern, its path without a
// method (405 for the other methods) and prefix+"/" (404).
func (s *Server) mount(mux *http.ServeMux, prefix string, routes []route) {
	allow := map[string][]string{}
	var paths []string
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.Handle(method+" "+prefix+path, s.serve(rt, method))
		if allow[path] == nil {
			paths = append(paths, path)
		}
		allow[path] = append(allow[path], method)
	}
	for _, path := range paths {
		methods := strings.Join(allow[path], ", ")
		mux.HandleFunc(prefix+path, func(w http.ResponseWriter, r *http.Request) { s.refuse(w, r, methodNotAllowed(), methods) })
	}
	mux.HandleFunc(prefix+"/", s.unknown)
}

// readRequestBody reads the body of a request that may have one, before
// any lock is taken.
func (s *Server) readRequestBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil, nil
	}
	return readBody(r, s.maxBody)
}

// serve is the handler of route rt: read the body, authenticate, check the
// method (a GET pattern also matches HEAD) and Content-Type, run rt.fn.
func (s *Server) serve(rt route, method string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := s.readRequestBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		m, err := s.authenticate(r)
		if !rt.locked {
			s.mu.Unlock()
		}
		var out any
		switch {
		case err != nil:
		case r.Method != method:
			w.Header().Set("Allow", method)
			err = methodNotAllowed()
		default:
			if err = checkContentType(r, rt.body); err == nil {
				out, err = rt.fn(s, r, body, m, r.PathValue("id"))
			}
		}
		if rt.locked {
			s.mu.Unlock()
		}
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// refuse responds with e (after reading the body and authenticating, as a route
// would: 413 or 401 first), with Allow set to allow when not empty.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, e *Error, allow string) {
	if _, err := s.readRequestBody(r); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	_, err := s.authenticate(r)
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	if allow != "" {
		w.Header().Set("Allow", allow)
	}
	writeError(w, e)
}

func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	s.refuse(w, r, notFound("resource"), "")
}

func methodNotAllowed() *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: codeInvalidParameter, Message: "method not allowed"}
}
