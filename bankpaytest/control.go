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

// nowResponse is the response of /sandbox/now and /sandbox/advance: the
// sandbox's clock, which dates the events it sends. A webhook handler under
// test against a standalone sandbox follows it (the handler refuses events
// dated over 5 minutes ahead of its own clock): RemoteClock reads it.
type nowResponse struct {
	Now  models.EpochMillis `json:"now"`
	Time string             `json:"time"`
}

func (s *Server) nowResponse() nowResponse {
	t := s.Now()
	return nowResponse{Now: epochMillis(t), Time: t.Format(time.RFC3339Nano)}
}

// controlRoutes are the sandbox's control endpoints, below /sandbox. Their
// bodies are read as sent (bodyAny).
var controlRoutes = []route{
	{"GET /now", bodyAny, false, func(s *Server, _ *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
		return s.nowResponse(), nil
	}},
	{"POST /advance", bodyAny, false, (*Server).controlAdvance},
	{"POST /flush", bodyAny, false, (*Server).controlFlush},
	{"GET /events", bodyAny, false, (*Server).controlEvents},
	{"POST /events/{id}/resend", bodyAny, false, (*Server).controlResend},
	{"DELETE /listeners/{id}", bodyAny, false, (*Server).controlUnlisten},
	{"POST /trigger", bodyAny, false, (*Server).controlTrigger},
	{"POST /authorize", bodyAny, true, (*Server).controlAuthorize},
	{"GET /customers", bodyAny, true, (*Server).controlCustomer},
	{"GET /transactions/{id}/feedback", bodyAny, true, (*Server).controlFeedback},
	{"POST /transactions/{id}/deny", bodyAny, true, (*Server).controlDeny},
	{"POST /transactions/{id}/reverse", bodyAny, true, (*Server).controlReverse},
	{"POST /transactions/{id}/dispute", bodyAny, true, (*Server).controlDispute},
	{"POST /loseResponse", bodyAny, true, (*Server).controlLoseResponse},
}

func (s *Server) controlFlush(r *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
	if err := s.Flush(r.Context()); err != nil {
		return nil, &Error{Status: http.StatusServiceUnavailable, Code: codeInternal, Message: "flush interrupted"}
	}
	return struct{}{}, nil
}

func (s *Server) controlAdvance(r *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
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
	return s.nowResponse(), nil
}

// controlCustomer serves GET /sandbox/customers?externalId=…|customerId=….
func (s *Server) controlCustomer(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
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

// controlFeedback serves GET /sandbox/transactions/{id}/feedback.
func (s *Server) controlFeedback(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	return struct {
		Feedback []wire.Feedback `json:"feedback"`
	}{append([]wire.Feedback{}, t.feedback...)}, nil
}

func (s *Server) controlDeny(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	return s.controlHook(m, id, s.denyLocked)
}

func (s *Server) controlReverse(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	return s.controlHook(m, id, s.reverseLocked)
}

// controlHook runs test hook fn (Deny, Reverse) on merchant m's
// transaction id and responds with the transaction.
func (s *Server) controlHook(m *merchant, id string, fn func(string) error) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	if herr := fn(id); herr != nil {
		if errors.Is(herr, ErrUnknownTransaction) {
			return nil, notFound("transaction")
		}
		return nil, badRequest("%s", strings.TrimPrefix(herr.Error(), "bankpaytest: "))
	}
	return wire.TransactionEnvelope{Transaction: t.view()}, nil
}
