package bankpay

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// TransactionListParams filters, orders and pages GET /transactions. Every
// field is optional; an empty value is no filter. Filters combine (a
// transaction must pass each one); a repeated filter keeps a transaction
// that matches any of its values.
type TransactionListParams struct {
	// TransactionTypes keeps transactions of these types (sent as codes,
	// one parameter each).
	TransactionTypes []models.TransactionType `url:"-"`
	// Statuses keeps transactions currently in these statuses.
	Statuses []models.TransactionStatus `url:"-"`
	// PaymentTypes keeps transactions of payments of these types (sent as
	// codes, 2 for Deferred).
	PaymentTypes []models.PaymentType `url:"-"`
	// MerchantReference keeps the transactions of the payments associated
	// with this merchantReference: as the operator documents it, the
	// payment's, that is the authorization's, reference, so the list holds
	// the authorization and every transaction made from it, whatever their
	// own references. Some servers also match a transaction's own
	// reference; do not rely on either reading (a deposit is found by its
	// own reference with FindByMerchantReference).
	MerchantReference string `url:"payment.merchantReference,omitempty"`
	// OriginalTransactionID keeps the transactions made from this one: the
	// deposits, captures and preauthorizations of an authorization, the
	// refunds of a capture, the reclaims of a deposit.
	OriginalTransactionID string `url:"originalTransactionId,omitempty"`
	// PaymentID keeps the transactions of this payment.
	PaymentID string `url:"payment.paymentId,omitempty"`
	// CustomerExternalID keeps the transactions of payments of the customer
	// the merchant knows by this id.
	CustomerExternalID string `url:"payment.customer.externalId,omitempty"`
	// ListRange bounds the amount and the times, orders and pages the list.
	// OrderBy is one of createdAt, updatedAt, processedAt, completedAt,
	// amount or transactionId.
	ListRange
}

// transactionList is GET /transactions, {"transactions":[…]}.
var transactionList = rangedList[models.Transaction]{"/transactions", "transactions"}

// transactionQuery is TransactionListParams as the query sends it: the
// code filters as codes.
type transactionQuery struct {
	TransactionTypes codeFilter[models.TransactionType]   `url:"transactionType"`
	Statuses         codeFilter[models.TransactionStatus] `url:"transactionStatus"`
	PaymentTypes     codeFilter[models.PaymentType]       `url:"payment.paymentType"`
	*TransactionListParams
}

// query validates p and encodes it (nil p lists everything).
func (p *TransactionListParams) query() (url.Values, error) {
	if p == nil {
		p = &TransactionListParams{}
	}
	return rangedQuery(&transactionQuery{
		TransactionTypes:      codeFilter[models.TransactionType]{p.TransactionTypes, knownTransactionType},
		Statuses:              codeFilter[models.TransactionStatus]{p.Statuses, knownTransactionStatus},
		PaymentTypes:          codeFilter[models.PaymentType]{p.PaymentTypes, knownPaymentType},
		TransactionListParams: p,
	}, &p.ListRange, wire.TransactionOrderFields)
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
	return transactionList.all(ctx, s.client, q, err, opts)
}

// ListPage reads one page of the transactions that match p: GET
// /transactions with p.StartIndex and p.Count (default 100), validated as
// for List. A page shorter than the count asked is not the last one unless
// it is empty (servers cap their pages): the next starts at StartIndex plus
// the items received. A page with more items than asked is a
// *ResponseError (ErrInvalidResponse), refused before its items are
// decoded.
func (s *TransactionsService) ListPage(ctx context.Context, p *TransactionListParams, opts ...Option) (*Page[models.Transaction], error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return transactionList.page(ctx, s.client, q, opts)
}

// FindParams names the transaction FindByMerchantReference looks for: the
// one a money-moving call made, by the transaction the call was made
// against and the call's merchantReference.
type FindParams struct {
	// MerchantReference is the merchantReference the call was made with
	// (required). The transaction found carries it as its own.
	MerchantReference string
	// OriginalTransactionID is the transaction the call was made against:
	// the authorization for Deposit, Capture or Preauthorize, the capture
	// (or payment) for Refund, the deposit for Reclaim. Empty: the call was
	// Establish, and the authorization with MerchantReference is looked
	// for.
	OriginalTransactionID string
}

// findPageBudget is the most pages FindByMerchantReference reads (of 100
// asked: 20,000 transactions, or 10,000 from a server that caps its pages
// at 50) before it gives up with ErrIncomplete.
const findPageBudget = 200

// FindByMerchantReference finds the transaction a money-moving call made:
// the reconciliation call. When a Deposit, Capture, Refund, Reclaim,
// Preauthorize or Establish fails with a *NetworkError whose Sent is true,
// with an ErrInvalidResponse, or with a 5xx *APIError, the service may have
// acted on it: call FindByMerchantReference with what the call was made
// against and its merchantReference before paying again.
//
//	dep, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
//		OriginalTransactionID: authorizationID, // what Deposit was called with
//		MerchantReference:     "payout-42",     // the DepositParams' reference
//	})
//
// With an OriginalTransactionID it reads GET
// /transactions?originalTransactionId=… (the transactions made from that
// one, a filter every reading of the OpenAPI agrees on) and keeps those
// whose own merchantReference is p.MerchantReference; without, it reads GET
// /transactions?payment.merchantReference=… (the transactions of the
// payment with that reference) and keeps the authorization that carries it
// (a transaction made from none). The reference is matched here, not by
// the server, so the answer is the same whether the server's
// payment.merchantReference filter matches the payment's reference (as the
// operator documents) or also each transaction's own. The list is read
// whole, in creation order, page by page (at most 200 pages).
//
// The answers:
//   - a transaction, nil: the call was made; do not make it again.
//   - an error matching ErrNotFound: the whole list was read and no such
//     transaction was made. Making the call again is safe; make it with the
//     same merchantReference, so that a repeat is refused (ErrDuplicate) on
//     an account configured for idempotency.
//   - an error matching ErrAmbiguous: more than one transaction matches (a
//     repeat on an account without merchantReference idempotency); none is
//     returned: read them with List and OriginalTransactionID.
//   - an error matching ErrIncomplete: the list could not be read to its
//     end (a page failed, ctx ended, the server misbehaved, or the page
//     budget ran out). The transaction may exist: do not pay again; look
//     it up again later. The error wraps the cause (errors.Is with
//     context.DeadlineExceeded, errors.As with *APIError, …), except that
//     it never matches ErrNotFound or ErrAmbiguous.
//   - a *ValidationError: p is nil, its MerchantReference is empty, or a
//     field has control characters; nothing was sent.
func (s *TransactionsService) FindByMerchantReference(ctx context.Context, p *FindParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		return nil, invalid("params", "must not be nil")
	}
	ref, original := p.MerchantReference, p.OriginalTransactionID
	if err := firstError(required("merchantReference", ref), checkFilter("merchantReference", ref),
		checkFilter("originalTransactionId", original)); err != nil {
		return nil, err
	}
	lp := &TransactionListParams{OriginalTransactionID: original, ListRange: ListRange{OrderBy: "createdAt", SortOrder: "asc"}}
	// match keeps a transaction made from original (one whose list view
	// has no originalTransactionId is kept unless it is original itself: a
	// false match reads as "do not pay again", the safe side), or, with no
	// original, the authorization: a transaction made from none.
	match := func(t *models.Transaction) bool {
		if original == "" {
			return t.OriginalTransactionID == ""
		}
		return t.OriginalTransactionID == original || (t.OriginalTransactionID == "" && t.TransactionID != original)
	}
	if original == "" {
		lp.MerchantReference = ref
	}
	q, err := lp.query()
	if err != nil {
		return nil, err
	}
	var found *models.Transaction
	// Offset paging over a list that grows as it is read can show a
	// transaction twice (a newer one shifts the rest down a page): the
	// second sight is skipped, not counted as another. A whole page's worth
	// of repeats in a row is a server that repeats a page for every
	// startIndex, which would keep the loop going until the page budget.
	seen := map[string]bool{}
	repeats := 0
	pages := paginateBudget(ctx, q, findPageBudget, func(ctx context.Context, q url.Values) (*Page[models.Transaction], error) {
		return transactionList.page(ctx, s.client, q, opts)
	})
	for t, err := range pages {
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return nil, err
			}
			return nil, &incompleteError{err}
		}
		if t.TransactionID != "" {
			if seen[t.TransactionID] {
				if repeats++; repeats >= defaultPageSize {
					return nil, &incompleteError{&ResponseError{StatusCode: http.StatusOK, Method: http.MethodGet, Path: transactionList.path,
						Err: errors.New("the list repeats a page of transactions")}}
				}
				continue
			}
			seen[t.TransactionID] = true
			repeats = 0
		}
		if t.MerchantReference != ref || !match(t) {
			continue
		}
		if found != nil {
			return nil, errAmbiguousReference
		}
		found = t
	}
	if found == nil {
		if original == "" {
			return nil, errNoSuchAuthorization
		}
		return nil, errNoSuchReference
	}
	return found, nil
}

// ErrIncomplete: Transactions.FindByMerchantReference could not read the
// whole list (a failed page, the context's end, a misbehaving server, its
// page budget). It is not "not found": the transaction may exist, so do not
// pay again; look it up again. The error wraps its cause.
var ErrIncomplete = errors.New("bankpay: lookup incomplete")

var (
	errNoSuchReference     = &findError{"no transaction made from originalTransactionId has this merchantReference", ErrNotFound}
	errNoSuchAuthorization = &findError{"no authorization has this merchantReference", ErrNotFound}
	errAmbiguousReference  = &findError{"more than one transaction has this merchantReference", ErrAmbiguous}
)

// findError is a FindByMerchantReference result that is not a response of
// the service: it matches its sentinel.
type findError struct {
	msg      string
	sentinel error
}

func (e *findError) Error() string        { return "bankpay: " + e.msg }
func (e *findError) Is(target error) bool { return target == e.sentinel }

// incompleteError is a FindByMerchantReference whose list read stopped
// before its end: it matches ErrIncomplete and wraps the cause, unless the
// cause would read as an answer of the lookup (a 404 page matches
// ErrNotFound): then errors.Is does not reach the cause, and errors.As
// still does (an *APIError 404).
type incompleteError struct{ err error }

func (e *incompleteError) Error() string {
	return "bankpay: lookup incomplete, the transaction may exist (do not pay again): " + e.err.Error()
}

func (e *incompleteError) Is(target error) bool { return target == ErrIncomplete }

func (e *incompleteError) Unwrap() error {
	if e.hidden() {
		return nil
	}
	return e.err
}

// As finds target in a cause that Unwrap hides.
func (e *incompleteError) As(target any) bool { return e.hidden() && errors.As(e.err, target) }

// hidden reports whether the cause would read as an answer of the lookup.
func (e *incompleteError) hidden() bool {
	return errors.Is(e.err, ErrNotFound) || errors.Is(e.err, ErrAmbiguous)
}
