package bankpaytest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// Score types of the sandbox account table.
const (
	ScoreTypeNonThirdParty = "non third-party"
	ScoreTypeFCRA          = "FCRA"
	ScoreTypeNonFCRA       = "Non-FCRA"
)

// SandboxAccount is a row of the sandbox account table (all with
// SandboxRoutingNumber): what tokenize with verifyAccount=true responses for
// it. ScoreType is not on the wire.
type SandboxAccount struct {
	AccountNumber   string
	Score           int
	ThirdPartyScore *int // nil when no third-party service was used
	Verified        bool
	ScoreType       string
}

// ErrorTrigger is a sandbox account number that makes tokenize and the
// Disbursement establish respond with an error.
type ErrorTrigger struct {
	AccountNumber string
	Status        int
	Code          int
}

// Sandbox account numbers often used.
const (
	// AccountVerified has score 10 and is verified.
	AccountVerified = "1000000010"
	// AccountUnverified has score 0 and is not verified.
	AccountUnverified = "1000000000"
)

var errorTriggers = []ErrorTrigger{
	{"1002000000", http.StatusBadRequest, codeInvalidParameter},
	{"1003000000", http.StatusUnauthorized, codeSecurity},
	{"1003250000", http.StatusUnauthorized, codeSecurityTrigger},
	{"1003750000", http.StatusUnauthorized, codeAccessControl},
	{"1001000000", http.StatusInternalServerError, codeInternal},
}

var (
	sandboxAccounts = buildSandboxAccounts()
	sandboxByNumber = func() map[string]SandboxAccount {
		m := make(map[string]SandboxAccount, len(sandboxAccounts))
		for _, a := range sandboxAccounts {
			m[a.AccountNumber] = a
		}
		return m
	}()
)

func buildSandboxAccounts() []SandboxAccount {
	var out []SandboxAccount
	for score := 0; score <= 10; score++ {
		out = append(out, SandboxAccount{
			AccountNumber: strconv.Itoa(1000000000 + score),
			Score:         score, Verified: score >= 6, ScoreType: ScoreTypeNonThirdParty,
		})
	}
	for score := 0; score <= 10; score++ {
		third := score * 100
		if score == 10 {
			third = 999
		}
		out = append(out, SandboxAccount{
			AccountNumber: strconv.Itoa(1000001000 + third),
			Score:         score, ThirdPartyScore: intPtr(third), Verified: third >= 600, ScoreType: ScoreTypeFCRA,
		})
	}
	for _, third := range []int{15, 20, 25, 35, 45} {
		out = append(out, SandboxAccount{
			AccountNumber: strconv.Itoa(1000001000 + third),
			Score:         1, ThirdPartyScore: intPtr(third), Verified: third >= 35, ScoreType: ScoreTypeNonFCRA,
		})
	}
	return out
}

func intPtr(n int) *int { return &n }

// SandboxAccounts returns the sandbox account table.
func SandboxAccounts() []SandboxAccount {
	out := make([]SandboxAccount, len(sandboxAccounts))
	for i, a := range sandboxAccounts {
		if a.ThirdPartyScore != nil {
			a.ThirdPartyScore = intPtr(*a.ThirdPartyScore)
		}
		out[i] = a
	}
	return out
}

// ErrorTriggers returns the sandbox account numbers that respond with an error.
func ErrorTriggers() []ErrorTrigger { return append([]ErrorTrigger(nil), errorTriggers...) }

// lookupSandboxAccount resolves an account and routing number: the routing
// number must be the sandbox's, the account number a sandbox one. An error
// trigger responds with its error; any other account number responds with 400 with code
// 330 (invalid account).
func lookupSandboxAccount(number, routing string) (SandboxAccount, *Error) {
	if routing != SandboxRoutingNumber {
		return SandboxAccount{}, badRequest("account.routingNumber is not a sandbox routing number (use %s)", SandboxRoutingNumber)
	}
	if !isDigits(number) || len(number) > 17 {
		return SandboxAccount{}, badRequest("account.accountNumber must be up to 17 digits")
	}
	for _, t := range errorTriggers {
		if t.AccountNumber == number {
			return SandboxAccount{}, &Error{Status: t.Status, Code: t.Code, Message: "sandbox error trigger"}
		}
	}
	a, ok := sandboxByNumber[number]
	if !ok {
		return SandboxAccount{}, &Error{Status: http.StatusBadRequest, Code: codeInvalidAccount, Message: "invalid account: not a sandbox account number"}
	}
	return a, nil
}

// handleTokenize serves POST /accounts/tokenize[?verifyAccount=true]: the
// submitted data echoed with account.token (stable per merchant and
// account) and, when verification is asked, account.verification (the
// spec's shape); the account alone in the OpenAPI's (tokenizedAccount).
func (s *Server) handleTokenize(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	verify := false
	switch strings.ToLower(r.URL.Query().Get("verifyAccount")) {
	case "", "false":
	case "true":
		verify = true
	default:
		return nil, badRequest("verifyAccount must be true or false")
	}
	var tk models.Tokenization
	if err := decodeJSON(body, &tk); err != nil {
		return nil, err
	}
	if err := checkMerchantID(m, tk.MerchantID); err != nil {
		return nil, err
	}
	var sa SandboxAccount
	switch a := tk.Account; {
	case a != nil && a.IBAN != "":
		// An IBAN with a valid checksum: valid format, not seen (score 6).
		if a.AccountNumber != "" || a.RoutingNumber != "" {
			return nil, badRequest("give either account.iban or account.accountNumber with account.routingNumber")
		}
		if !validIBAN(a.IBAN) {
			return nil, &Error{Status: http.StatusBadRequest, Code: codeInvalidAccount, Message: "invalid account: account.iban fails its checksum"}
		}
		sa = SandboxAccount{Score: 6, Verified: true}
	case a == nil || a.AccountNumber == "":
		return nil, badRequest("account.accountNumber is required")
	case a.RoutingNumber == "":
		return nil, badRequest("account.routingNumber is required")
	default:
		var err *Error
		if sa, err = lookupSandboxAccount(a.AccountNumber, a.RoutingNumber); err != nil {
			return nil, err
		}
	}
	a := tk.Account
	token := tokenFor(m, accountKey(&accountRefBody{AccountNumber: a.AccountNumber, RoutingNumber: a.RoutingNumber, IBAN: a.IBAN}))
	acct := *tk.Account
	acct.Token = token
	acct.Verification = nil
	if verify {
		v := &models.Verification{
			Verified:         sa.Verified,
			Type:             3, // Database
			Score:            intPtr(sa.Score),
			VerificationDate: epochMillis(s.st.now),
		}
		if sa.ThirdPartyScore != nil {
			v.ThirdPartyScore = intPtr(*sa.ThirdPartyScore)
		}
		acct.Verification = v
	}
	tk.Account = &acct
	if s.bare {
		return tokenizedAccount(&acct, sa, verify), nil
	}
	return tk, nil
}

// tokenizedAccount is the answer of a tokenization in the OpenAPI's shape
// (WithBareResponses): the account itself, its token, verified (false
// unless verification was asked and passed) and, when asked, its
// verification; named, typed and cut to its last 4 digits (the OpenAPI's
// maxLength) as Accounts.Verify shows a sandbox account (Checking,
// Personal), its codes as the OpenAPI's strings.
func tokenizedAccount(acct *models.Account, sa SandboxAccount, verify bool) any {
	out := &models.Account{
		NameOnAccount: acct.NameOnAccount,
		Name:          "Checking",
		Type:          1, // Checking
		Profile:       1, // Personal
		AccountNumber: lastFour(acct.AccountNumber),
		RoutingNumber: acct.RoutingNumber,
		IBAN:          acct.IBAN,
		Token:         acct.Token,
		ProviderID:    SandboxProviderID,
		Country:       "US",
		Verification:  acct.Verification,
		Verified:      verify && sa.Verified,
	}
	if acct.IBAN != "" {
		out.Name, out.Country, out.ProviderID = "Current Account", acct.IBAN[:2], ""
		out.AccountNumber = lastFour(acct.IBAN)
	}
	v, err := codesAsStrings(out, "type", "profile", "verification.type", "verification.score", "verification.thirdPartyScore")
	if err != nil {
		return out
	}
	return v
}
