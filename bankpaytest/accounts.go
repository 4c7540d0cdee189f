package bankpaytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// Account verification without an authorization (POST /accounts/verify),
// ACH feedback on a verified account (POST /feedback), and the accounts a
// user selected in an authorization.
//
// Verify answers from the sandbox account table (tokenize.go) for an
// account and routing number, and scores any IBAN with a valid checksum 6
// (not seen, valid format, verified). Feedback of a payment returned for a
// reason that makes the account unusable (R02, R03, R04, R16, R20) makes
// later verifications of that account score 2 (non-bankable returns, not
// verified); feedback of a Completed payment raises a verified score below
// 9 to 9 (seen in the last 6 months, no returns). Feedback never changes
// tokenize's table.

// verifyExpansions are the expand values POST /accounts/verify accepts.
var verifyExpansions = map[string]bool{"account.paymentProvider": true}

// returnCodesUnusable are the ACH return codes after which the sandbox no
// longer verifies an account.
var returnCodesUnusable = map[string]bool{"R02": true, "R03": true, "R04": true, "R16": true, "R20": true}

// accountRefBody is the account object of the verify and feedback bodies.
type accountRefBody struct {
	AccountNumber string `json:"accountNumber"`
	RoutingNumber string `json:"routingNumber"`
	IBAN          string `json:"iban"`
	NameOnAccount string `json:"nameOnAccount"`
	Token         string `json:"token"`
}

// merchantIDText reads a merchantId written as a JSON number (OpenAPI) or
// a string.
func merchantIDText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// checkExpand refuses an expand value not in allowed.
func checkExpand(r *http.Request, allowed map[string]bool) (map[string]bool, *Error) {
	got := map[string]bool{}
	for _, v := range r.URL.Query()["expand"] {
		if !allowed[v] {
			return nil, badRequest("expand %q is not supported", v)
		}
		got[v] = true
	}
	return got, nil
}

// validIBAN checks an IBAN's form and its ISO 13616 checksum.
func validIBAN(v string) bool {
	if len(v) < 15 || len(v) > 34 {
		return false
	}
	rem := 0
	for i := range len(v) {
		c := v[(i+4)%len(v)]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1 && v[0] >= 'A' && v[1] >= 'A' && v[2] <= '9' && v[3] <= '9'
}

// accountKey is the key of an account in the merchant's tokens and returns.
func accountKey(a *accountRefBody) string {
	if a.IBAN != "" {
		return "iban/" + a.IBAN
	}
	return a.RoutingNumber + "/" + a.AccountNumber
}

// tokenFor returns the merchant's token of the account with key, made on
// first use. The caller holds s.mu.
func tokenFor(m *merchant, key string) string {
	token := m.tokens[key]
	if token == "" {
		token = strings.ToUpper(randomHex(16))
		m.tokens[key] = token
	}
	return token
}

// handleVerifyAccount serves POST /accounts/verify[?expand=account.paymentProvider].
func (s *Server) handleVerifyAccount(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	expand, err := checkExpand(r, verifyExpansions)
	if err != nil {
		return nil, err
	}
	var b struct {
		MerchantID json.RawMessage `json:"merchantId"`
		Account    *accountRefBody `json:"account"`
	}
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	if err := checkMerchantID(m, merchantIDText(b.MerchantID)); err != nil {
		return nil, err
	}
	a := b.Account
	if a == nil || (a.IBAN == "" && a.AccountNumber == "") {
		return nil, badRequest("account.accountNumber and account.routingNumber, or account.iban, are required")
	}
	out := &models.Account{
		NameOnAccount: a.NameOnAccount,
		Name:          "Checking",
		Type:          1, // Checking
		Profile:       1, // Personal
		ProviderID:    SandboxProviderID,
		Country:       "US",
	}
	v := &models.Verification{Type: 3, VerificationDate: models.EpochMillis(s.st.now.UnixMilli())} // Database
	switch {
	case a.IBAN != "" && (a.AccountNumber != "" || a.RoutingNumber != ""):
		return nil, badRequest("give either account.iban or account.accountNumber with account.routingNumber")
	case a.IBAN != "":
		if !validIBAN(a.IBAN) {
			return nil, &Error{Status: http.StatusBadRequest, Code: codeInvalidAccount, Message: "invalid account: account.iban fails its checksum"}
		}
		out.IBAN, out.AccountNumber, out.Country = a.IBAN, lastFour(a.IBAN), a.IBAN[:2]
		out.Name = "Current Account"
		v.Score, v.Verified = intPtr(6), true
	default:
		sa, err := lookupSandboxAccount(a.AccountNumber, a.RoutingNumber)
		if err != nil {
			return nil, err
		}
		out.AccountNumber, out.RoutingNumber = lastFour(a.AccountNumber), a.RoutingNumber
		v.Score, v.Verified = intPtr(sa.Score), sa.Verified
		if sa.ThirdPartyScore != nil {
			v.ThirdPartyScore = intPtr(*sa.ThirdPartyScore)
		}
	}
	key := accountKey(a)
	switch m.returns[key] {
	case "":
	case "completed":
		if v.Verified && *v.Score < 9 {
			v.Score = intPtr(9)
		}
	default:
		v.Score, v.Verified, v.ThirdPartyScore = intPtr(2), false, nil
	}
	out.Token = tokenFor(m, key)
	out.Verified = v.Verified
	out.Verification = v
	if expand["account.paymentProvider"] {
		out.PaymentProvider = sandboxProvider(m)
	}
	// bare, as the OpenAPI shows it
	return s.openAPICodes(out, "type", "profile", "verification.type", "verification.score", "verification.thirdPartyScore"), nil
}

// handleAccountFeedback serves POST /feedback: the ACH outcome of a payment
// made with a verified account, named by token or by account and routing
// number.
func (s *Server) handleAccountFeedback(_ *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	var b struct {
		MerchantID json.RawMessage `json:"merchantId"`
		Account    *accountRefBody `json:"account"`
		Feedback   *struct {
			Status    json.RawMessage `json:"status"`
			SubStatus string          `json:"subStatus"`
		} `json:"feedback"`
	}
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	if err := checkMerchantID(m, merchantIDText(b.MerchantID)); err != nil {
		return nil, err
	}
	a, f := b.Account, b.Feedback
	if a == nil {
		return nil, badRequest("account is required")
	}
	if f == nil {
		return nil, badRequest("feedback is required")
	}
	var key string
	switch {
	case a.Token != "":
		for k, tok := range m.tokens {
			if tok == a.Token {
				key = k
			}
		}
		if key == "" {
			return nil, &Error{Status: http.StatusBadRequest, Code: codeInvalidAccount, Message: "invalid account: unknown account.token"}
		}
	case a.AccountNumber != "" && a.RoutingNumber != "":
		if _, err := lookupSandboxAccount(a.AccountNumber, a.RoutingNumber); err != nil {
			return nil, err
		}
		key = accountKey(a)
	default:
		return nil, badRequest("account.token, or account.accountNumber with account.routingNumber, is required")
	}
	status := merchantIDText(f.Status) // a number or a numeric string
	if !feedbackStatus(status) {
		return nil, badRequest("feedback.status must be one of %s", wire.FeedbackStatusList())
	}
	if f.SubStatus == "" {
		return nil, badRequest("feedback.subStatus is required")
	}
	code, _ := strconv.Atoi(status)
	switch {
	case returnCodesUnusable[strings.ToUpper(f.SubStatus)] && (code == int(models.StatusFailed) || code == int(models.StatusReversed)):
		if m.returns == nil {
			m.returns = map[string]string{}
		}
		m.returns[key] = strings.ToUpper(f.SubStatus)
	case code == int(models.StatusCompleted) && m.returns[key] == "":
		if m.returns == nil {
			m.returns = map[string]string{}
		}
		m.returns[key] = "completed"
	}
	return struct {
		Message string `json:"message"`
	}{"Feedback received"}, nil
}

// handleSelectedAccounts serves GET
// /transactions/{id}/payment/paymentProvider/accounts: the account the user
// selected in a Retrieval authorization, with its full number and, as in
// the balance answer, whether its balance covers the authorization's
// amount (verification.hasEnoughFunds, which the OpenAPI requires).
func (s *Server) handleSelectedAccounts(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, _, err := s.retrieval(m, id)
	if err != nil {
		return nil, err
	}
	acct := t.rec.Payment.Account
	key := accountKey(&accountRefBody{AccountNumber: acct.AccountNumber, RoutingNumber: acct.RoutingNumber})
	return s.openAPICodes(struct {
		Accounts []models.Account `json:"accounts"`
	}{[]models.Account{{
		ProviderID:            SandboxProviderID,
		PaymentProvider:       sandboxProvider(t.m),
		NameOnAccount:         personFor(t.id()).name(),
		Country:               "US",
		Name:                  acct.Name,
		Type:                  acct.Type,
		Profile:               1, // Personal
		AccountNumber:         acct.AccountNumber,
		RoutingNumber:         acct.RoutingNumber,
		AccountNumberLastFour: lastFour(acct.AccountNumber),
		Verified:              true,
		Token:                 tokenFor(m, key),
		Verification: &models.Verification{
			Verified:         true,
			Type:             2, // Online Banking
			VerificationDate: t.rec.CreatedAt,
			HasEnoughFunds:   coversAmount(t),
		},
	}}}, "accounts[].verification.type"), nil
}

// feedbackStatus reports whether status (as the request wrote it, a
// decimal with no sign or leading zero) is one account feedback accepts.
func feedbackStatus(status string) bool {
	n, err := strconv.Atoi(status)
	return err == nil && strconv.Itoa(n) == status && slices.Contains(wire.FeedbackStatuses(), models.TransactionStatus(n))
}

// coversAmount reports whether the balance of Retrieval t (whose history
// s.retrieval made) covers its authorization's amount, as the balance
// answer's hasEnoughFunds does (handleBalance).
func coversAmount(t *txn) *bool {
	need, _ := t.rec.Amount.Cents()
	enough := t.hist.final() >= need
	return &enough
}
