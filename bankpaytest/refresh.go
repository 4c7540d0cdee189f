package bankpaytest

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// RefreshDelay is how long after POST /transactions/{id}/refresh the
// sandbox sends the Refresh event.
const RefreshDelay = time.Second

// newSplitToken returns a split token as the Authorize event carries it:
// Base64 with '+', '/' and '=' likely, so that a client that does not
// encode it breaks.
func newSplitToken() string {
	b := make([]byte, 22) // 30 characters: two of padding
	if _, err := rand.Read(b); err != nil {
		panic("bankpaytest: reading random bytes: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(b)
}

func invalidSplitToken() *Error {
	return &Error{Status: http.StatusBadRequest, Code: codeInvalidSplit, Message: "invalid split token"}
}

// refreshRequest is the JSON body of a refresh.
type refreshRequest struct {
	SplitToken string `json:"splitToken"`
}

// handleRefresh serves POST /transactions/{id}/refresh (JSON: splitToken,
// required, the one of the authorization's Authorize event; another
// responds with 400/380) for an Authorized authorization or
// preauthorization. It responds {"refresh":{"processId":…}} (the OpenAPI's
// shape, in both response modes) and sends a Refresh event (hardRefresh
// true, success true) RefreshDelay later.
func (s *Server) handleRefresh(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	var req refreshRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	auth := t
	switch t.rec.TransactionType {
	case models.TypeAuthorize:
	case models.TypePreauthorization:
		auth = t.parent
	default:
		return nil, badRequest("only an authorization or a preauthorization is refreshed")
	}
	if req.SplitToken == "" {
		return nil, badRequest("splitToken is required")
	}
	if auth.splitToken == "" || req.SplitToken != auth.splitToken {
		return nil, invalidSplitToken()
	}
	if t.rec.Status != models.StatusAuthorized {
		return nil, badRequest("the %s is %s, not Authorized", kindName(t), t.rec.Status)
	}
	s.schedule(&timer{at: s.st.now.Add(RefreshDelay), kind: timerRefresh, t: t})
	return wire.RefreshEnvelope{Refresh: &wire.RefreshProcess{ProcessID: randomHex(12)}}, nil
}

// finishRefresh sends the Refresh event of t: success unless t is no
// longer Authorized. The caller holds s.mu.
func (s *Server) finishRefresh(t *txn) {
	ok := "true"
	if t.rec.Status != models.StatusAuthorized {
		ok = "false"
	}
	s.emitTxnEvent(t, models.EventRefresh,
		pair{wire.EventFieldHardRefresh, "true"},
		pair{wire.EventFieldSuccess, ok})
}
