package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// PagesPerList is how many generated non-empty pages an iterator reads
// before the empty page that ends its list.
const PagesPerList = 3

// pager is a fake operator serving a finite list: each request is
// validated against the contract, and answered with the next page of
// pages (the last one empty); a request after it is a failure.
type pager struct {
	val *Validators
	// single answers a read of one transaction (GET /transactions/{id}:
	// the lookup reads its original first), when not nil.
	single   []byte
	mu       sync.Mutex
	pages    [][]byte
	starts   []string // the startIndex of each request
	problems []string
}

func (p *pager) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	opID, errs := p.val.Request(req)
	for _, d := range errs {
		if row := Excuse(InRequest, opID, d); row != nil {
			markUsed(row.ID)
			continue
		}
		p.problems = append(p.problems, fmt.Sprintf("%s %s (%s): %s", req.Method, req.URL, opID, d))
	}
	if p.single != nil && strings.HasPrefix(req.URL.Path, "/api/v1/transactions/") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(p.single)
		return
	}
	n := len(p.starts)
	p.starts = append(p.starts, req.URL.Query().Get("startIndex"))
	if n >= len(p.pages) {
		p.problems = append(p.problems, fmt.Sprintf("request %d after the empty page: %s", n+1, req.URL))
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(p.pages[n])
}

// listPages generates PagesPerList answers of operation op, each with a
// non-empty array under its one array property (returned as key), and
// their items in order; prep, when not nil, may change each item (its
// index in the whole list given) before the answer is encoded.
func listPages(t *testing.T, spec *Spec, op string, prep func(i int, item map[string]any)) (key string, pages []map[string]any, items []any) {
	t.Helper()
	_, schema := spec.Operations[op].SuccessSchema()
	require.NotNil(t, schema, "%s: success schema", op)
	for seed := seedOf("iterate "+op, 0); len(pages) < PagesPerList; seed++ {
		gen, whole, err := Generate(schema, seed, Mode(len(pages)%2))
		require.NoError(t, err)
		fitIdentity(op, gen, seed)
		if whole > 0 {
			markUsed("number-whole")
		}
		obj, ok := gen.(map[string]any)
		require.True(t, ok, "%s: an object", op)
		var arrays []string
		for k, v := range obj {
			if _, ok := v.([]any); ok {
				arrays = append(arrays, k)
			}
		}
		require.Len(t, arrays, 1, "%s: one array property", op)
		key = arrays[0]
		arr := obj[key].([]any)
		if len(arr) == 0 || seed > seedOf("iterate "+op, 0)+100 {
			require.NotEmpty(t, arr, "%s: a non-empty page within 100 seeds", op)
			continue
		}
		for _, it := range arr {
			if m, ok := it.(map[string]any); ok && prep != nil {
				prep(len(items), m)
			}
			items = append(items, it)
		}
		pages = append(pages, obj)
	}
	return key, pages, items
}

// servePages starts a pager over pages and, last, an empty page, and a
// client of it.
func servePages(t *testing.T, val *Validators, key string, pages []map[string]any) (*pager, *bankpay.Client) {
	t.Helper()
	p := &pager{val: val}
	for _, pg := range pages {
		b, err := json.Marshal(pg)
		require.NoError(t, err)
		p.pages = append(p.pages, b)
	}
	empty := map[string]any{}
	for k, v := range pages[len(pages)-1] {
		empty[k] = v
	}
	empty[key] = []any{}
	b, err := json.Marshal(empty)
	require.NoError(t, err)
	p.pages = append(p.pages, b)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
	require.NoError(t, err)
	return p, c
}

// collect reads an iterator whole.
func collect[T any](t *testing.T, seq func(func(*T, error) bool)) []*T {
	t.Helper()
	var out []*T
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// TestIterators drives Transactions.List, Payments.List and
// PaymentProviders.List over a finite list of generated pages ending with
// an empty one: every request validated, the offsets asked those of the
// items read, every item compared by value through the field map, and no
// request after the empty page.
func TestIterators(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	fieldMap, err := LoadFieldMap()
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		op   string
		read func(c *bankpay.Client) []any
		page func(c *bankpay.Client) (start, perPage int, err error) // ListPage at startIndex 7
	}{
		{"transactions_list-transactions", func(c *bankpay.Client) []any {
			return anys(collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 100}})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{StartIndex: 7, Count: 100}})
			return pageMeta(pg, err)
		}},
		{"payments_list-payments", func(c *bankpay.Client) []any {
			return anys(collect(t, c.Payments.List(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{Count: 100}})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.Payments.ListPage(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{StartIndex: 7, Count: 100}})
			return pageMeta(pg, err)
		}},
		{"paymentProviders_get-paymentProviders", func(c *bankpay.Client) []any {
			return anys(collect(t, c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Count: 100})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{StartIndex: 7, Count: 100})
			return pageMeta(pg, err)
		}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			key, pages, items := listPages(t, spec, tc.op, nil)
			p, c := servePages(t, val, key, pages)
			got := tc.read(c)
			p.mu.Lock()
			defer p.mu.Unlock()
			assert.Empty(t, p.problems)
			want, start := []string{}, 0
			for _, pg := range pages {
				want = append(want, strconv.Itoa(start))
				start += len(pg[key].([]any))
			}
			want = append(want, strconv.Itoa(start))
			assert.Equal(t, want, p.starts, "the offsets asked: those of the items read, up to the empty page")
			require.Len(t, got, len(items), "every item of every page, once")
			compared := 0
			for i := range items {
				cmp := Compare(fieldMap, items[i], got[i])
				assert.Empty(t, cmp.Mismatches, "item %d", i)
				assert.Empty(t, cmp.Unmapped, "item %d", i)
				compared += cmp.Compared
			}
			assert.Positive(t, compared, "values compared")

			// The page metadata, by value: startIndex and itemsPerPage as
			// the answer gives them (the offset asked, and 0, when it
			// gives none).
			for i, pg := range pages {
				_, c := servePages(t, val, key, pages[i:i+1])
				start, per, err := tc.page(c)
				require.NoError(t, err)
				wantStart, wantPer := 7, 0
				if v, ok := pg["startIndex"]; ok {
					wantStart = wholeOf(t, v)
				}
				if v, ok := pg["itemsPerPage"]; ok {
					wantPer = wholeOf(t, v)
				}
				assert.Equal(t, wantStart, start, "page %d startIndex (sent %v)", i, pg["startIndex"])
				assert.Equal(t, wantPer, per, "page %d itemsPerPage (sent %v)", i, pg["itemsPerPage"])
			}
			t.Logf("%d pages, %d items, %d values compared", len(pages), len(items), compared)
		})
	}
}

// wholeOf is a generated whole number (json.Number, float64, "3.0").
func wholeOf(t *testing.T, v any) int {
	t.Helper()
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	require.NoError(t, err)
	return int(f)
}

// pageMeta is a page's StartIndex and ItemsPerPage.
func pageMeta[T any](pg *bankpay.Page[T], err error) (int, int, error) {
	if err != nil {
		return 0, 0, err
	}
	return pg.StartIndex, pg.ItemsPerPage, nil
}

// anys is a slice of pointers as []any.
func anys[T any](in []*T) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}

// TestFind drives FindAuthorization and FindByMerchantReference over a
// finite list of generated transaction pages, one item (the second) made
// the one sought: every transaction gets a distinct id and a reference
// other than the one sought. The transaction found must be that
// item, compared by value through the field map.
func TestFind(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	fieldMap, err := LoadFieldMap()
	require.NoError(t, err)
	const op, ref, original = "transactions_list-transactions", "sought-ref-1", "100000000000777"
	for _, tc := range []struct {
		name string
		mark func(item map[string]any) // makes item the one sought
		find func(c *bankpay.Client) (*models.Transaction, error)
	}{
		{"FindAuthorization", func(item map[string]any) { delete(item, "originalTransactionId") },
			func(c *bankpay.Client) (*models.Transaction, error) {
				found, ok, err := c.Transactions.FindAuthorization(context.Background(), ref)
				if err == nil && !ok {
					err = fmt.Errorf("not found")
				}
				return found, err
			}},
		{"FindByMerchantReference", func(item map[string]any) {
			item["originalTransactionId"] = original
			item["transactionType"] = "6" // a deposit, the Type sought
		},
			func(c *bankpay.Client) (*models.Transaction, error) {
				return c.Transactions.FindByMerchantReference(context.Background(),
					&bankpay.FindParams{MerchantReference: ref, OriginalTransactionID: original, Type: models.TypeDeposit})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sought := -1
			key, pages, items := listPages(t, spec, op, func(i int, item map[string]any) {
				item["transactionId"] = strconv.Itoa(200000000000000 + i)
				item["merchantReference"] = "other-" + strconv.Itoa(i)
				if i > 0 && sought < 0 {
					sought = i
					item["merchantReference"] = ref
					tc.mark(item)
				} else if tc.name == "FindByMerchantReference" {
					item["originalTransactionId"] = original
				}
			})
			require.GreaterOrEqual(t, sought, 0)
			p, c := servePages(t, val, key, pages)
			// The original, an authorization, which the lookup reads first.
			p.single = []byte(`{"transactionId":"` + original + `","transactionType":"1","status":"2","amount":"10.00","currency":"USD"}`)
			found, err := tc.find(c)
			require.NoError(t, err)
			p.mu.Lock()
			assert.Empty(t, p.problems)
			p.mu.Unlock()
			cmp := Compare(fieldMap, items[sought], found)
			assert.Positive(t, cmp.Compared, "values compared")
			assert.Empty(t, cmp.Mismatches)
			assert.Empty(t, cmp.Unmapped)
			assert.Equal(t, ref, found.MerchantReference)
		})
	}
}
