package bankpaytest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// sandboxUserIP is the client address of an authorization the user gave
// through Authorize or the bank pages played in-process: the sandbox has no
// user's address, so it answers with one reserved for documentation
// (RFC 5737), never a real one.
const sandboxUserIP = "192.0.2.1"

// clientIP is the host part of r's remote address (sandboxUserIP when r
// has none).
func clientIP(r *http.Request) string {
	if r == nil {
		return sandboxUserIP
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		return sandboxUserIP
	}
	return host
}

// code is a transaction, status or payment type code as an answer writes
// it: a number in the spec's (wrapped) shape, a string of digits in the
// OpenAPI's (bare) shape, whose schemas type every code as a string enum.
type code struct {
	n   int
	str bool
}

// MarshalJSON writes the code as a number or a string.
func (c code) MarshalJSON() ([]byte, error) {
	b := strconv.AppendInt(nil, int64(c.n), 10)
	if c.str {
		return strconv.AppendQuote(nil, string(b)), nil
	}
	return b, nil
}

// transactionAnswer is a transaction as an answer writes it: the record,
// plus every property the OpenAPI's Transaction schema requires, computed
// from the sandbox's state (see amounts), whether or not the SDK reads it.
// Its fields shadow the record's fields of the same name.
type transactionAnswer struct {
	*models.Transaction
	TransactionType code               `json:"transactionType"`
	Status          code               `json:"status"`
	Payment         *paymentAnswer     `json:"payment,omitempty"`
	Pending         models.Amount      `json:"pending"`
	Paid            models.Amount      `json:"paid"`
	Refunded        models.Amount      `json:"refunded"`
	Reversed        models.Amount      `json:"reversed"`
	Balance         models.Amount      `json:"balance"`
	IP              string             `json:"ip"`
	ProcessedAt     models.EpochMillis `json:"processedAt"`
	CompletedAt     models.EpochMillis `json:"completedAt"`
}

// paymentAnswer is a payment as an answer writes it: its paymentType as a
// code of the answer's shape, and the properties the OpenAPI's Payment
// requires that the SDK does not read, each from the sandbox's state (see
// newPaymentAnswer). paymentFlow, which the OpenAPI documents only as
// "internal use only" with no value, is left out (docs/wire.md).
type paymentAnswer struct {
	*models.Payment
	PaymentType                code                `json:"paymentType"`
	Merchant                   *paymentMerchant    `json:"merchant,omitempty"`
	Fingerprint                string              `json:"fingerprint"`
	Verification               paymentVerification `json:"verification"`
	AllowedPaymentProviderType []int               `json:"allowedPaymentProviderType"`
	Auth                       paymentAuth         `json:"auth"`
	Authorization              string              `json:"authorization"`
}

// paymentMerchant is the OpenAPI's PaymentMerchant: the merchant the
// credentials name (the sandbox knows no merchant name).
type paymentMerchant struct {
	MerchantID string `json:"merchantId,omitempty"`
}

// paymentVerification is the OpenAPI's Verification of a payment: status
// "1" (Automatic: the sandbox holds no payment for the merchant's review),
// and verifyCustomer false (it compares no customer data with the bank's).
type paymentVerification struct {
	Status         string `json:"status"`
	VerifyCustomer bool   `json:"verifyCustomer"`
}

// paymentAuth is the OpenAPI's PaymentAuth: the authorization's token,
// status code and message.
type paymentAuth struct {
	Token   string `json:"token"`
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// sandboxProviderType is the payment provider type of every bank the
// sandbox plays (1, Online Banking: see paymentproviders.go), so the only
// type a payment allows.
const sandboxProviderType = 1

// newPaymentAnswer is payment p of authorization a as an answer writes it
// (codes as strings when str). Its authorization token and fingerprint are
// opaque digests: of the merchant and the authorization's id, and of the
// user's address (the sandbox's device fingerprint), so that they are
// stable across answers and differ where the authorizations do.
func newPaymentAnswer(p *models.Payment, a *txn, str bool) *paymentAnswer {
	ip := a.ip
	if ip == "" {
		ip = sandboxUserIP
	}
	token := digest("authorization", a.m.cfg.MerchantID, a.id())
	pa := &paymentAnswer{
		Payment:                    p,
		PaymentType:                code{int(p.PaymentType), str},
		Merchant:                   &paymentMerchant{MerchantID: a.m.cfg.MerchantID},
		Fingerprint:                digest("fingerprint", ip),
		Verification:               paymentVerification{Status: "1"},
		AllowedPaymentProviderType: []int{sandboxProviderType},
		Auth:                       paymentAuth{Token: token, Status: int(a.rec.Status), Message: a.rec.StatusMessage},
		Authorization:              token,
	}
	return pa
}

// digest is an opaque identifier made of parts: the first 32 hex digits of
// their SHA-256.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// answer is transaction t as an answer of the sandbox's shape writes it (v
// is t's view, which the caller may have adjusted). The caller holds s.mu.
func (s *Server) answer(t *txn, v *models.Transaction) *transactionAnswer {
	return answerAs(t, v, s.bare)
}

// answerAs is answer with codes as strings (str, the OpenAPI's types) or
// numbers (the spec's).
func answerAs(t *txn, v *models.Transaction, str bool) *transactionAnswer {
	var p *paymentAnswer
	if v.Payment != nil {
		// The payment's state is its authorization's (see fillPayment).
		auth := authorizationOf(t)
		tot := totals(t.m, auth)[auth]
		if tot == nil {
			tot = &paymentTotals{}
		}
		fillPayment(v.Payment, auth, tot)
		p = newPaymentAnswer(v.Payment, auth, str)
	}
	a := &transactionAnswer{
		Transaction:     v,
		TransactionType: code{int(v.TransactionType), str},
		Status:          code{int(v.Status), str},
		Payment:         p,
		IP:              authorizationOf(t).ip,
		ProcessedAt:     v.ProcessedAt,
		CompletedAt:     v.CompletedAt,
	}
	if a.IP == "" {
		a.IP = sandboxUserIP
	}
	a.Pending, a.Paid, a.Refunded, a.Reversed, a.Balance = t.amounts(v)
	return a
}

// transactionBody is the answer of one transaction: {"transaction":…} in
// the spec's shape, the transaction itself in the OpenAPI's.
func (s *Server) transactionBody(t *txn, v *models.Transaction) any {
	a := s.answer(t, v)
	return s.single(struct {
		Transaction *transactionAnswer `json:"transaction"`
	}{a}, a)
}

// amounts are the OpenAPI's running totals of transaction t (v its view):
// for an authorization, those of its payment (see totals); for a deposit,
// capture or representment, its amount pending until it completes, then
// paid (and reversed when Reversed), what was refunded or reclaimed of it,
// and the balance left; for a refund, reclaim or preauthorization, its
// amount pending until it completes, and zero paid (it pays nothing in).
func (t *txn) amounts(v *models.Transaction) (pending, paid, refunded, reversed, balance models.Amount) {
	zero := models.AmountFromCents(0)
	if t.rec.TransactionType == models.TypeAuthorize {
		tot := totals(t.m, t)[t]
		if tot == nil {
			tot = &paymentTotals{}
		}
		return models.AmountFromCents(tot.pending), models.AmountFromCents(tot.paid),
			models.AmountFromCents(tot.refunded), models.AmountFromCents(tot.reversed),
			models.AmountFromCents(tot.paid - tot.reversed - tot.refunded)
	}
	pending, paid, refunded, reversed, balance = zero, zero, zero, zero, zero
	switch t.rec.Status {
	case models.StatusAuthorized, models.StatusProcessed:
		pending = models.AmountFromCents(t.cents)
		return
	case models.StatusReversed:
		if isMovement(t) {
			paid, reversed = models.AmountFromCents(t.cents), models.AmountFromCents(t.cents)
		}
		return
	}
	if v.Paid != "" {
		paid = v.Paid
	}
	if v.Refunded != "" {
		refunded = v.Refunded
	}
	if v.Balance != "" {
		balance = v.Balance
	}
	return
}

// openAPICodes is answer v, in the OpenAPI's shape (WithBareResponses)
// with the numbers at paths as strings (see codesAsStrings); as it is in
// the spec's shape, whose integers these are.
func (s *Server) openAPICodes(v any, paths ...string) any {
	if !s.bare {
		return v
	}
	out, err := codesAsStrings(v, paths...)
	if err != nil {
		return v
	}
	return out
}

// codesAsStrings is answer v with the numbers at paths written as strings
// of digits: the OpenAPI's shape (WithBareResponses) types these codes and
// tiers as string enums where the spec's shape writes integers. A path is
// dotted, "[]" after a name for each element of an array
// ("accounts[].verification.type"); a path v does not have is skipped.
func codesAsStrings(v any, paths ...string) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	for _, p := range paths {
		stringAt(tree, strings.Split(p, "."))
	}
	return tree, nil
}

// stringAt writes the number at path in tree as a string.
func stringAt(tree any, path []string) {
	obj, ok := tree.(map[string]any)
	if !ok || len(path) == 0 {
		return
	}
	name, each := strings.CutSuffix(path[0], "[]")
	switch {
	case each:
		list, _ := obj[name].([]any)
		for _, e := range list {
			stringAt(e, path[1:])
		}
	case len(path) > 1:
		stringAt(obj[name], path[1:])
	default:
		if n, ok := obj[name].(json.Number); ok {
			obj[name] = n.String()
		}
	}
}
