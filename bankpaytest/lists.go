package bankpaytest

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/jsonr"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// The list endpoints, GET /transactions and GET /payments, and GET
// /payments/{id}. A list sees the authenticated merchant's records only, in
// creation order unless orderBy says otherwise, and pages them with
// startIndex (from 0) and count (1 to maxPageSize, defaultPageSize when
// absent), serving at most PageCap items a page whatever the count: a real
// server caps its pages, and the OpenAPI documents no cap and no total, so
// a client must read on until an empty page. A filter it cannot read
// responds 400/200; a filter it does not know is ignored, as the service's
// query binding does.

// Page sizes of the list endpoints.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// PageCap is the most items a page of GET /transactions or GET /payments
// holds, whatever the count asked (up to 1000 is accepted): below the
// SDK's default count of 100, as a server that caps its pages does.
const PageCap = 50

// listPage is the order and page of a list request.
type listPage struct {
	orderBy    string
	desc       bool
	start      int
	count      int
	createdMin int64 // epoch ms bounds, -1 for none
	createdMax int64
	updatedMin int64
	updatedMax int64
	amountMin  int64 // cents, -1 for none
	amountMax  int64
}

// parseListPage reads the parameters every list shares; orderFields are the
// orderBy values of the list.
func parseListPage(q url.Values, orderFields []string) (*listPage, *Error) {
	p := &listPage{count: defaultPageSize, createdMin: -1, createdMax: -1, updatedMin: -1, updatedMax: -1, amountMin: -1, amountMax: -1}
	if v := q.Get("orderBy"); v != "" {
		if !slices.Contains(orderFields, v) {
			return nil, badRequest("orderBy must be one of %s", strings.Join(orderFields, ", "))
		}
		p.orderBy = v
	}
	switch strings.ToLower(q.Get("sortOrder")) {
	case "", "asc":
	case "desc":
		p.desc = true
	default:
		return nil, badRequest("sortOrder must be asc or desc")
	}
	if v := q.Get("startIndex"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, badRequest("startIndex must be a non-negative integer")
		}
		p.start = n
	}
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			return nil, badRequest("count must be an integer from 1 to %d", maxPageSize)
		}
		p.count = n
	}
	for _, b := range []struct {
		name string
		dst  *int64
	}{{"createdAt.start", &p.createdMin}, {"createdAt.end", &p.createdMax}, {"updatedAt.start", &p.updatedMin}, {"updatedAt.end", &p.updatedMax}} {
		v := q.Get(b.name)
		if v == "" {
			continue
		}
		ms, ok := parseInstant(v)
		if !ok {
			return nil, badRequest("%s must be epoch milliseconds or an RFC 3339 time", b.name)
		}
		*b.dst = ms
	}
	for _, b := range []struct {
		name string
		dst  *int64
	}{{"amount.min", &p.amountMin}, {"amount.max", &p.amountMax}} {
		v := q.Get(b.name)
		if v == "" {
			continue
		}
		a, err := models.ParseAmount(v) // no minus sign
		cents, cerr := a.Cents()
		if err != nil || cerr != nil {
			return nil, badRequest("%s must be a decimal with two places, like 10.00", b.name)
		}
		*b.dst = cents
	}
	return p, nil
}

// parseInstant reads epoch milliseconds, or an RFC 3339 time.
func parseInstant(v string) (int64, bool) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
		return ms, true
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UnixMilli(), true
	}
	return 0, false
}

// inRange reports whether v is within [min, max] (-1: unbounded).
func inRange(v, min, max int64) bool {
	return (min < 0 || v >= min) && (max < 0 || v <= max)
}

// window returns the page of items (already in order).
func window[T any](items []T, p *listPage) []T {
	if p.start >= len(items) {
		return items[:0]
	}
	end := min(len(items), p.start+min(p.count, PageCap))
	return items[p.start:end]
}

// order sorts items by key (creation order when p has no orderBy; ties keep
// creation order), reversed for desc.
func order[T any](items []T, p *listPage, key func(T, string) int64) {
	if p.orderBy != "" {
		slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(key(a, p.orderBy), key(b, p.orderBy)) })
	}
	if p.desc {
		slices.Reverse(items)
	}
}

// codeSet reads a repeated filter of numeric codes (nil when absent).
func codeSet(q url.Values, name string) (map[int]bool, *Error) {
	vs := q[name]
	if len(vs) == 0 {
		return nil, nil
	}
	set := make(map[int]bool, len(vs))
	for _, v := range vs {
		w, ok := jsonr.WholeNumber(v)
		n, err := strconv.Atoi(w)
		if !ok || err != nil {
			return nil, badRequest("%s must be a numeric code", name)
		}
		set[n] = true
	}
	return set, nil
}

// cents is an amount in cents (0 when unreadable).
func cents(a models.Amount) int64 {
	c, _ := a.Cents()
	return c
}

// authorizationOf is the authorization t belongs to: t itself, the
// authorization a deposit, capture or preauthorization was made from, or
// that of the capture or deposit a refund or reclaim returns.
func authorizationOf(t *txn) *txn {
	for t.parent != nil {
		t = t.parent
	}
	return t
}

// customerExternalID is the externalId of the customer of authorization a.
func customerExternalID(m *merchant, a *txn) string {
	if rec := m.customers[a.customerID]; rec != nil {
		return rec.c.ExternalID
	}
	return ""
}

func transactionKey(t *txn, field string) int64 {
	switch field {
	case "updatedAt":
		return int64(t.rec.UpdatedAt)
	case "processedAt":
		return int64(t.rec.ProcessedAt)
	case "completedAt":
		return int64(t.rec.CompletedAt)
	case "amount":
		return cents(t.rec.Amount)
	case "transactionId":
		n, _ := strconv.ParseInt(t.id(), 10, 64)
		return n
	}
	return int64(t.rec.CreatedAt)
}

// handleListTransactions serves GET /transactions: transactionType,
// transactionStatus and payment.paymentType (repeated codes),
// originalTransactionId, payment.paymentId, payment.merchantReference (the
// payment's reference, that of the authorization, as the OpenAPI documents
// it: "transactions of the payments associated with this merchant
// reference"; a transaction's own reference is not matched), payment.customer.externalId, amount.min/max,
// createdAt.start/end and updatedAt.start/end (inclusive), orderBy,
// sortOrder, startIndex, count (at most PageCap served). The response is
// {"transactions":[…]}, the OpenAPI's shape: no startIndex, no
// itemsPerPage, no total; the account numbers cut to their last 4 digits.
func (s *Server) handleListTransactions(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	p, err := parseListPage(q, wire.TransactionOrderFields())
	if err != nil {
		return nil, err
	}
	types, err := codeSet(q, "transactionType")
	if err != nil {
		return nil, err
	}
	statuses, err := codeSet(q, "transactionStatus")
	if err != nil {
		return nil, err
	}
	paymentTypes, err := codeSet(q, "payment.paymentType")
	if err != nil {
		return nil, err
	}
	original, paymentID := q.Get("originalTransactionId"), q.Get("payment.paymentId")
	ref, external := q.Get("payment.merchantReference"), q.Get("payment.customer.externalId")

	filtered := types != nil || statuses != nil || paymentTypes != nil || original != "" || paymentID != "" || ref != "" || external != "" ||
		p.amountMin >= 0 || p.amountMax >= 0 || p.createdMin >= 0 || p.createdMax >= 0 || p.updatedMin >= 0 || p.updatedMax >= 0
	var matches []*txn
	if !filtered {
		matches = slices.Clone(m.txns)
	}
	for _, t := range m.txns {
		if !filtered {
			break
		}
		rec := &t.rec
		auth := authorizationOf(t)
		switch {
		case types != nil && !types[int(rec.TransactionType)],
			statuses != nil && !statuses[int(rec.Status)],
			paymentTypes != nil && !paymentTypes[int(rec.Payment.PaymentType)],
			original != "" && rec.OriginalTransactionID != original,
			paymentID != "" && rec.Payment.PaymentID != paymentID,
			ref != "" && auth.rec.MerchantReference != ref,
			external != "" && customerExternalID(m, auth) != external,
			!inRange(cents(rec.Amount), p.amountMin, p.amountMax),
			!inRange(int64(rec.CreatedAt), p.createdMin, p.createdMax),
			!inRange(int64(rec.UpdatedAt), p.updatedMin, p.updatedMax):
			continue
		}
		matches = append(matches, t)
	}
	order(matches, p, transactionKey)
	page := window(matches, p)
	out := make([]*transactionAnswer, len(page))
	for i, t := range page {
		out[i] = s.answer(t, t.view())
	}
	return struct {
		Transactions []*transactionAnswer `json:"transactions"`
	}{out}, nil
}

// paymentTotals are the amounts of the transactions of an authorization,
// in cents.
type paymentTotals struct {
	pending, paid, refunded, reversed int64
	updatedAt                         models.EpochMillis
	versions                          int
}

// totals sums the transactions of m's authorizations (only keeps's, when
// not nil), keyed by authorization: deposits and captures are pending
// (Authorized or Processed) or paid (Completed, Partially refunded,
// Refunded, and Reversed after it was paid; Reversed also counts in
// reversed); refunds and reclaims that are not Canceled or Denied count in
// refunded (money returned). Denied and Canceled transactions count
// nowhere; preauthorizations move no money.
func totals(m *merchant, only *txn) map[*txn]*paymentTotals {
	out := map[*txn]*paymentTotals{}
	txns := m.txns
	if only != nil {
		txns = only.family // its own transactions: not the merchant's thousands
	}
	for _, t := range txns {
		if t.parent == nil {
			continue
		}
		auth := authorizationOf(t)
		if only != nil && auth != only {
			continue
		}
		tot := out[auth]
		if tot == nil {
			tot = &paymentTotals{}
			out[auth] = tot
		}
		tot.updatedAt = max(tot.updatedAt, t.rec.UpdatedAt)
		tot.versions += t.rec.RecordVersion
		switch t.rec.TransactionType {
		case models.TypeDeposit, models.TypeCapture:
			switch t.rec.Status {
			case models.StatusAuthorized, models.StatusProcessed:
				tot.pending += t.cents
			case models.StatusCompleted, models.StatusPartiallyRefunded, models.StatusRefunded:
				tot.paid += t.cents
			case models.StatusReversed:
				tot.paid += t.cents
				tot.reversed += t.cents
			}
		case models.TypeRefund, models.TypeReclaim:
			switch t.rec.Status {
			case models.StatusCanceled, models.StatusDenied:
			default:
				tot.refunded += t.cents
			}
		}
	}
	return out
}

// paymentView is the payment of authorization a as GET /payments shows it
// (the OpenAPI's Payment): its account number cut to the last 4 digits,
// the authorization's reference and status, the totals of its
// transactions (see totals), and the customer the establish data described
// (its ids, name, email, phone and address).
func (s *Server) paymentView(m *merchant, a *txn, tot *paymentTotals) *models.Payment {
	if tot == nil {
		tot = &paymentTotals{}
	}
	p := *a.view().Payment
	fillPayment(&p, a, tot)
	if a.data != nil {
		p.Description = a.data.Description
	}
	// The customer the establish data described; none for an establish
	// without one (its record is no more than an id).
	if rec := m.customers[a.customerID]; rec != nil && rec.c.Name != "" {
		p.Customer = &models.Customer{CustomerID: rec.c.CustomerID, ExternalID: rec.c.ExternalID, Name: rec.c.Name, Email: rec.c.Email,
			Phone: rec.c.Phone, Address: rec.c.Address}
	}
	return &p
}

// fillPayment sets the OpenAPI's required state of payment p of
// authorization a from tot (see totals): its reference, the authorization's
// status, the totals, its times and record version.
func fillPayment(p *models.Payment, a *txn, tot *paymentTotals) {
	p.MerchantReference = a.rec.MerchantReference
	st := a.rec.Status
	p.AuthorizationStatus = &st
	p.AuthorizationStatusMessage = a.rec.StatusMessage
	p.Pending = models.AmountFromCents(tot.pending)
	p.Paid = models.AmountFromCents(tot.paid)
	p.Reversed = models.AmountFromCents(tot.reversed)
	p.Refunded = models.AmountFromCents(tot.refunded)
	p.Balance = models.AmountFromCents(tot.paid - tot.reversed - tot.refunded)
	p.CreatedAt = a.rec.CreatedAt
	p.UpdatedAt = max(a.rec.UpdatedAt, tot.updatedAt)
	p.RecordVersion = a.rec.RecordVersion + tot.versions
}

func paymentKey(p *models.Payment, field string) int64 {
	switch field {
	case "updatedAt":
		return int64(p.UpdatedAt)
	case "amount":
		return cents(p.Amount)
	case "paymentId":
		n, _ := strconv.ParseInt(p.PaymentID, 10, 64)
		return n
	}
	return int64(p.CreatedAt)
}

// handleListPayments serves GET /payments: the payments of the merchant's
// authorizations, filtered by paymentType and authorization.status
// (repeated codes), merchantReference, customer.customerId, amount.min/max,
// createdAt.start/end and updatedAt.start/end, ordered and paged like the
// transactions (at most PageCap a page). The response is
// {"payments":[…],"startIndex":…,"itemsPerPage":…}, the OpenAPI's shape,
// itemsPerPage the page size served (the count asked, capped at PageCap).
func (s *Server) handleListPayments(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	p, err := parseListPage(q, wire.PaymentOrderFields())
	if err != nil {
		return nil, err
	}
	types, err := codeSet(q, "paymentType")
	if err != nil {
		return nil, err
	}
	statuses, err := codeSet(q, "authorization.status")
	if err != nil {
		return nil, err
	}
	ref, customerID := q.Get("merchantReference"), q.Get("customer.customerId")
	all := totals(m, nil)
	var matches []*models.Payment
	of := map[*models.Payment]*txn{}
	for _, t := range m.txns {
		if t.rec.TransactionType != models.TypeAuthorize {
			continue
		}
		if (types != nil && !types[int(t.rec.Payment.PaymentType)]) ||
			(statuses != nil && !statuses[int(t.rec.Status)]) ||
			(ref != "" && t.rec.MerchantReference != ref) ||
			(customerID != "" && t.customerID != customerID) {
			continue
		}
		v := s.paymentView(m, t, all[t])
		if !inRange(cents(v.Amount), p.amountMin, p.amountMax) ||
			!inRange(int64(v.CreatedAt), p.createdMin, p.createdMax) ||
			!inRange(int64(v.UpdatedAt), p.updatedMin, p.updatedMax) {
			continue
		}
		matches = append(matches, v)
		of[v] = t
	}
	order(matches, p, paymentKey)
	page := window(matches, p)
	out := make([]*paymentAnswer, len(page))
	for i, v := range page {
		out[i] = newPaymentAnswer(v, of[v], s.bare)
	}
	return struct {
		Payments     []*paymentAnswer `json:"payments"`
		StartIndex   int              `json:"startIndex"`
		ItemsPerPage int              `json:"itemsPerPage"`
	}{out, p.start, min(p.count, PageCap)}, nil
}

// handleGetPayment serves GET /payments/{id}: the payment of the
// merchant's authorization id (a payment's id is its authorization's), bare
// as the OpenAPI shows it; 404/200 for any other id.
func (s *Server) handleGetPayment(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t := s.st.txns[id]
	if t == nil || t.m != m || t.rec.TransactionType != models.TypeAuthorize {
		return nil, notFound("payment")
	}
	v := s.paymentView(m, t, totals(m, t)[t])
	return newPaymentAnswer(v, t, s.bare), nil
}
