package bankpaytest

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// Errors of the test hooks (Deny, Reverse, Dispute).
var (
	// ErrUnknownTransaction: no transaction has the id given to a test hook.
	// (A service response of 404 is bankpay.ErrNotFound, another thing.)
	ErrUnknownTransaction = errors.New("bankpaytest: unknown transaction")
	// ErrInvalidTransition: the transaction cannot move to that state.
	ErrInvalidTransition = errors.New("bankpaytest: transition not allowed")
)

// The sandbox bank every authorization and sandbox account belongs to.
const (
	// SandboxRoutingNumber is the routing number of the sandbox accounts.
	SandboxRoutingNumber = "124003116"
	// SandboxProviderID is the payment provider id of the sandbox bank.
	SandboxProviderID = "200005501"
	// SandboxBankName is the name of the sandbox bank.
	SandboxBankName = "Demo Bank"
)

// txn is one transaction: an authorization (type 1), a deposit (6) or a
// capture (3).
type txn struct {
	m         *merchant
	rec       models.Transaction // Payment.Account.AccountNumber is the full number
	notifyURL string
	timeZone  string

	// authorization
	data       *models.EstablishData
	customerID string
	usedCents  int64 // deposits and captures that are not Denied or Reversed
	outcome    Outcome
	kyc        bool
	idStep     int // identity providers whose data has arrived
	idVerified bool
	feedback   []wire.Feedback
	hist       *history
	splitToken string // of the Authorize event, for captures and refreshes
	ip         string // the client's address (answer.go), of an authorization
	family     []*txn // every transaction under the authorization, oldest first (see attach)

	// deposit and capture (usedCents: refunds or reclaims of it), refund,
	// reclaim and preauthorization
	parent     *txn
	cents      int64
	completeAt time.Time
	// noSplitToken marks a capture without the splitToken of a merchant
	// configured for guaranteed payments: it fails when submitted.
	noSplitToken bool
}

func (t *txn) id() string { return t.rec.TransactionID }

// attach makes t a transaction of parent for cents, and one of the family of
// parent's authorization, so that totals reads the few transactions of one
// payment rather than every transaction of the merchant.
func (t *txn) attach(parent *txn, cents int64) {
	t.parent, t.cents = parent, cents
	auth := authorizationOf(parent)
	auth.family = append(auth.family, t)
}

// newTxn allocates a transaction of merchant m. The caller holds s.mu.
func (s *Server) newTxn(m *merchant, typ models.TransactionType) *txn {
	s.st.seqTxn++
	id := fmt.Sprintf("%d", 100000000001000+s.st.seqTxn) // 15 digits
	now := epochMillis(s.st.now)
	t := &txn{m: m, rec: models.Transaction{
		TransactionID:   id,
		TransactionType: typ,
		CreatedAt:       now,
		UpdatedAt:       now,
		PPTrxID:         "T" + id[5:],
		RecordVersion:   1,
	}}
	s.st.txns[id] = t
	m.txns = append(m.txns, t)
	return t
}

func sandboxProvider(m *merchant) *models.PaymentProvider {
	return &models.PaymentProvider{PaymentProviderID: SandboxProviderID, Name: SandboxBankName, Type: 1, InstantPayoutAvailable: !m.cfg.NoInstantPayout}
}

// view returns a deep copy of t's record as the API shows it: the account
// number cut to its last 4 digits.
func (t *txn) view() *models.Transaction {
	v := t.rec
	if p := t.rec.Payment; p != nil {
		pc := *p
		if p.Account != nil {
			ac := *p.Account
			ac.AccountNumber = lastFour(ac.AccountNumber)
			pc.Account = &ac
		}
		if p.PaymentProvider != nil {
			pp := *p.PaymentProvider
			pc.PaymentProvider = &pp
		}
		v.Payment = &pc
	}
	if ppt := t.rec.PaymentProviderTransaction; ppt != nil {
		c := *ppt
		v.PaymentProviderTransaction = &c
	}
	t.totals(&v)
	return &v
}

func lastFour(s string) string {
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}

// lookup finds transaction id of merchant m; another merchant's transaction
// is not found either. The caller holds s.mu.
func (s *Server) lookup(m *merchant, id string) (*txn, *Error) {
	t := s.st.txns[id]
	if t == nil || t.m != m {
		return nil, notFound("transaction")
	}
	return t, nil
}

// authorization finds id and checks that it is an authorization.
func (s *Server) authorization(m *merchant, id string) (*txn, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	if t.rec.TransactionType != models.TypeAuthorize {
		return nil, badRequest("transaction %s is not an authorization", id)
	}
	return t, nil
}

func (s *Server) handleGetTransaction(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, err := s.lookup(m, id)
	if err != nil {
		return nil, err
	}
	v := t.view()
	return s.transactionBody(t, v), nil
}

// Transaction returns transaction id as GET /transactions/{id} shows it.
func (s *Server) Transaction(id string) (*models.Transaction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.txns[id]
	if t == nil {
		return nil, false
	}
	return t.view(), true
}

// epochMillis is t as the service writes times.
func epochMillis(t time.Time) models.EpochMillis { return models.EpochMillis(t.UnixMilli()) }

// validAmount reports whether a is an amount a request may carry: digits, a
// dot and two digits, no minus sign.
func validAmount(a models.Amount) bool {
	_, err := models.ParseAmount(string(a))
	return err == nil
}

// paymentFrom checks a request that pays from auth (a deposit, capture or
// preauthorization, named by what): auth is of one of types and Authorized,
// and the form carries a merchantReference, which it returns.
func paymentFrom(auth *txn, f url.Values, what string, types ...models.PaymentType) (string, *Error) {
	if !slices.Contains(types, auth.rec.Payment.PaymentType) {
		names := make([]string, len(types))
		for i, t := range types {
			names[i] = t.String()
		}
		return "", badRequest("%s need a %s authorization", what, strings.Join(names, " or "))
	}
	if auth.rec.Status != models.StatusAuthorized {
		return "", badRequest("the authorization is %s, not Authorized", auth.rec.Status)
	}
	ref := f.Get("merchantReference")
	if ref == "" {
		return "", badRequest("merchantReference is required")
	}
	return ref, nil
}
