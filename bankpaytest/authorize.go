package bankpaytest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// Outcome is what the user does in the bank-selection interface.
type Outcome int

// Outcomes of Authorize. The identity outcomes are the sandbox demo bank's
// passwords and need establish data with kycType 1; OutcomeAuthorize then
// means OutcomeEligible.
const (
	// OutcomeAuthorize: the user authorizes; redirect to returnUrl, status 2.
	OutcomeAuthorize Outcome = iota
	// OutcomeCancel: the user cancels or closes; redirect to cancelUrl, status 7.
	OutcomeCancel
	// OutcomeEligible: the documented demo password, an eligible user with
	// verified data.
	OutcomeEligible
	// OutcomeExcessData: any other password, the user confirms or enters
	// details (sourced from the user) and is still eligible.
	OutcomeExcessData
	// OutcomeNotEligible: the password followed by ":help", outcome "not
	// eligible" from its menu: verification finishes, the user is not eligible.
	OutcomeNotEligible
)

var outcomeNames = [...]string{"authorize", "cancel", "eligible", "excess-data", "not-eligible"}

// String returns the outcome's name as ParseOutcome reads it.
func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// ParseOutcome reads an outcome name: authorize, cancel, eligible,
// excess-data or not-eligible.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if strings.EqualFold(s, n) {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("bankpaytest: unknown outcome %q", s)
}

func (o Outcome) identity() bool {
	return o == OutcomeEligible || o == OutcomeExcessData || o == OutcomeNotEligible
}

// Authorize plays the user going through the bank-selection interface with
// establish data d (signed by the merchant, as the front-end SDKs take it).
// It checks d as the interface does (accessId, merchantId, requestSignature,
// the required fields, a merchantReference not used before), creates the
// authorization (type 1, a 15-digit id, status 2 and provider status SW020
// authorization received, or status 7 Canceled and UC01 for OutcomeCancel), emits its event, and
// returns the signed redirect to returnUrl or cancelUrl with that
// authorization as GET /transactions/{id} shows it. A refusal is an *Error.
func (s *Server) Authorize(d models.EstablishData, outcome Outcome) (redirectURL string, txn *models.Transaction, err error) {
	return s.authorizeWith(d, outcome, nil)
}

// authorizeWith is Authorize with the account the user selected (nil: the
// authorization's demo account), as the bank pages showed it.
func (s *Server) authorizeWith(d models.EstablishData, outcome Outcome, acct *models.PaymentAccount) (string, *models.Transaction, error) {
	if outcome < OutcomeAuthorize || outcome > OutcomeNotEligible {
		return "", nil, badRequest("unknown outcome %d", int(outcome))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.authorize(&d, outcome, acct)
	if e != nil {
		return "", nil, e
	}
	return redirectFor(t, d.RequestSignature), t.view(), nil
}

func (s *Server) authorize(d *models.EstablishData, outcome Outcome, acct *models.PaymentAccount) (*txn, *Error) {
	m := s.st.byAccess[d.AccessID]
	if m == nil {
		return nil, accessDenied("unknown accessId")
	}
	if err := checkEstablishSignature(m, d); err != nil {
		return nil, err
	}
	if err := checkEstablishData(m, d); err != nil {
		return nil, err
	}
	if d.PaymentType == models.PaymentTypeDisbursement {
		return nil, badRequest("a Disbursement authorization is created with POST /establish")
	}
	if err := checkURLField("returnUrl", d.ReturnURL, true); err != nil {
		return nil, err
	}
	if err := checkURLField("cancelUrl", d.CancelURL, true); err != nil {
		return nil, err
	}
	if outcome.identity() && d.KYCType != models.KYCTypeIdentity {
		return nil, badRequest("outcome %s needs establish data with kycType 1", outcome)
	}
	if m.usedRef(refEstablish, d.MerchantReference) {
		return nil, duplicate()
	}
	if outcome == OutcomeAuthorize && d.KYCType == models.KYCTypeIdentity {
		outcome = OutcomeEligible
	}
	return s.createAuthorization(m, d, acct, outcome), nil
}

// redirectFor builds the signed redirect of authorization t: returnUrl (or
// cancelUrl when Canceled) with the redirect parameters, then
// requestSignature over everything before it, in the algorithm of the
// establish signature, then, when instant payout is available, the
// unsigned instantPayoutAvailable=true.
func redirectFor(t *txn, establishSig string) string {
	r := &t.rec
	base, panel := r.Payment.ReturnURL, "3"
	if r.Status == models.StatusCanceled {
		base, panel = r.Payment.CancelURL, "1"
	}
	params := [][2]string{
		{"transactionId", r.TransactionID},
		{"transactionType", strconv.Itoa(int(r.TransactionType))},
		{"merchantReference", r.MerchantReference},
		{"status", strconv.Itoa(int(r.Status))},
		{"payment.paymentType", strconv.Itoa(int(r.Payment.PaymentType))},
		{"payment.paymentProvider.type", strconv.Itoa(r.Payment.PaymentProvider.Type)},
		{"payment.paymentProvider.instantPayoutAvailable", strconv.FormatBool(r.Payment.PaymentProvider.InstantPayoutAvailable)},
		{"payment.account.verified", strconv.FormatBool(r.Payment.Account.Verified)},
		{"panel", panel},
		{"payment.paymentProviderTransaction.status", string(r.PaymentProviderTransaction.Status)},
	}
	var b strings.Builder
	b.WriteString(base)
	sep := byte('?')
	if strings.Contains(base, "?") {
		sep = '&'
	}
	for _, p := range params {
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(url.QueryEscape(p[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p[1]))
	}
	msg := b.String()
	alg := sign.SHA1
	if strings.HasPrefix(establishSig, sign.SHA512Prefix) {
		alg = sign.SHA512
	}
	out := msg + "&requestSignature=" + url.QueryEscape(sign.Sign(alg, t.m.key, msg))
	if r.Payment.PaymentProvider.InstantPayoutAvailable {
		// Unsigned, after the signature, as the service sends it.
		out += "&instantPayoutAvailable=true"
	}
	return out
}

// authorizeResponse is the control endpoint's response to an authorization.
type authorizeResponse struct {
	RedirectURL string              `json:"redirectUrl"`
	Transaction *models.Transaction `json:"transaction"`
}

// controlAuthorize serves POST /sandbox/authorize?outcome=…, Authorize over
// HTTP: the body is the signed establish data as JSON.
func (s *Server) controlAuthorize(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	outcome := OutcomeAuthorize
	if o := r.URL.Query().Get("outcome"); o != "" {
		var err error
		if outcome, err = ParseOutcome(o); err != nil {
			return nil, badRequest("outcome must be authorize, cancel, eligible, excess-data or not-eligible")
		}
	}
	var d models.EstablishData
	if err := decodeJSON(body, &d); err != nil {
		return nil, err
	}
	if d.AccessID != m.cfg.AccessID {
		return nil, accessDenied("accessId does not match the credentials")
	}
	t, err := s.authorize(&d, outcome, nil)
	if err != nil {
		return nil, err
	}
	return authorizeResponse{RedirectURL: redirectFor(t, d.RequestSignature), Transaction: t.view()}, nil
}
