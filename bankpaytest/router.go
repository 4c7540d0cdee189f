package bankpaytest

import (
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/bankpay/bankpay-go/internal/ops"
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

// apiRoute routes one operation of the SDK's table (internal/ops): its
// method and path, whose {name} segment the handler gets as id; the
// encoding its body must have; its handler, run with s.mu held. A route
// of the API without its row cannot be written: the row is the route.
type apiRoute struct {
	op   *ops.Op
	body bodyKind
	fn   handlerFunc
}

// apiRoutes are the service's endpoints, below /api/v1, one a pattern:
// two rows with one method and path share a route (Customers.Create and
// UpdateByExternalID: POST /customers). TestAPIRoutesServeEveryRow checks
// that every row reaches its route.
var apiRoutes = []apiRoute{
	{ops.TransactionsEstablish, bodyJSON, (*Server).handleEstablish},
	{ops.TransactionsGet, bodyNone, (*Server).handleGetTransaction},
	{ops.TransactionsDeposit, bodyForm, (*Server).handleDeposit},
	{ops.TransactionsCapture, bodyForm, (*Server).handleCapture},
	{ops.TransactionsPreauthorize, bodyAny, (*Server).handlePreauthorize},
	{ops.TransactionsRefund, bodyJSON, (*Server).handleRefund},
	{ops.TransactionsReclaim, bodyJSON, (*Server).handleReclaim},
	{ops.TransactionsCancel, bodyJSON, (*Server).handleCancel},
	{ops.TransactionsRefresh, bodyJSON, (*Server).handleRefresh},
	{ops.AccountsBalance, bodyNone, (*Server).handleBalance},
	{ops.AccountsUser, bodyNone, (*Server).handleBankUser},
	{ops.AccountsSummary, bodyNone, (*Server).handleSummary},
	{ops.IdentityUser, bodyNone, (*Server).handleIdentityUser},
	{ops.IdentityDetail, bodyNone, (*Server).handleIdentityDetail},
	{ops.IdentityFeedback, bodyJSON, (*Server).handleFeedback},
	{ops.CustomersCreate, bodyJSON, (*Server).handleCustomerByExternalID}, // and UpdateByExternalID
	{ops.CustomersUpdate, bodyJSON, (*Server).handleCustomerByID},
	{ops.CustomersList, bodyNone, (*Server).handleListCustomers},
	{ops.CustomersGet, bodyNone, (*Server).handleGetCustomer},
	{ops.CustomersLookup, bodyNone, (*Server).handleLookupCustomer},
	{ops.AccountsTokenize, bodyJSON, (*Server).handleTokenize},
	{ops.CountriesList, bodyNone, (*Server).handleCountries},
	{ops.PaymentProvidersList, bodyNone, (*Server).handleProviders},
	{ops.DisputesCreate, bodyJSON, (*Server).handleDispute},
	{ops.AccountsVerify, bodyJSON, (*Server).handleVerifyAccount},
	{ops.AccountsFeedback, bodyJSON, (*Server).handleAccountFeedback},
	{ops.AccountsListSelected, bodyNone, (*Server).handleSelectedAccounts},
	{ops.IdentityCustomerVerification, bodyNone, (*Server).handleCustomerVerify},
	{ops.TransactionsList, bodyNone, (*Server).handleListTransactions},
	{ops.PaymentsList, bodyNone, (*Server).handleListPayments},
	{ops.PaymentsGet, bodyNone, (*Server).handleGetPayment},
}

// pathParam is a {name} segment of a row's path.
var pathParam = regexp.MustCompile(`\{[A-Za-z]+\}`)

// routes are the API's routes as mount takes them: each row's method and
// path, its {name} segment as {id}.
func routes(api []apiRoute) []route {
	out := make([]route, len(api))
	for i, a := range api {
		out[i] = route{a.op.Method + " " + pathParam.ReplaceAllString(a.op.Path, "{id}"), a.body, true, a.fn}
	}
	return out
}

// newMux routes the API below /api/v1 and the control endpoints below
// /sandbox. A path a route knows with another method gets 405/200 with
// Allow, an unknown path 404/200; both after authentication, as the
// service does. Outside the two prefixes every path is 404/200.
// A path that is not clean ("//", "/./", "/../") is unknown too, never
// redirected as http.ServeMux would.
func (s *Server) newMux() http.Handler {
	mux := http.NewServeMux()
	s.mount(mux, apiPrefix, routes(apiRoutes))
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

// mount registers routes below prefix, and prefix+"/" for every other
// path and method: 405 with Allow for a path a route serves with other
// methods, 404 for an unknown one.
func (s *Server) mount(mux *http.ServeMux, prefix string, routes []route) {
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.Handle(method+" "+prefix+path, s.serve(rt, method))
	}
	mux.HandleFunc(prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(mux, prefix, routes, r); allow != "" {
			s.refuse(w, r, methodNotAllowed(), allow)
			return
		}
		s.unknown(w, r)
	})
}

// allowed lists the methods, in the order of routes, whose route serves
// r's path ("" for none).
func allowed(mux *http.ServeMux, prefix string, routes []route, r *http.Request) string {
	var methods []string
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, p := mux.Handler(probe); p == method+" "+prefix+path && !slices.Contains(methods, method) {
			methods = append(methods, method)
		}
	}
	return strings.Join(methods, ", ")
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
