package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/internal/ops"
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
var transactionList = rangedList[models.Transaction]{ops.TransactionsList}

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
// against, the type of transaction the call makes and the call's
// merchantReference. All three are required.
type FindParams struct {
	// MerchantReference is the merchantReference the call was made with
	// (required). The transaction found carries it as its own.
	MerchantReference string
	// OriginalTransactionID is the transaction the call was made against
	// (required): the authorization for Deposit or Preauthorize, the
	// authorization (or a preauthorization) for Capture, the capture (or
	// payment) for Refund, the deposit for Reclaim. An authorization
	// (Establish) is found with FindAuthorization instead.
	OriginalTransactionID string
	// Type is the type of transaction the call makes (required):
	// models.TypeDeposit, TypeCapture, TypeRefund, TypeReclaim or
	// TypePreauthorization. Only transactions of this type made from
	// OriginalTransactionID are matched. The zero value (TypeExternal) is
	// unset: a *ValidationError on "type".
	Type models.TransactionType
}

// findParents is, for each Type a lookup takes, the types of transaction
// the call is made against (the OpenAPI's path parameter of each call;
// Refund's Pay from the service's documentation of Refund).
var findParents = map[models.TransactionType][]models.TransactionType{
	models.TypeDeposit:          {models.TypeAuthorize},
	models.TypeCapture:          {models.TypeAuthorize, models.TypePreauthorization},
	models.TypePreauthorization: {models.TypeAuthorize},
	models.TypeRefund:           {models.TypeCapture, models.TypePay},
	models.TypeReclaim:          {models.TypeDeposit},
}

// checkFindType refuses a lookup without a Type, or of a type no money call
// makes.
func checkFindType(typ models.TransactionType) error {
	const kinds = "models.TypeDeposit, TypeCapture, TypeRefund, TypeReclaim or TypePreauthorization"
	if typ == models.TypeExternal {
		return invalid("type", "is required: the type of transaction the call makes ("+kinds+")")
	}
	if _, ok := findParents[typ]; !ok {
		return invalid("type", "must be "+kinds)
	}
	return nil
}

// findPageBudget is the most pages FindByMerchantReference reads (of 100
// asked: 20,000 transactions, or 10,000 from a server that caps its pages
// at 50), over both its scans, before it gives up with ErrIncomplete.
const findPageBudget = 200

// FindByMerchantReference finds the transaction a money-moving call made:
// the reconciliation call. When OutcomeUnknown(err) holds for a Deposit,
// Capture, Refund, Reclaim or Preauthorize, the service may have acted on
// it: call FindByMerchantReference with what the call was made against and
// its merchantReference before paying again.
//
//	dep, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
//		OriginalTransactionID: authorizationID,    // what Deposit was called with
//		Type:                  models.TypeDeposit, // what Deposit makes
//		MerchantReference:     "payout-42",        // the DepositParams' reference
//	})
//
// It reads the original, then GET /transactions?originalTransactionId=…
// (the transactions made from that one), whole, in creation order, page by page (at most 200
// pages), and keeps those of type p.Type whose own merchantReference is
// p.MerchantReference (matched here, not by the server).
//
// The answers:
//   - a transaction, nil: the call was made; do not make it again.
//   - an error matching ErrNotFound: OriginalTransactionID is a
//     transaction of a type that p.Type is made from, the scan provably saw
//     every transaction made from it, and none of type p.Type carries the
//     reference: the call was not made. Making it again is safe; make it
//     with the same merchantReference, so that a repeat is refused
//     (ErrDuplicate) on an account configured for idempotency.
//   - an error matching ErrAmbiguous: more than one transaction matches (a
//     repeat on an account without merchantReference idempotency); none is
//     returned: read them with List and OriginalTransactionID.
//   - an error matching ErrIncomplete: the scan could not prove that it saw
//     every transaction: a page failed, ctx ended, the server misbehaved,
//     the page budget ran out, the list's order moved while it was read
//     (a transaction seen twice, on two scans in a row: offset paging over
//     a moving order can skip one), or a transaction made from the original
//     has a merchantReference (or id) that could not be read. The
//     transaction may exist: do not pay again; look it up again later. The
//     error wraps the cause (errors.Is with context.DeadlineExceeded,
//     errors.As with *APIError, …), except that it never matches
//     ErrNotFound or ErrAmbiguous.
//   - a *ValidationError: p is nil, its MerchantReference or
//     OriginalTransactionID is empty, its Type is unset or not one a money
//     call makes, or a field has control characters (nothing was sent); or
//     the original transaction is of a type a transaction of p.Type is not
//     made from (Field "originalTransactionId"; only the original was
//     read, nothing was concluded: look up again with the right one).
//
// The original transaction is read first (GET /transactions/{id}): when it
// does not exist (404) or cannot be read, the answer is ErrIncomplete,
// never ErrNotFound: a wrong OriginalTransactionID proves nothing.
func (s *TransactionsService) FindByMerchantReference(ctx context.Context, p *FindParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		return nil, invalid("params", "must not be nil")
	}
	ref, original := p.MerchantReference, p.OriginalTransactionID
	if err := firstError(required("merchantReference", ref), checkFilter("merchantReference", ref), requiredOriginal(original),
		checkFilter("originalTransactionId", original)); err != nil {
		return nil, err
	}
	if err := checkFindType(p.Type); err != nil {
		return nil, err
	}
	if err := s.checkOriginal(ctx, original, p.Type, opts); err != nil {
		return nil, err
	}
	return s.findMadeFrom(ctx, original, p.Type, ref, opts)
}

// findMadeFrom is FindByMerchantReference's list read, once the original
// is known to be one a transaction of type typ is made from: the one
// transaction of type typ made from original whose reference is ref.
func (s *TransactionsService) findMadeFrom(ctx context.Context, original string, typ models.TransactionType, ref string, opts []Option) (*models.Transaction, error) {
	// A transaction of typ made from original (one whose list view has no
	// originalTransactionId is kept unless it is original itself: a false
	// match reads as "do not pay again", the safe side).
	madeFrom := func(t *models.Transaction) bool {
		// Ids compared without case: a list that writes the original's id
		// in another case must not hide what was made from it.
		return t.TransactionType == typ &&
			(strings.EqualFold(t.OriginalTransactionID, original) || (t.OriginalTransactionID == "" && t.TransactionID != original))
	}
	found, err := s.find(ctx, &TransactionListParams{OriginalTransactionID: original}, ref, madeFrom, opts)
	if err == nil && found == nil {
		return nil, errNoSuchReference
	}
	return found, err
}

// checkOriginal reads the original transaction and checks that a
// transaction of type typ is made from one of its type: a list of the
// transactions made from an id that does not exist, or from the wrong
// transaction (the authorization given for a refund), is empty of the one
// looked for, which proves nothing. An original that cannot be read is
// ErrIncomplete (never ErrNotFound, even on a 404); one of the wrong type
// is a *ValidationError on originalTransactionId.
func (s *TransactionsService) checkOriginal(ctx context.Context, original string, typ models.TransactionType, opts []Option) error {
	t, err := s.Get(ctx, original, opts...)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return err
		}
		return &incompleteError{&originalError{err}}
	}
	parents := findParents[typ]
	if slices.Contains(parents, t.TransactionType) {
		return nil
	}
	names := make([]string, len(parents))
	for i, pt := range parents {
		names[i] = fmt.Sprintf("%s (%d)", pt, int(pt))
	}
	return invalid("originalTransactionId", fmt.Sprintf("is of type %s (%d), and a %s is made from one of type %s: "+
		"give the transaction the call was made against (nothing was concluded: the %s may exist)",
		t.TransactionType, int(t.TransactionType), typ, strings.Join(names, " or "), typ))
}

// originalError is the cause of a lookup whose original transaction could
// not be read.
type originalError struct{ err error }

func (e *originalError) Error() string {
	return "the original transaction could not be read (check OriginalTransactionID: it must be the transaction " +
		"the call was made against): " + e.err.Error()
}

func (e *originalError) Unwrap() error { return e.err }

// requiredOriginal refuses a lookup with no originalTransactionId: a money
// call is reconciled against the transaction it was made against.
func requiredOriginal(original string) error {
	if original == "" {
		return invalid("originalTransactionId", "is required: the transaction the call was made against "+
			"(an authorization is found with Transactions.FindAuthorization)")
	}
	return nil
}

// FindAuthorization finds the authorization (a transaction made from none)
// whose own merchantReference is merchantReference: after an Establish
// whose response was lost. It reads GET
// /transactions?payment.merchantReference=… whole, as
// FindByMerchantReference does (an authorization listed without a
// merchantReference of its own carries its payment's), and answers:
//   - the authorization, true, nil: it exists.
//   - nil, false, nil: the scan provably saw every transaction of the
//     payments with that reference and no authorization has it. This says
//     nothing of a deposit, capture, refund or reclaim with the reference:
//     those are found with FindByMerchantReference.
//   - an error matching ErrAmbiguous, ErrIncomplete or a *ValidationError,
//     as FindByMerchantReference's.
func (s *TransactionsService) FindAuthorization(ctx context.Context, merchantReference string, opts ...Option) (*models.Transaction, bool, error) {
	if err := firstError(required("merchantReference", merchantReference), checkFilter("merchantReference", merchantReference)); err != nil {
		return nil, false, err
	}
	isAuthorization := func(t *models.Transaction) bool { return t.OriginalTransactionID == "" }
	found, err := s.findRef(ctx, &TransactionListParams{MerchantReference: merchantReference}, merchantReference, isAuthorization, authorizationReference, opts)
	return found, found != nil, err
}

// authorizationReference is the reference an authorization of the list
// carries: its own, or, when it has none, its payment's (the one Establish
// sent, and the one the list was filtered by): a list that writes it only
// there does not hide the authorization.
func authorizationReference(t *models.Transaction) string {
	if t.MerchantReference == "" && t.Payment != nil {
		return t.Payment.MerchantReference
	}
	return t.MerchantReference
}

// ownReference is a transaction's own merchantReference.
func ownReference(t *models.Transaction) string { return t.MerchantReference }

// find reads the list of lp in creation order and returns the one
// transaction that match keeps whose merchantReference is ref, or nil, nil
// when a scan provably saw every transaction of the list and none matched.
// A scan that saw a transaction twice, or one without an id, proves
// nothing (offset paging over a moving order can skip one whenever it
// shows another twice: a scan of N slots with N distinct ids saw them
// all): the list is read a second time, within the same page budget, and
// if that scan proves nothing either, the answer is ErrIncomplete.
func (s *TransactionsService) find(ctx context.Context, lp *TransactionListParams, ref string, match func(*models.Transaction) bool, opts []Option) (*models.Transaction, error) {
	return s.findRef(ctx, lp, ref, match, ownReference, opts)
}

// findRef is find, reading each transaction's reference with refOf.
func (s *TransactionsService) findRef(ctx context.Context, lp *TransactionListParams, ref string, match func(*models.Transaction) bool,
	refOf func(*models.Transaction) string, opts []Option) (*models.Transaction, error) {
	lp.ListRange = ListRange{OrderBy: "createdAt", SortOrder: "asc"}
	q, err := lp.query()
	if err != nil {
		return nil, err
	}
	budget := findPageBudget
	var sc *findScan
	for range 2 {
		if budget <= 0 {
			break
		}
		sc = &findScan{ref: ref, match: match, refOf: refOf, seen: newIDSet()}
		if err := s.scan(ctx, q, &budget, sc, opts); err != nil {
			return nil, err
		}
		switch {
		case sc.found != nil:
			return sc.found, nil
		case sc.unreadable:
			return nil, &incompleteError{errUnreadableReference}
		case sc.proven():
			return nil, nil
		}
	}
	return nil, &incompleteError{sc.why()}
}

// findScan is one read of the list by find.
type findScan struct {
	ref   string
	match func(*models.Transaction) bool
	refOf func(*models.Transaction) string // the reference a transaction carries
	seen  *idSet

	found      *models.Transaction
	repeats    int  // transactions seen again in a row
	moved      bool // a transaction was seen twice
	noID       bool // a transaction had no id to tell a repeat by
	unreadable bool // a transaction match keeps has a reference that could not be read
}

// proven reports whether the scan saw every transaction of the list.
func (sc *findScan) proven() bool { return !sc.moved && !sc.noID }

// why is the cause of a scan that proved nothing.
func (sc *findScan) why() error {
	if sc.moved {
		return errOrderMoved
	}
	return errNoID
}

var (
	errOrderMoved = errors.New("the list's order moved while it was read (a transaction was seen twice, so one may have been skipped)")
	errNoID       = errors.New("a transaction of the list has no transactionId, so a repeat could not be told from a skip")
	// errUnreadableReference: a transaction the lookup would keep carries a
	// merchantReference that is not a string (an array or an object).
	errUnreadableReference = errors.New("a transaction of the list has a merchantReference that could not be read")
)

// scan reads the list of q once, page by page, spending *budget.
func (s *TransactionsService) scan(ctx context.Context, q url.Values, budget *int, sc *findScan, opts []Option) error {
	var unreadable map[int]bool // indexes of the current page's items whose reference could not be read
	index := 0
	pages := paginateBudget(ctx, q, *budget, func(ctx context.Context, q url.Values) (*Page[models.Transaction], error) {
		*budget--
		page, bad, err := s.findPage(ctx, q, opts)
		unreadable, index = bad, 0
		return page, err
	})
	for t, err := range pages {
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return err
			}
			return &incompleteError{err}
		}
		i := index
		index++
		if err := sc.add(t, unreadable[i]); err != nil {
			return err
		}
	}
	return nil
}

// add takes the next transaction of the scan; unreadable reports that its
// merchantReference could not be read.
func (sc *findScan) add(t *models.Transaction, unreadable bool) error {
	if t.TransactionID == "" {
		sc.noID = true
	} else if !sc.seen.add(t.TransactionID) {
		sc.moved = true
		// A whole page's worth of repeats in a row is a server that
		// repeats a page for every startIndex, which would keep the loop
		// going until the page budget.
		if sc.repeats++; sc.repeats >= defaultPageSize {
			return &incompleteError{resultError(ops.TransactionsList, errors.New("the list repeats a page of transactions"))}
		}
		return nil
	} else {
		sc.repeats = 0
	}
	if !sc.match(t) {
		return nil
	}
	if unreadable {
		sc.unreadable = true
		return nil
	}
	if sc.refOf(t) != sc.ref {
		return nil
	}
	if sc.found != nil {
		return errAmbiguousReference
	}
	found := *t // not a pointer into the page, which it would keep
	sc.found = &found
	return nil
}

// findPage reads one page of the transactions list, and reports which of
// its items carry a merchantReference the decoder could not read (present,
// not null, not "", and read as ""): read from the raw items, so that the
// answer does not depend on how the decoder reports what it skipped. A
// page whose raw items cannot be lined up with the decoded ones has every
// item reported.
func (s *TransactionsService) findPage(ctx context.Context, q url.Values, opts []Option) (*Page[models.Transaction], map[int]bool, error) {
	r, err := call[json.RawMessage](ctx, s.client, ops.TransactionsList, args{Query: q}, opts)
	if err != nil {
		return nil, nil, err
	}
	asked, _ := strconv.Atoi(q.Get("count"))
	page, err := decodeList[models.Transaction](*r, ops.TransactionsList.Path, q, ops.TransactionsList.Key, asked, func() error {
		return fmt.Errorf("the page holds more than the %d items asked", asked)
	})
	if err != nil {
		return nil, nil, err
	}
	refs, ok := rawReferences(*r, ops.TransactionsList.Key)
	bad := map[int]bool{}
	for i := range page.Items {
		if !ok || len(refs) != len(page.Items) || unreadableReference(refs[i], page.Items[i].MerchantReference) {
			bad[i] = true
		}
	}
	return page, bad, nil
}

// rawReferences returns the raw merchantReference of each item of the list
// body raw (the array under key, or a bare array), as encoding/json reads a
// field (name case folded, the last of repeated names). It reports false
// for a body it cannot line up with the decoded items (two arrays whose
// names fold to key, say).
func rawReferences(raw []byte, key string) ([]json.RawMessage, bool) {
	type item struct {
		MerchantReference json.RawMessage `json:"merchantReference"`
	}
	array := raw
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, false
		}
		array = nil
		for name, v := range obj {
			if strings.EqualFold(name, key) {
				if array != nil {
					return nil, false
				}
				array = v
			}
		}
	}
	var items []item
	if json.Unmarshal(array, &items) != nil {
		return nil, false
	}
	refs := make([]json.RawMessage, len(items))
	for i, it := range items {
		refs[i] = it.MerchantReference
	}
	return refs, true
}

// unreadableReference reports whether a merchantReference that is there
// (raw) was read as "" (decoded).
func unreadableReference(raw json.RawMessage, decoded string) bool {
	v := strings.TrimSpace(string(raw))
	return decoded == "" && v != "" && v != "null" && v != `""`
}

// idSet is the set of transaction ids a scan saw, kept as a 128-bit digest
// each (two seeded hashes), so that its memory does not grow with the ids'
// length (the OpenAPI bounds none): 20,000 ids take under 1 MiB, whatever
// a server sends. Two ids with one digest read as a repeat, which makes the
// scan prove nothing: the safe side.
type idSet struct {
	seeds [2]maphash.Seed
	ids   map[[2]uint64]struct{}
}

func newIDSet() *idSet {
	return &idSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, ids: map[[2]uint64]struct{}{}}
}

// add adds id and reports whether it was new. Ids are compared without
// case and surrounding space: a page that writes an id seen before in
// another case is a repeat (the scan then proves nothing), not a new
// transaction that would make a skipped one look counted.
func (s *idSet) add(id string) bool {
	id = strings.ToLower(strings.TrimSpace(id))
	k := [2]uint64{maphash.String(s.seeds[0], id), maphash.String(s.seeds[1], id)}
	if _, ok := s.ids[k]; ok {
		return false
	}
	s.ids[k] = struct{}{}
	return true
}

var (
	errNoSuchReference    = &findError{"no transaction of this type made from originalTransactionId has this merchantReference", ErrNotFound}
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
