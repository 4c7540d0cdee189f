package bankpaytest

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// The control endpoints are listed in the package documentation (doc.go).

// nowAnswer is the answer of /sandbox/now and /sandbox/advance.
type nowAnswer struct {
	Now  models.EpochMillis `json:"now"`
	Time string             `json:"time"`
}

func (s *Server) nowAnswer() nowAnswer {
	t := s.Now()
	return nowAnswer{Now: models.NewEpochMillis(t), Time: t.Format(time.RFC3339Nano)}
}

func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		b, err := readBody(r, s.maxBody)
		if err != nil {
			writeError(w, err)
			return
		}
		body = b
	}
	s.mu.Lock()
	m, err := s.authenticate(r)
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	p := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, controlPrefix), "/")
	key, id := splitRoute(p)
	method := http.MethodPost
	var out any
	switch key {
	case "now", "events", "customers", "transactions/{id}/feedback":
		method = http.MethodGet
	case "advance", "flush", "authorize", "transactions/{id}/deny", "transactions/{id}/reverse":
	default:
		writeError(w, notFound("resource"))
		return
	}
	if r.Method != method {
		w.Header().Set("Allow", method)
		writeError(w, &Error{Status: http.StatusMethodNotAllowed, Code: CodeInvalidParameter, Message: "method not allowed"})
		return
	}
	switch key {
	case "now":
		out = s.nowAnswer()
	case "advance":
		out, err = s.controlAdvance(r)
	case "flush":
		if ferr := s.Flush(r.Context()); ferr != nil {
			err = &Error{Status: http.StatusServiceUnavailable, Code: CodeInternal, Message: "flush interrupted"}
		}
		out = struct{}{}
	case "events":
		out = s.controlEvents(m, r.URL.Query().Get("transactionId"))
	default:
		s.mu.Lock()
		out, err = s.controlLocked(key, r, body, m, id)
		s.mu.Unlock()
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) controlAdvance(r *http.Request) (any, *Error) {
	q := r.URL.Query()
	switch {
	case q.Get("d") != "":
		d, err := time.ParseDuration(q.Get("d"))
		if err != nil || d < 0 {
			return nil, badRequest("d must be a non-negative duration, like 72h")
		}
		s.Advance(d)
	case q.Get("bankingDays") != "":
		n, err := strconv.Atoi(q.Get("bankingDays"))
		if err != nil || n < 0 {
			return nil, badRequest("bankingDays must be a non-negative integer")
		}
		s.AdvanceBankingDays(n)
	default:
		return nil, badRequest("d or bankingDays is required")
	}
	return s.nowAnswer(), nil
}

func (s *Server) controlEvents(m *merchant, txnID string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Event{}
	for _, e := range s.st.events {
		if e.pub.MerchantID == m.cfg.MerchantID && (txnID == "" || e.pub.TransactionID == txnID) {
			out = append(out, e.snapshot())
		}
	}
	return struct {
		Events []Event `json:"events"`
	}{out}
}

// controlLocked serves the control endpoints that run with s.mu held.
func (s *Server) controlLocked(key string, r *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	switch key {
	case "authorize":
		return s.controlAuthorize(r, body, m, id)
	case "customers":
		q := r.URL.Query()
		var rec *customerRecord
		if ext := q.Get("externalId"); ext != "" {
			rec = m.byExternal[ext]
		} else if cid := q.Get("customerId"); cid != "" {
			rec = m.customers[cid]
		} else {
			return nil, badRequest("externalId or customerId is required")
		}
		if rec == nil {
			return nil, notFound("customer")
		}
		c := copyCustomer(&rec.c)
		return wire.CustomerEnvelope{Customer: &c}, nil
	}
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	switch key {
	case "transactions/{id}/feedback":
		return struct {
			Feedback []wire.Feedback `json:"feedback"`
		}{append([]wire.Feedback{}, t.feedback...)}, nil
	case "transactions/{id}/deny", "transactions/{id}/reverse":
		var herr error
		if key == "transactions/{id}/deny" {
			herr = s.denyLocked(id)
		} else {
			herr = s.reverseLocked(id)
		}
		if herr != nil {
			if errors.Is(herr, ErrNotFound) {
				return nil, notFound("transaction")
			}
			return nil, badRequest("%s", strings.TrimPrefix(herr.Error(), "bankpaytest: "))
		}
		return wire.TransactionEnvelope{Transaction: t.view()}, nil
	}
	return nil, notFound("resource")
}
