package bankpay

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// TransactionListParams filters, orders and pages GET /transactions. Every
// field is optional; an empty value is no filter. Filters combine (a
// transaction must pass each one); a repeated filter keeps a transaction
// that matches any of its values.
type TransactionListParams struct {
	// TransactionTypes keeps transactions of these types (transactionType,
	// repeated).
	TransactionTypes []models.TransactionType
	// Statuses keeps transactions currently in these statuses
	// (transactionStatus, repeated).
	Statuses []models.TransactionStatus
	// PaymentTypes keeps transactions of payments of these types
	// (payment.paymentType, repeated; sent as codes, 2 for Deferred).
	PaymentTypes []models.PaymentType
	// MerchantReference keeps the transactions associated with this
	// merchantReference (payment.merchantReference). FindByMerchantReference
	// narrows the result to the transactions that carry it themselves.
	MerchantReference string
	// OriginalTransactionID keeps the transactions made from this one (the
	// deposits and captures of an authorization: originalTransactionId).
	OriginalTransactionID string
	// PaymentID keeps the transactions of this payment (payment.paymentId).
	PaymentID string
	// CustomerExternalID keeps the transactions of payments of the customer
	// the merchant knows by this id (payment.customer.externalId).
	CustomerExternalID string
	// AmountMin and AmountMax bound the amount, N.NN (amount.min,
	// amount.max).
	AmountMin, AmountMax models.Amount
	// CreatedAtStart and CreatedAtEnd bound the creation time
	// (createdAt.start, createdAt.end), UpdatedAtStart and UpdatedAtEnd the
	// time of the last change (updatedAt.start, updatedAt.end); sent as
	// epoch milliseconds. The zero time is no bound.
	CreatedAtStart, CreatedAtEnd time.Time
	UpdatedAtStart, UpdatedAtEnd time.Time
	// OrderBy is the field the list is ordered by: createdAt, updatedAt,
	// processedAt, completedAt, amount or transactionId (the service's
	// default order when empty). SortOrder is "asc" or "desc".
	OrderBy, SortOrder string
	// StartIndex is the offset of the first transaction (0 for the first).
	StartIndex int
	// Count is the page size: 1 to 1000, 0 for 100. List reads the whole
	// list a page of Count at a time; ListPage reads one page. A page
	// shorter than Count (and than the itemsPerPage the service reports, if
	// any) is taken as the last, so a Count above the service's own page
	// cap, which the OpenAPI does not give, could end List early.
	Count int
}

// transactionOrderFields are the orderBy values of GET /transactions.
var transactionOrderFields = []string{"createdAt", "updatedAt", "processedAt", "completedAt", "amount", "transactionId"}

// transactionQuery is the wire form of TransactionListParams.
type transactionQuery struct {
	TransactionType       []string `url:"transactionType,omitempty"`
	TransactionStatus     []string `url:"transactionStatus,omitempty"`
	PaymentType           []string `url:"payment.paymentType,omitempty"`
	MerchantReference     string   `url:"payment.merchantReference,omitempty"`
	OriginalTransactionID string   `url:"originalTransactionId,omitempty"`
	PaymentID             string   `url:"payment.paymentId,omitempty"`
	CustomerExternalID    string   `url:"payment.customer.externalId,omitempty"`
	listRangeQuery
}

func (q *transactionQuery) encodeQuery(v url.Values) {
	addAll(v, "transactionType", q.TransactionType)
	addAll(v, "transactionStatus", q.TransactionStatus)
	addAll(v, "payment.paymentType", q.PaymentType)
	addNonEmpty(v, "payment.merchantReference", q.MerchantReference)
	addNonEmpty(v, "originalTransactionId", q.OriginalTransactionID)
	addNonEmpty(v, "payment.paymentId", q.PaymentID)
	addNonEmpty(v, "payment.customer.externalId", q.CustomerExternalID)
	q.listRangeQuery.encodeQuery(v)
}

// query validates p and encodes it (nil p lists everything).
func (p *TransactionListParams) query() (url.Values, error) {
	if p == nil {
		p = &TransactionListParams{}
	}
	r := listRange{
		amountMin: p.AmountMin, amountMax: p.AmountMax,
		createdStart: p.CreatedAtStart, createdEnd: p.CreatedAtEnd,
		updatedStart: p.UpdatedAtStart, updatedEnd: p.UpdatedAtEnd,
		orderBy: p.OrderBy, sortOrder: p.SortOrder, startIndex: p.StartIndex, count: p.Count,
		orderFields: transactionOrderFields,
	}
	types, err := codes("transactionType", p.TransactionTypes, knownTransactionType)
	if err != nil {
		return nil, err
	}
	statuses, err := codes("transactionStatus", p.Statuses, knownTransactionStatus)
	if err != nil {
		return nil, err
	}
	paymentTypes, err := codes("payment.paymentType", p.PaymentTypes, knownPaymentType)
	if err != nil {
		return nil, err
	}
	if err := firstError(
		checkFilter("payment.merchantReference", p.MerchantReference),
		checkFilter("originalTransactionId", p.OriginalTransactionID),
		checkFilter("payment.paymentId", p.PaymentID),
		checkFilter("payment.customer.externalId", p.CustomerExternalID),
		r.validate(),
	); err != nil {
		return nil, err
	}
	return listQuery(&transactionQuery{
		TransactionType:       types,
		TransactionStatus:     statuses,
		PaymentType:           paymentTypes,
		MerchantReference:     p.MerchantReference,
		OriginalTransactionID: p.OriginalTransactionID,
		PaymentID:             p.PaymentID,
		CustomerExternalID:    p.CustomerExternalID,
		listRangeQuery:        r.query(),
	})
}

// List returns an iterator over the transactions that match p (nil: all of
// them), from p.StartIndex on: GET /transactions, read lazily, one page of
// p.Count (default 100) at a time, only as the loop asks for more, so that
// a list of any length takes the memory of one page. Invalid params are a
// *ValidationError and nothing is sent. The iteration stops at the end of
// the list, at the first error (yielded with a nil transaction: an
// *APIError, *NetworkError or *ResponseError of that page) or when ctx is
// done. Each page is a read, retried like any GET.
//
//	for t, err := range c.Transactions.List(ctx, &bankpay.TransactionListParams{
//		TransactionTypes: []models.TransactionType{models.TypeDeposit},
//	}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(t.TransactionID, t.Status)
//	}
func (s *TransactionsService) List(ctx context.Context, p *TransactionListParams, opts ...Option) iter.Seq2[*models.Transaction, error] {
	q, err := p.query()
	if err != nil {
		return func(yield func(*models.Transaction, error) bool) { yield(nil, err) }
	}
	return paginate(ctx, q, func(ctx context.Context, q url.Values) (*Page[models.Transaction], error) {
		return listPage[models.Transaction](ctx, s.client, "/transactions", q, "transactions", opts)
	})
}

// ListPage reads one page of the transactions that match p: GET
// /transactions with p.StartIndex and p.Count (default 100), validated as
// for List. A page shorter than the count asked is the last one.
func (s *TransactionsService) ListPage(ctx context.Context, p *TransactionListParams, opts ...Option) (*Page[models.Transaction], error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return listPage[models.Transaction](ctx, s.client, "/transactions", q, "transactions", opts)
}

// FindByMerchantReference finds the transaction that carries
// merchantReference ref: the reconciliation call. When a deposit, capture
// or establish fails with a *NetworkError whose Sent is true, or with an
// ErrInvalidResponse, the service may have acted on it: call
// FindByMerchantReference with the call's merchantReference before paying
// again. It lists GET /transactions?payment.merchantReference=ref (see
// List; an empty ref, or one with control characters, is a
// *ValidationError) and keeps the transactions whose own merchantReference
// is ref.
//
// None: the error matches ErrNotFound. The operator documents the filter as
// the payment's (the authorization's) reference, while the sandbox also
// matches a transaction's own: until that is confirmed against the service
// (docs/wire.md), confirm a deposit or capture with List and
// OriginalTransactionID (the authorization) before making it again, and make
// it again only with the same merchantReference, so that an account
// configured for idempotency refuses a repeat (ErrDuplicate). More than one (the
// reference used for an authorization and its deposit, or a repeat on an
// account without merchantReference idempotency): the error matches
// ErrAmbiguous and no transaction is returned; read them with List. Any
// other error is that of the list.
func (s *TransactionsService) FindByMerchantReference(ctx context.Context, ref string, opts ...Option) (*models.Transaction, error) {
	if err := firstError(required("merchantReference", ref), checkFilter("merchantReference", ref)); err != nil {
		return nil, err
	}
	var found *models.Transaction
	// Offset paging over a list that grows as it is read can show a
	// transaction twice (a newer one shifts the rest down a page): the
	// second sight is skipped, not counted as another. A whole page's worth
	// of repeats in a row is a server that repeats a page for every
	// startIndex, which would keep the loop going until ctx ends: it is
	// ErrInvalidResponse.
	seen := map[string]bool{}
	repeats := 0
	for t, err := range s.List(ctx, &TransactionListParams{MerchantReference: ref}, opts...) {
		if err != nil {
			return nil, err
		}
		if t.TransactionID != "" {
			if seen[t.TransactionID] {
				if repeats++; repeats >= defaultPageSize {
					return nil, &ResponseError{StatusCode: http.StatusOK, Method: http.MethodGet, Path: "/transactions",
						Err: errors.New("the list repeats a page of transactions")}
				}
				continue
			}
			seen[t.TransactionID] = true
			repeats = 0
		}
		if t.MerchantReference != ref {
			continue
		}
		if found != nil {
			return nil, errAmbiguousReference
		}
		found = t
	}
	if found == nil {
		return nil, errNoSuchReference
	}
	return found, nil
}

var (
	errNoSuchReference    = &findError{"no transaction has this merchantReference", ErrNotFound}
	errAmbiguousReference = &findError{"more than one transaction has this merchantReference", ErrAmbiguous}
)

// findError is a FindByMerchantReference result that is not a response of
// the service: it matches its sentinel.
type findError struct {
	msg      string
	sentinel error
}

func (e *findError) Error() string        { return "bankpay: " + e.msg }
func (e *findError) Is(target error) bool { return target == e.sentinel }
