package bankpay

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/models"
)

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
	q, err := form.Query(params)
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
// query struct: the encoding (form.Query, as go-querystring does) calls it
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

// rangedList is a list paged with a ListRange: its path and the key of
// its items in a page.
type rangedList[T any] struct{ path, key string }

// page reads one page of l at query q.
func (l rangedList[T]) page(ctx context.Context, c *Client, q url.Values, opts []Option) (*Page[T], error) {
	return listPage[T](ctx, c, l.path, q, l.key, opts)
}

// all iterates over l from query q (or yields err, the params' invalid).
func (l rangedList[T]) all(ctx context.Context, c *Client, q url.Values, err error, opts []Option) iter.Seq2[*T, error] {
	if err != nil {
		return func(yield func(*T, error) bool) { yield(nil, err) }
	}
	return paginate(ctx, q, func(ctx context.Context, q url.Values) (*Page[T], error) {
		return l.page(ctx, c, q, opts)
	})
}

// checkTimeRange checks a start / end pair, named as the query names them:
// neither before 1970, and the end not before the start.
func checkTimeRange(startName, endName string, start, end time.Time) error {
	if !start.IsZero() && start.UnixMilli() < 0 {
		return invalid(startName, "must not be before 1970")
	}
	if !end.IsZero() && end.UnixMilli() < 0 {
		return invalid(endName, "must not be before 1970")
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid(endName, "must not be before "+startName)
	}
	return nil
}

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
