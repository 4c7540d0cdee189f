package bankpay

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// PaymentsService reads payments: an authorization and the totals paid,
// pending, reversed and refunded under it.
type PaymentsService service

// Get reads a payment: GET /payments/{paymentId} (a transaction's
// Payment.PaymentID). The response is read bare (the OpenAPI's shape) or
// wrapped as {"payment":…}. An empty id is a *ValidationError and nothing
// is sent; the call is a read, retried like any GET.
func (s *PaymentsService) Get(ctx context.Context, paymentID string, opts ...Option) (*models.Payment, error) {
	if err := checkID("paymentId", paymentID); err != nil {
		return nil, err
	}
	return call[models.Payment](ctx, s.client, http.MethodGet, pathJoin("payments", paymentID), nil, nil, "payment", opts)
}

// PaymentListParams filters, orders and pages GET /payments. Every field is
// optional; an empty value is no filter. Filters combine; a repeated filter
// keeps a payment that matches any of its values.
type PaymentListParams struct {
	// PaymentTypes keeps payments of these types (paymentType, repeated;
	// sent as codes, 2 for Deferred).
	PaymentTypes []models.PaymentType
	// AuthorizationStatuses keeps payments whose authorization is in these
	// statuses (authorization.status, repeated).
	AuthorizationStatuses []models.TransactionStatus
	// MerchantReference keeps the payment of the authorization with this
	// merchantReference (merchantReference).
	MerchantReference string
	// CustomerID keeps the payments of this customer record
	// (customer.customerId, the service's id).
	CustomerID string
	// AmountMin and AmountMax bound the amount, N.NN (amount.min,
	// amount.max).
	AmountMin, AmountMax models.Amount
	// CreatedAtStart, CreatedAtEnd, UpdatedAtStart and UpdatedAtEnd bound
	// the creation time and the time of the last change (createdAt.start,
	// …; epoch milliseconds). The zero time is no bound.
	CreatedAtStart, CreatedAtEnd time.Time
	UpdatedAtStart, UpdatedAtEnd time.Time
	// OrderBy is createdAt, updatedAt, amount or paymentId (the service's
	// default order when empty); SortOrder is "asc" or "desc".
	OrderBy, SortOrder string
	// StartIndex is the offset of the first payment (0 for the first).
	StartIndex int
	// Count is the page size asked: 1 to 1000, 0 for 100. The service may
	// return fewer (it may cap its pages); a page with more is an
	// ErrInvalidResponse. List reads on until an empty page.
	Count int
}

// paymentOrderFields are the orderBy values of GET /payments.
var paymentOrderFields = []string{"createdAt", "updatedAt", "amount", "paymentId"}

// paymentQuery is the wire form of PaymentListParams.
type paymentQuery struct {
	PaymentType         []string `url:"paymentType,omitempty"`
	AuthorizationStatus []string `url:"authorization.status,omitempty"`
	MerchantReference   string   `url:"merchantReference,omitempty"`
	CustomerID          string   `url:"customer.customerId,omitempty"`
	listRangeQuery
}

func (q *paymentQuery) encodeQuery(v url.Values) {
	addAll(v, "paymentType", q.PaymentType)
	addAll(v, "authorization.status", q.AuthorizationStatus)
	addNonEmpty(v, "merchantReference", q.MerchantReference)
	addNonEmpty(v, "customer.customerId", q.CustomerID)
	q.listRangeQuery.encodeQuery(v)
}

func (p *PaymentListParams) query() (url.Values, error) {
	if p == nil {
		p = &PaymentListParams{}
	}
	r := listRange{
		amountMin: p.AmountMin, amountMax: p.AmountMax,
		createdStart: p.CreatedAtStart, createdEnd: p.CreatedAtEnd,
		updatedStart: p.UpdatedAtStart, updatedEnd: p.UpdatedAtEnd,
		orderBy: p.OrderBy, sortOrder: p.SortOrder, startIndex: p.StartIndex, count: p.Count,
		orderFields: paymentOrderFields,
	}
	types, err := codes("paymentType", p.PaymentTypes, knownPaymentType)
	if err != nil {
		return nil, err
	}
	statuses, err := codes("authorization.status", p.AuthorizationStatuses, knownTransactionStatus)
	if err != nil {
		return nil, err
	}
	if err := firstError(
		checkFilter("merchantReference", p.MerchantReference),
		checkFilter("customer.customerId", p.CustomerID),
		r.validate(),
	); err != nil {
		return nil, err
	}
	return listQuery(&paymentQuery{
		PaymentType:         types,
		AuthorizationStatus: statuses,
		MerchantReference:   p.MerchantReference,
		CustomerID:          p.CustomerID,
		listRangeQuery:      r.query(),
	})
}

// List returns an iterator over the payments that match p (nil: all of
// them), from p.StartIndex on: GET /payments, read lazily one page of
// p.Count (default 100) at a time, each from where the last one ended,
// until an empty page, like Transactions.List. Invalid params
// are a *ValidationError and nothing is sent; the iteration stops at the
// end, at the first error (yielded with a nil payment) or when ctx is done.
// Each page is a read, retried like any GET.
func (s *PaymentsService) List(ctx context.Context, p *PaymentListParams, opts ...Option) iter.Seq2[*models.Payment, error] {
	q, err := p.query()
	if err != nil {
		return func(yield func(*models.Payment, error) bool) { yield(nil, err) }
	}
	return paginate(ctx, q, func(ctx context.Context, q url.Values) (*Page[models.Payment], error) {
		return listPage[models.Payment](ctx, s.client, "/payments", q, "payments", opts)
	})
}

// ListPage reads one page of the payments that match p: GET /payments
// with p.StartIndex and p.Count (default 100), validated as for List. A
// page shorter than asked is not the last unless it is empty; one with
// more items than asked is a *ResponseError (ErrInvalidResponse), refused
// before its items are decoded.
func (s *PaymentsService) ListPage(ctx context.Context, p *PaymentListParams, opts ...Option) (*Page[models.Payment], error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return listPage[models.Payment](ctx, s.client, "/payments", q, "payments", opts)
}
