package bankpay

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// maxPageSize is the largest count the SDK asks for one page (the OpenAPI
// gives none; see docs/wire.md).
const maxPageSize = 1000

// listRange is what every list's params share: the amount and date ranges,
// the order and the page. Each list's params copy their fields into one for
// validation and encoding.
type listRange struct {
	amountMin, amountMax     models.Amount
	createdStart, createdEnd time.Time
	updatedStart, updatedEnd time.Time
	orderBy, sortOrder       string
	startIndex, count        int
	// orderFields are the orderBy values the list accepts.
	orderFields []string
}

// listRangeQuery is the wire form of a listRange, for listQuery: dates as
// epoch milliseconds, the unit of every timestamp the service writes.
type listRangeQuery struct {
	AmountMin    string `url:"amount.min,omitempty"`
	AmountMax    string `url:"amount.max,omitempty"`
	CreatedStart string `url:"createdAt.start,omitempty"`
	CreatedEnd   string `url:"createdAt.end,omitempty"`
	UpdatedStart string `url:"updatedAt.start,omitempty"`
	UpdatedEnd   string `url:"updatedAt.end,omitempty"`
	OrderBy      string `url:"orderBy,omitempty"`
	SortOrder    string `url:"sortOrder,omitempty"`
	StartIndex   string `url:"startIndex"`
	Count        string `url:"count"`
}

func (r *listRange) validate() error {
	if err := firstError(
		checkAmount("amount.min", r.amountMin, false),
		checkAmount("amount.max", r.amountMax, false),
		checkTimeRange("createdAt", r.createdStart, r.createdEnd),
		checkTimeRange("updatedAt", r.updatedStart, r.updatedEnd),
	); err != nil {
		return err
	}
	if r.amountMin != "" && r.amountMax != "" {
		lo, _ := r.amountMin.Cents()
		hi, _ := r.amountMax.Cents()
		if hi < lo {
			return invalid("amount.max", "must not be below amount.min")
		}
	}
	if r.orderBy != "" && !slices.Contains(r.orderFields, r.orderBy) {
		return invalid("orderBy", "must be one of "+strings.Join(r.orderFields, ", "))
	}
	switch r.sortOrder {
	case "", "asc", "desc":
	default:
		return invalid("sortOrder", `must be "asc" or "desc"`)
	}
	if r.startIndex < 0 {
		return invalid("startIndex", "must not be negative")
	}
	if r.count < 0 || r.count > maxPageSize {
		return invalid("count", "must be 1 to "+strconv.Itoa(maxPageSize)+" (0: "+strconv.Itoa(defaultPageSize)+")")
	}
	return nil
}

func (r *listRange) query() listRangeQuery {
	count := r.count
	if count == 0 {
		count = defaultPageSize
	}
	return listRangeQuery{
		AmountMin:    string(r.amountMin),
		AmountMax:    string(r.amountMax),
		CreatedStart: epochMillis(r.createdStart),
		CreatedEnd:   epochMillis(r.createdEnd),
		UpdatedStart: epochMillis(r.updatedStart),
		UpdatedEnd:   epochMillis(r.updatedEnd),
		OrderBy:      r.orderBy,
		SortOrder:    r.sortOrder,
		StartIndex:   strconv.Itoa(r.startIndex),
		Count:        strconv.Itoa(count),
	}
}

// encodeQuery adds the non-empty values, as the `url` tags name them.
func (q *listRangeQuery) encodeQuery(v url.Values) {
	addNonEmpty(v, "amount.min", q.AmountMin)
	addNonEmpty(v, "amount.max", q.AmountMax)
	addNonEmpty(v, "createdAt.start", q.CreatedStart)
	addNonEmpty(v, "createdAt.end", q.CreatedEnd)
	addNonEmpty(v, "updatedAt.start", q.UpdatedStart)
	addNonEmpty(v, "updatedAt.end", q.UpdatedEnd)
	addNonEmpty(v, "orderBy", q.OrderBy)
	addNonEmpty(v, "sortOrder", q.SortOrder)
	v["startIndex"] = []string{q.StartIndex}
	v["count"] = []string{q.Count}
}

// addNonEmpty sets key to value unless value is empty (omitempty).
func addNonEmpty(v url.Values, key, value string) {
	if value != "" {
		v[key] = []string{value}
	}
}

// addAll sets key to values unless there are none (omitempty).
func addAll(v url.Values, key string, values []string) {
	if len(values) > 0 {
		v[key] = values
	}
}

// epochMillis is t as decimal epoch milliseconds, "" for the zero time.
func epochMillis(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// checkTimeRange checks a name.start / name.end pair: neither before 1970,
// and the end not before the start.
func checkTimeRange(name string, start, end time.Time) error {
	if !start.IsZero() && start.UnixMilli() < 0 {
		return invalid(name+".start", "must not be before 1970")
	}
	if !end.IsZero() && end.UnixMilli() < 0 {
		return invalid(name+".end", "must not be before 1970")
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid(name+".end", "must not be before "+name+".start")
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

// codes checks every code of a repeated filter and returns them as decimal
// strings (the OpenAPI's numeric-string enums).
func codes[T ~int](field string, vs []T, known func(T) bool) ([]string, error) {
	if len(vs) == 0 {
		return nil, nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		if !known(v) {
			return nil, invalid(field, "has an unknown code "+strconv.Itoa(int(v)))
		}
		out[i] = strconv.Itoa(int(v))
	}
	return out, nil
}
