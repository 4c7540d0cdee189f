package bankpay

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/models"
)

// defaultPageSize is the count a list iterator asks per page when its params
// give none.
const defaultPageSize = 100

// Page is one page of a list: at most the count asked, from StartIndex.
type Page[T any] struct {
	Items []T
	// StartIndex is the offset of Items[0] in the whole list.
	StartIndex int
	// ItemsPerPage is the page size the service reports (0 when it reports
	// none).
	ItemsPerPage int
}

// listPage reads one page of the list at path: the array under key in the
// response object (or a bare array), and its startIndex (that of query
// when the response has none) and itemsPerPage. query is not modified.
// A page holding more items than the count of query asks is refused
// before it is decoded: a hostile or broken server's 250,000 items in a
// 0.7 MiB body would otherwise cost hundreds of megabytes.
func listPage[T any](ctx context.Context, c *caller, op *operation, query url.Values, opts []Option) (*Page[T], error) {
	asked, _ := strconv.Atoi(query.Get("count"))
	return readList[T](ctx, c, op, args{Query: query}, asked, func() error {
		return fmt.Errorf("the page holds more than the %d items asked", asked)
	}, opts)
}

// listWhole reads a list the service returns whole (not paged): the array
// under op.Key in the response object, or a bare array. One with more
// than op.Limit items is a *ResponseError (ErrInvalidResponse) naming the
// array, refused before any item is decoded.
func listWhole[T any](ctx context.Context, c *caller, op *operation, a args, opts []Option) ([]T, error) {
	page, err := readList[T](ctx, c, op, a, op.Limit, func() error {
		return fmt.Errorf("response array %q holds more than %s items, the most this list can hold", op.Key, grouped(op.Limit))
	}, opts)
	if err != nil {
		return nil, err
	}
	return page.Items, nil
}

// grouped writes n ≥ 0 with commas between groups of three digits
// (25,000): a run of five digits would be masked in an error as a
// possible account number.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// readList reads a list response (listPage): when limit > 0, one whose
// array holds more than limit items is refused with tooMany, before the
// item past limit is decoded. The body is read in one pass while it is
// still in the pooled buffer (listBody).
func readList[T any](ctx context.Context, c *caller, op *operation, a args, limit int, tooMany func() error, opts []Option) (*Page[T], error) {
	lb := &listBody[T]{key: op.Key, limit: limit, tooMany: tooMany}
	if err := c.invoke(ctx, op, a, lb, opts); err != nil {
		return nil, err
	}
	return pageOf(lb.list, a.Query), nil
}

// pageOf is the Page of a decoded list asked with query: its StartIndex
// is the offset asked, unless the response says otherwise (the
// transactions list reports none).
func pageOf[T any](list *decode.List[T], query url.Values) *Page[T] {
	page := &Page[T]{Items: list.Items, StartIndex: list.StartIndex, ItemsPerPage: list.ItemsPerPage}
	if !list.HasStart {
		page.StartIndex, _ = strconv.Atoi(query.Get("startIndex"))
	}
	return page
}

// listBody decodes a list page (decode.ReadList): the array under key in
// the response object, or a bare array, with startIndex and itemsPerPage
// when the object has them. An item whose identity cannot be read fails
// the page, naming its index; any other field an item cannot hold is left
// unset and logged (pipeline.LogUnset).
type listBody[T any] struct {
	key     string
	limit   int
	tooMany func() error
	list    *decode.List[T]
}

// DecodeBody implements pipeline.Decoder.
func (l *listBody[T]) DecodeBody(ctx context.Context, logger *slog.Logger, req *pipeline.Request, body []byte) error {
	list, err := decode.ReadList[T](body, l.key, l.limit)
	if errors.Is(err, decode.ErrTooMany) {
		err = l.tooMany()
	}
	if err != nil {
		return &ResponseError{StatusCode: http.StatusOK, Method: req.Method, Path: req.Path, Err: err}
	}
	pipeline.LogUnset(ctx, logger, req.Method, req.Path, list.Unset)
	l.list = list
	return nil
}

// decodeList decodes the body raw of a list response read whole by the
// caller (Transactions.findPage, which also reads the raw items), as
// listBody does: one with more than limit items (limit > 0) is refused
// with tooMany, and StartIndex defaults to the offset asked.
func decodeList[T any](raw []byte, path string, query url.Values, key string, limit int, tooMany func() error) (*Page[T], error) {
	list, err := decode.ReadList[T](raw, key, limit)
	if errors.Is(err, decode.ErrTooMany) {
		err = tooMany()
	}
	if err != nil {
		return nil, &ResponseError{StatusCode: http.StatusOK, Method: http.MethodGet, Path: path, Err: err}
	}
	return pageOf(list, query), nil
}

// listQuery encodes list params (a struct with `url` tags, dotted nested
// names) as a query, or an empty one for nil params.
func listQuery(params any) (url.Values, error) {
	q, err := form.Values(params)
	if err != nil {
		return nil, fmt.Errorf("bankpay: encoding query: %w", err)
	}
	return q, nil
}

// paginate returns an iterator over every item of a list from the
// startIndex of query on, reading one page of pageSize items (the count of
// query, or defaultPageSize) at a time, only as the caller asks for more.
// The next page starts after the items received (a service that caps its
// pages below the count asked, without saying so, skips nothing), and the
// list ends only at an empty page: a short page is not taken as the last,
// since the operator documents no page cap and no total. It stops on the
// first error (yielded with a nil item), when ctx is done, or after
// maxPages pages (0: no limit) with a *pageBudgetError.
func paginateBudget[T any](ctx context.Context, query url.Values, maxPages int, fetch func(context.Context, url.Values) (*Page[T], error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		if ctx == nil {
			yield(nil, invalid("ctx", "must not be nil"))
			return
		}
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		start, _ := strconv.Atoi(q.Get("startIndex"))
		size, _ := strconv.Atoi(q.Get("count"))
		if size <= 0 {
			size = defaultPageSize
		}
		q.Set("count", strconv.Itoa(size))
		var prev []T // the last page: a service that returns it again would be read forever
		for pages := 0; ; pages++ {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if maxPages > 0 && pages == maxPages {
				yield(nil, &pageBudgetError{pages: pages, items: start})
				return
			}
			q.Set("startIndex", strconv.Itoa(start))
			page, err := fetch(ctx, q)
			if err != nil {
				yield(nil, err)
				return
			}
			if len(page.Items) == 0 {
				return
			}
			if reflect.DeepEqual(prev, page.Items) {
				yield(nil, fmt.Errorf("bankpay: list: the page at startIndex %d repeats the one before it: %w", start, ErrInvalidResponse))
				return
			}
			prev = page.Items
			for i := range page.Items {
				if !yield(&page.Items[i], nil) {
					return
				}
			}
			start += len(page.Items)
		}
	}
}

// paginate is paginateBudget with no page budget: a caller's loop ends
// where the caller decides.
func paginate[T any](ctx context.Context, query url.Values, fetch func(context.Context, url.Values) (*Page[T], error)) iter.Seq2[*T, error] {
	return paginateBudget(ctx, query, 0, fetch)
}

// pageBudgetError is a paginateBudget that read its maxPages pages without
// reaching the end of the list.
type pageBudgetError struct{ pages, items int }

func (e *pageBudgetError) Error() string {
	return fmt.Sprintf("bankpay: list: %d pages (%d items) read without reaching the end of the list", e.pages, e.items)
}

// maxPageSize is the largest count the SDK asks for one page (the OpenAPI
// gives none; see docs/wire.md).
const maxPageSize = 1000

// ListRange is what the ranged lists (Transactions.List and Payments.List,
// and their ListPage) share, embedded in their params: the amount and date
// ranges, the order and the page. Its `url` tags are the one place the query
// names are written: the query is encoded from them, and a validation error
// names the field by them. Every field is optional.
type ListRange struct {
	// AmountMin and AmountMax bound the amount, N.NN, inclusive.
	AmountMin models.Amount `url:"amount.min,omitempty"`
	AmountMax models.Amount `url:"amount.max,omitempty"`
	// CreatedAtStart and CreatedAtEnd bound the creation time,
	// UpdatedAtStart and UpdatedAtEnd the time of the last change, both
	// inclusive; sent as epoch milliseconds. The zero time is no bound.
	CreatedAtStart time.Time `url:"createdAt.start,omitempty,unixmilli"`
	CreatedAtEnd   time.Time `url:"createdAt.end,omitempty,unixmilli"`
	UpdatedAtStart time.Time `url:"updatedAt.start,omitempty,unixmilli"`
	UpdatedAtEnd   time.Time `url:"updatedAt.end,omitempty,unixmilli"`
	// OrderBy is the field the list is ordered by (each list's params name
	// the fields it takes; the service's default order when empty).
	// SortOrder is "asc" or "desc".
	OrderBy   string `url:"orderBy,omitempty"`
	SortOrder string `url:"sortOrder,omitempty"`
	// StartIndex is the offset of the first item (0 for the first).
	StartIndex int `url:"startIndex"`
	// Count is the page size asked: 1 to 1000, 0 for 100. The service may
	// return fewer (it may cap its pages, without saying so); a page with
	// more is an ErrInvalidResponse. List reads the whole list a page at a
	// time, each from where the last one ended, until an empty page;
	// ListPage reads one page.
	Count int `url:"count,omitempty"`
}

// rangeName is the query name of each ListRange field, by Go name, as its
// `url` tag writes it: validation errors name the fields as the query does.
var rangeName = func() map[string]string {
	t := reflect.TypeFor[ListRange]()
	names := make(map[string]string, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("url"), ",")
		names[t.Field(i).Name] = name
	}
	return names
}()

// validate checks r; orderFields gives the orderBy values of its list.
func (r *ListRange) validate(orderFields func() []string) error {
	n := rangeName
	if err := firstError(
		checkAmount(n["AmountMin"], r.AmountMin, false),
		checkAmount(n["AmountMax"], r.AmountMax, false),
		checkTimeRange(n["CreatedAtStart"], n["CreatedAtEnd"], r.CreatedAtStart, r.CreatedAtEnd),
		checkTimeRange(n["UpdatedAtStart"], n["UpdatedAtEnd"], r.UpdatedAtStart, r.UpdatedAtEnd),
	); err != nil {
		return err
	}
	if r.AmountMin != "" && r.AmountMax != "" {
		lo, _ := r.AmountMin.Cents()
		hi, _ := r.AmountMax.Cents()
		if hi < lo {
			return invalid(n["AmountMax"], "must not be below "+n["AmountMin"])
		}
	}
	if r.OrderBy != "" && !slices.Contains(orderFields(), r.OrderBy) {
		return invalid(n["OrderBy"], "must be one of "+strings.Join(orderFields(), ", "))
	}
	switch r.SortOrder {
	case "", "asc", "desc":
	default:
		return invalid(n["SortOrder"], `must be "asc" or "desc"`)
	}
	if r.StartIndex < 0 {
		return invalid(n["StartIndex"], "must not be negative")
	}
	if r.Count < 0 || r.Count > maxPageSize {
		return invalid(n["Count"], "must be 1 to "+strconv.Itoa(maxPageSize)+" (0: "+strconv.Itoa(defaultPageSize)+")")
	}
	return nil
}

// rangedQuery validates the params of a ranged list and encodes them:
// params is the list's query struct (its filters and, embedded, its
// params with their ListRange), r that ListRange, orderFields gives its
// orderBy values. Code filters check their codes as they encode
// (codeFilter); a text filter with control characters is a
// *ValidationError naming it.
// The count is the default page (100) when r gives none.
func rangedQuery(params any, r *ListRange, orderFields func() []string) (url.Values, error) {
	if err := r.validate(orderFields); err != nil {
		return nil, err
	}
	q, err := form.Values(params)
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return nil, ve
		}
		return nil, fmt.Errorf("bankpay: encoding query: %w", err)
	}
	bad := "" // the first name, in order, of a value with control characters
	for k, vs := range q {
		for _, v := range vs {
			if checkFilter(k, v) != nil && (bad == "" || k < bad) {
				bad = k
			}
		}
	}
	if bad != "" {
		return nil, checkFilter(bad, strings.Join(q[bad], ""))
	}
	if r.Count == 0 {
		q.Set(rangeName["Count"], strconv.Itoa(defaultPageSize))
	}
	return q, nil
}

// codeFilter is a repeated filter of numeric codes, a field of a list's
// query struct: go-querystring (form.Values) calls it
// (query.Encoder) to add one decimal string a code (the OpenAPI's numeric-string enums) under its `url` tag's
// name, and an unknown code is a *ValidationError naming the filter.
type codeFilter[T ~int] struct {
	codes []T
	known func(T) bool
}

// EncodeValues adds the codes under key, or refuses an unknown one.
func (f codeFilter[T]) EncodeValues(key string, v *url.Values) error {
	for _, c := range f.codes {
		if !f.known(c) {
			return invalid(key, "has an unknown code "+strconv.Itoa(int(c)))
		}
		v.Add(key, strconv.Itoa(int(c)))
	}
	return nil
}

// rangedList is a list paged with a ListRange: its operation.
type rangedList[T any] struct{ op *operation }

// page reads one page of l at query q.
func (l rangedList[T]) page(ctx context.Context, c *caller, q url.Values, opts []Option) (*Page[T], error) {
	return listPage[T](ctx, c, l.op, q, opts)
}

// all iterates over l from query q (or yields err, the params' invalid).
func (l rangedList[T]) all(ctx context.Context, c *caller, q url.Values, err error, opts []Option) iter.Seq2[*T, error] {
	if err != nil {
		return func(yield func(*T, error) bool) { yield(nil, err) }
	}
	return paginate(ctx, q, func(ctx context.Context, q url.Values) (*Page[T], error) {
		return l.page(ctx, c, q, opts)
	})
}

// checkTimeRange checks a start / end pair, named as the query names them:
// neither before 1970 nor after 2262-04-11 (lastEncodableTime), and the end not before the start.
func checkTimeRange(startName, endName string, start, end time.Time) error {
	for _, t := range []struct {
		name string
		t    time.Time
	}{{startName, start}, {endName, end}} {
		switch {
		case t.t.IsZero():
		case t.t.UnixMilli() < 0:
			return invalid(t.name, "must not be before 1970")
		case t.t.After(lastEncodableTime):
			return invalid(t.name, "must not be after 2262-04-11")
		}
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid(endName, "must not be before "+startName)
	}
	return nil
}

// lastEncodableTime is the last time go-querystring's unixmilli option
// encodes right (it computes UnixNano()/1e6, which overflows after it).
var lastEncodableTime = time.Unix(0, math.MaxInt64)

// checkFilter rejects a filter value with control characters (an empty one
// is no filter).
func checkFilter(field, v string) error {
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return invalid(field, "must not contain control characters")
	}
	return nil
}

// Codes the list filters accept: the documented ones.

func knownTransactionType(t models.TransactionType) bool {
	switch t {
	case models.TypeExternal, models.TypeAuthorize, models.TypePay, models.TypeCapture, models.TypeRefund,
		models.TypeReverse, models.TypeDeposit, models.TypeReclaim, models.TypeRepresentment, models.TypePreauthorization:
		return true
	}
	return false
}

func knownTransactionStatus(s models.TransactionStatus) bool {
	switch s {
	case models.StatusNew, models.StatusPending, models.StatusAuthorized, models.StatusProcessed, models.StatusCompleted,
		models.StatusFailed, models.StatusExpired, models.StatusCanceled, models.StatusDenied, models.StatusReversed,
		models.StatusPartiallyRefunded, models.StatusRefunded, models.StatusVoided, models.StatusOnHold:
		return true
	}
	return false
}

func knownPaymentType(p models.PaymentType) bool {
	return p >= models.PaymentTypeInstant && p <= models.PaymentTypeRetrieval
}
