package bankpaytest

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// handlePreauthorize serves POST /transactions/{id}/capture/preAuth
// (form-encoded) from an Authorized Deferred or Recurring authorization:
// merchantReference (required, unique among preauthorizations), period
// (required, 1 to 6 hours), amount (defaults to the authorization's,
// required when that is 0.00; within what remains of a non-zero
// authorization amount), splitToken (when sent, the Authorize event's;
// another responds with 400/380), externalTier and interactionId (as sent)
// and metadata.remittance.withdrawalMethod (its enum). It creates a
// preauthorization (type 10), Authorized with provider status AC107
// (waiting for capture) and preAuthorized true, no event; at expiredAt,
// period hours later, it moves to Expired with an Expire event (AC117).
func (s *Server) handlePreauthorize(r *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	auth, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	f, err := jsonOrForm(r, body)
	if err != nil {
		return nil, err
	}
	ref, err := paymentFrom(auth, f, "preauthorizations", models.PaymentTypeDeferred, models.PaymentTypeRecurring)
	if err != nil {
		return nil, err
	}
	period, perr := strconv.Atoi(f.Get("period"))
	switch {
	case f.Get("period") == "":
		return nil, badRequest("period is required")
	case perr != nil || period < 1 || period > 6:
		return nil, badRequest("period must be 1 to 6 (hours)")
	}
	amount := models.Amount(f.Get("amount"))
	if amount == "" {
		if auth.rec.Amount == "0.00" {
			return nil, badRequest("amount is required when the authorization amount is 0.00")
		}
		amount = auth.rec.Amount
	}
	if err := checkAmountField("amount", amount, true); err != nil {
		return nil, err
	}
	if len(amount) > maxAmountChars {
		return nil, badRequest("amount must be at most %d characters", maxAmountChars)
	}
	cents, _ := amount.Cents()
	if cents == 0 {
		return nil, badRequest("amount must be greater than 0.00")
	}
	if tok := f.Get("splitToken"); tok != "" && tok != auth.splitToken {
		return nil, invalidSplitToken()
	}
	if w := f.Get("metadata.remittance.withdrawalMethod"); w != "" && !wire.WithdrawalMethod(w) {
		return nil, badRequest("metadata.remittance.withdrawalMethod must be BankDeposit, Cash, DebitCard, DigitalWallet or HomeDelivery")
	}
	if m.usedRef(refPreauth, ref) {
		return nil, duplicate()
	}
	if err := checkWithinMaximum(auth, cents); err != nil {
		return nil, err
	}

	t := s.newTxn(m, models.TypePreauthorization)
	t.attach(auth, cents)
	t.notifyURL, t.timeZone = auth.notifyURL, auth.timeZone
	t.rec.OriginalTransactionID = auth.id()
	t.rec.MerchantReference = ref
	t.rec.Amount, t.rec.Currency = amount, auth.rec.Currency
	p := *auth.rec.Payment
	acct := *p.Account
	p.Account, p.PaymentProvider, p.Amount = &acct, sandboxProvider(m), amount
	t.rec.Payment = &p
	expires := s.st.now.Add(time.Duration(period) * time.Hour)
	t.rec.ExpiredAt = models.EpochMillis(expires.UnixMilli())
	t.rec.PreAuthorized = true
	s.mustMove(t, models.StatusAuthorized)
	m.refs[refKey{refPreauth, ref}] = true
	s.schedule(&timer{at: expires, kind: timerPreauthExpire, t: t})
	v := t.view()
	return s.transactionBody(t, v), nil
}

// expirePreauth ends preauthorization t's period, unless it was canceled.
// The caller holds s.mu.
func (s *Server) expirePreauth(t *txn) {
	if !t.can(models.StatusExpired) {
		return
	}
	t.rec.PreAuthorized = false
	s.mustMove(t, models.StatusExpired)
}

// jsonOrForm reads the fields of a preauthorization: a JSON object (the
// OpenAPI's encoding, which the SDK sends) or a form (accepted too, as the
// service's capture family reads one), each value as its text.
func jsonOrForm(r *http.Request, body []byte) (url.Values, *Error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case err == nil && mt == "application/x-www-form-urlencoded":
		return parseForm(body)
	case err != nil || mt != "application/json":
		return nil, &Error{Status: http.StatusUnsupportedMediaType, Code: codeInvalidParameter, Message: "Content-Type must be application/json"}
	}
	var obj map[string]json.RawMessage
	if e := decodeJSON(body, &obj); e != nil {
		return nil, e
	}
	out := url.Values{}
	for k, raw := range obj {
		var str string
		if json.Unmarshal(raw, &str) == nil {
			out.Set(k, str)
			continue
		}
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			out.Set(k, n.String())
			continue
		}
		return nil, unreadable("JSON parse error: invalid value for %s", k)
	}
	return out, nil
}
