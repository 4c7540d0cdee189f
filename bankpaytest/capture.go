package bankpaytest

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// handleCapture serves POST /transactions/{id}/capture from a Deferred or
// Instant authorization, as the operator's OpenAPI describes it: "Capture
// collects money … from a customer bank account". The splitToken is
// optional at the API level; when sent it must be the one of the
// authorization's Authorize event (another responds with 400/380). Without
// it the capture is, for a merchant configured for international money
// transfer (the default), a money transfer payment, whose form carries the
// beneficiary (name and address.country required), the beneficiary account
// and the remittance data, the originator being the customer of the
// authorization's establish data, whose name and address (address1, city,
// state, zip, country) are then required; for a merchant not configured
// for it (Merchant.NoMoneyTransfer), a plain charge, and beneficiary or
// remittance fields respond with 400/200. For a merchant configured for
// guaranteed payments (Merchant.GuaranteedPayments) a capture without
// splitToken is accepted and then fails (a Failed event) when submitted.
// The amount is at least 0.99; without one, what remains of the
// authorization's amount is captured. interactionId is accepted as sent.
// The capture follows the movement lifecycle of deposits (lifecycle.go).
func (s *Server) handleCapture(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	auth, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	f, err := parseForm(body)
	if err != nil {
		return nil, err
	}
	token := f.Get("splitToken")
	transfer := token == "" && !m.cfg.NoMoneyTransfer
	if token == "" && m.cfg.NoMoneyTransfer && hasTransferFields(f) {
		return nil, badRequest("the merchant is not configured for international money transfer")
	}
	ref, err := paymentFrom(auth, f, "captures", models.PaymentTypeDeferred, models.PaymentTypeInstant)
	if err != nil {
		return nil, err
	}
	amount := models.Amount(f.Get("amount"))
	if amount == "" {
		// The OpenAPI: "If the value is omitted, the maximum allowed
		// amount is captured."
		left, err := remaining(auth)
		if err != nil {
			return nil, err
		}
		amount = models.AmountFromCents(left)
	}
	if err := checkAmountField("amount", amount, true); err != nil {
		return nil, err
	}
	cents, _ := amount.Cents()
	if cents < minMoveCents {
		return nil, badRequest("amount must be at least 0.99")
	}
	if len(amount) > maxAmountChars {
		return nil, badRequest("amount must be at most %d characters", maxAmountChars)
	}
	if token != "" {
		if token != auth.splitToken {
			return nil, invalidSplitToken()
		}
	} else if transfer {
		if err := checkTransferFields(f); err != nil {
			return nil, err
		}
		if err := s.checkOriginator(m, auth); err != nil {
			return nil, err
		}
	}
	if m.usedRef(refCapture, ref) {
		return nil, duplicate()
	}
	if err := checkWithinMaximum(auth, cents); err != nil {
		return nil, err
	}

	c := s.newMovement(m, auth, models.TypeCapture, refCapture, ref, amount, cents, "")
	c.noSplitToken = token == "" && m.cfg.GuaranteedPayments
	v := c.view()
	return s.transactionBody(c, v), nil
}

// minMoveCents is the smallest capture or deposit: the OpenAPI gives both
// operations a minimum of 0.99.
const minMoveCents = 99

// remaining is what is left to capture of auth's amount, for a capture
// without an amount.
func remaining(auth *txn) (int64, *Error) {
	max, err := auth.rec.Amount.Cents()
	if err != nil || auth.rec.Amount == "0.00" {
		return 0, badRequest("amount is required when the authorization amount is 0.00")
	}
	if left := max - auth.usedCents; left > 0 {
		return left, nil
	}
	return 0, badRequest("nothing remains of the authorization amount %s", auth.rec.Amount)
}

// hasTransferFields reports whether a capture form carries any money
// transfer field (beneficiary, beneficiaryAccount, metadata.remittance).
func hasTransferFields(f url.Values) bool {
	for k := range f {
		for _, p := range [...]string{"beneficiary.", "beneficiaryAccount.", "metadata.remittance."} {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
	}
	return false
}

// checkTransferFields checks the beneficiary and remittance fields of a
// capture form.
func checkTransferFields(f url.Values) *Error {
	if f.Get("beneficiary.name") == "" {
		return badRequest("beneficiary.name is required")
	}
	if c := f.Get("beneficiary.address.country"); c == "" {
		return badRequest("beneficiary.address.country is required")
	} else if !isAlpha2(c) {
		return badRequest("beneficiary.address.country must be an ISO 3166 alpha-2 code")
	}
	if c := f.Get("beneficiaryAccount.paymentProvider.country"); c != "" && !isAlpha2(c) {
		return badRequest("beneficiaryAccount.paymentProvider.country must be an ISO 3166 alpha-2 code")
	}
	if w := f.Get("metadata.remittance.withdrawalMethod"); w != "" && !wire.WithdrawalMethod(w) {
		return badRequest("metadata.remittance.withdrawalMethod must be BankDeposit, Cash, DebitCard, DigitalWallet or HomeDelivery")
	}
	if c := f.Get("metadata.remittance.countryCorridor"); c != "" && !isAlpha2(c) {
		return badRequest("metadata.remittance.countryCorridor must be an ISO 3166 alpha-2 code")
	}
	if l := f.Get("metadata.remittance.accountLastFour"); l != "" && (len(l) != 4 || !isDigits(l)) {
		return badRequest("metadata.remittance.accountLastFour must be 4 digits")
	}
	return nil
}

// checkOriginator checks the money-transfer fields of the authorization's
// customer. The caller holds s.mu.
func (s *Server) checkOriginator(m *merchant, auth *txn) *Error {
	rec := m.customers[auth.customerID]
	var c models.Customer
	if rec != nil {
		c = rec.c
	}
	if c.Name == "" {
		return badRequest("customer.name is required for money transfer (send it in the establish data)")
	}
	a := c.Address
	if a == nil {
		a = &models.Address{}
	}
	for _, f := range [...]struct{ name, v string }{
		{"address1", a.Address1}, {"city", a.City}, {"state", a.State}, {"zip", a.Zip}, {"country", a.Country},
	} {
		if f.v == "" {
			return badRequest("customer.address.%s is required for money transfer (send it in the establish data)", f.name)
		}
	}
	return nil
}

func isAlpha2(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
