package bankpay

import (
	"context"
	"iter"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// PaymentsService reads payments: an authorization and the totals paid,
// pending, reversed and refunded under it.
type PaymentsService service

// Get reads a payment: GET /payments/{paymentId} (a transaction's
// Payment.PaymentID). The response is read bare (the OpenAPI's shape) or
// wrapped as {"payment":…}. An empty id is a *ValidationError and nothing
// is sent; the call is a read, retried like any GET. A response without
// the payment's paymentId (the OpenAPI requires it), or about another
// payment than the one asked (a cache or proxy mixing answers up: its
// totals are not this payment's), is a *ResponseError (ErrInvalidResponse).
// Ids compare trimmed and without case, as transactions' do.
func (s *PaymentsService) Get(ctx context.Context, paymentID string, opts ...Option) (*models.Payment, error) {
	if err := checkID("paymentId", paymentID); err != nil {
		return nil, err
	}
	return isThe(ops.PaymentsGet, paymentID, paymentIDField)(call[models.Payment](ctx, s.client, ops.PaymentsGet, args{IDs: []string{paymentID}}, opts))
}

// paymentIDField is the id a Payment answer is about (isThe).
var paymentIDField = idField[models.Payment]{"paymentId", func(p *models.Payment) string { return p.PaymentID }, true}

// PaymentListParams filters, orders and pages GET /payments. Every field is
// optional; an empty value is no filter. Filters combine; a repeated filter
// keeps a payment that matches any of its values.
type PaymentListParams struct {
	// PaymentTypes keeps payments of these types (sent as codes, 2 for
	// Deferred, one parameter each).
	PaymentTypes []models.PaymentType `url:"-"`
	// AuthorizationStatuses keeps payments whose authorization is in these
	// statuses.
	AuthorizationStatuses []models.TransactionStatus `url:"-"`
	// MerchantReference keeps the payment of the authorization with this
	// merchantReference.
	MerchantReference string `url:"merchantReference,omitempty"`
	// CustomerID keeps the payments of this customer record (the service's
	// id).
	CustomerID string `url:"customer.customerId,omitempty"`
	// ListRange bounds the amount and the times, orders and pages the list.
	// OrderBy is one of createdAt, updatedAt, amount or paymentId.
	ListRange
}

// paymentList is GET /payments, {"payments":[…],"startIndex":…,…}.
var paymentList = rangedList[models.Payment]{ops.PaymentsList}

// paymentQuery is PaymentListParams as the query sends it: the code
// filters as codes.
type paymentQuery struct {
	PaymentTypes          codeFilter[models.PaymentType]       `url:"paymentType"`
	AuthorizationStatuses codeFilter[models.TransactionStatus] `url:"authorization.status"`
	*PaymentListParams
}

// query validates p and encodes it (nil p lists everything).
func (p *PaymentListParams) query() (url.Values, error) {
	if p == nil {
		p = &PaymentListParams{}
	}
	return rangedQuery(&paymentQuery{
		PaymentTypes:          codeFilter[models.PaymentType]{p.PaymentTypes, knownPaymentType},
		AuthorizationStatuses: codeFilter[models.TransactionStatus]{p.AuthorizationStatuses, knownTransactionStatus},
		PaymentListParams:     p,
	}, &p.ListRange, wire.PaymentOrderFields)
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
	return paymentList.all(ctx, s.client, q, err, opts)
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
	return paymentList.page(ctx, s.client, q, opts)
}
