package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

func TestListDecodersOnShapes(t *testing.T) {
	for body, want := range map[string]*decode.List[models.Transaction]{
		`{"transactions":[{"transactionId":"t1","transactionType":6,"status":2,"amount":"1.00"}],"startIndex":40.0,"itemsPerPage":"20"}`:                                {Items: []models.Transaction{{TransactionID: "t1", TransactionType: models.TypeDeposit, Status: models.StatusAuthorized, Amount: "1.00"}}, StartIndex: 40, ItemsPerPage: 20, HasStart: true, HasPerPage: true},
		`{"transactions":[{"transactionId":"t1","transactionType":6,"status":2,"amount":"1.00","transactionType":"6","status":"Authorized","amount":1}]}`:               {Items: []models.Transaction{{TransactionID: "t1", TransactionType: models.TypeDeposit, Status: models.StatusAuthorized, Amount: "1.00"}}},
		`[{"transactionId":"t1","transactionType":6,"status":2,"amount":"1.00","transactionType":"06","status":"+2","amount":"1.00"}]`:                                  {Items: []models.Transaction{{TransactionID: "t1", TransactionType: models.TypeDeposit, Status: models.StatusAuthorized, Amount: "1.00"}}},
		`{"\u0074ransactions":[{"transactionId":"t1","transactionType":6,"status":2,"amount":"1.00","transactionType":6,"status":2.0,"amount":"1.00"}],"startIndex":2}`: {Items: []models.Transaction{{TransactionID: "t1", TransactionType: models.TypeDeposit, Status: models.StatusAuthorized, Amount: "1.00"}}, StartIndex: 2, HasStart: true},
	} {
		page, err := decode.ReadList[models.Transaction]([]byte(body), "transactions", 0)
		require.NoError(t, err, body)
		assert.Equal(t, want, page, body)
	}
}

// A service that returns the same full page for every startIndex would be
// read forever: the iterator stops with ErrInvalidResponse at the repeat.
func TestPaginateStopsOnARepeatedPage(t *testing.T) {
	var fetched int
	fetch := func(_ context.Context, _ url.Values) (*Page[int], error) {
		fetched++
		return &Page[int]{Items: []int{1, 2}}, nil
	}
	var got []int
	var last error
	for v, err := range paginate(context.Background(), url.Values{"count": {"2"}}, fetch) {
		if err != nil {
			last = err
			break
		}
		got = append(got, *v)
	}
	assert.ErrorIs(t, last, ErrInvalidResponse)
	assert.Equal(t, []int{1, 2}, got)
	assert.Equal(t, 2, fetched)
}

// The limit of a page is met while its items are read, before the item
// past it is decoded, whatever the array's name is written like.
func TestListLimitMetInThePass(t *testing.T) {
	item := `{"transactionId":"t","transactionType":6,"status":2,"amount":"1.00"}`
	items := func(n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	for _, tc := range []struct {
		body    string
		limit   int
		tooMany bool
	}{
		{`{"transactions":[]}`, 10, false},
		{`{"transactions":[` + items(4) + `]}`, 4, false},
		{`{"transactions":[` + items(5) + `]}`, 4, true},
		{`[` + items(3) + `]`, 2, true},
		{`{"Transactions":[` + items(3) + `]}`, 2, true},                                   // encoding/json's case folding
		{`{"TRANSACTIONſ":[` + items(3) + `]}`, 2, true},                                   // ſ folds to s, as in encoding/json
		{`{"\u0074ransactions":[` + items(3) + `]}`, 2, true},                              // an escaped name
		{`{"transactions":[` + items(1) + `],"transactions":[` + items(3) + `]}`, 2, true}, // a repeat
		{`{"other":[` + items(3) + `],"transactions":[` + items(1) + `]}`, 2, false},
	} {
		_, err := decode.ReadList[models.Transaction]([]byte(tc.body), "transactions", tc.limit)
		if tc.tooMany {
			assert.ErrorIs(t, err, decode.ErrTooMany, tc.body)
		} else {
			assert.NoError(t, err, tc.body)
		}
	}
}

// oversizedPage is a list page of n transactions: 20 whole, the rest
// empty (3 bytes each).
func oversizedPage(n int) []byte {
	b := make([]byte, 0, 20+3*n)
	b = append(b, `{"transactions":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if i < 20 { // a page's first items are read before its count is met
			b = append(b, `{"transactionId":"t","transactionType":6,"status":2,"amount":"1.00"}`...)
			continue
		}
		b = append(b, "{}"...)
	}
	return append(b, "]}"...)
}

// A page with 250,000 items when 10 were asked (a 0.7 MiB body) is an
// ErrInvalidResponse, refused before its items are decoded: the call
// allocates a small multiple of the body (reading it), not the ~400 MiB
// of 250,000 decoded transactions. Most of the figure is the pipeline's
// read of the body into a growing buffer (pipeline.ReadCapped: a body this large is
// not pooled); the count of the items allocates nothing.
func TestListPageRefusesAnOversizedPage(t *testing.T) {
	body := oversizedPage(250_000)
	c, mock, _ := newTestClient(t)
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
	})
	listPage := func() uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		page, err := c.Transactions.ListPage(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 10}})
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, ErrInvalidResponse)
		var re *ResponseError
		require.ErrorAs(t, err, &re)
		assert.Contains(t, err.Error(), "more than the 10 items asked")
		assert.Nil(t, page)
		return after.TotalAlloc - before.TotalAlloc
	}
	runtime.GC()
	var most uint64
	for range 3 {
		most = max(most, listPage())
	}
	t.Logf("body %d B; allocated at most %d B a call (%.1fx the body)", len(body), most, float64(most)/float64(len(body)))
	assert.Less(t, most, uint64(8*len(body)), "%d B for a %d B body", most, len(body))

	// The same through List, and a page of exactly the count is read.
	for _, err := range c.Transactions.List(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 10}}) {
		require.ErrorIs(t, err, ErrInvalidResponse)
		break
	}
	body = oversizedPage(10)
	page, err := c.Transactions.ListPage(context.Background(), &TransactionListParams{ListRange: ListRange{Count: 10}})
	require.NoError(t, err)
	assert.Len(t, page.Items, 10)
}

// BenchmarkListPageOversized: a page of 25,000 items when 10 were asked
// (a 73 KiB body) from a loopback server, read by Transactions.ListPage
// (refused before decoding) and by the bare net/http + encoding/json
// baseline (which decodes them all), in the same run. x-body is the bytes
// allocated per call over the body size.
func BenchmarkListPageOversized(b *testing.B) {
	body := oversizedPage(25_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithHTTPClient(srv.Client()))
	require.NoError(b, err)
	run := func(b *testing.B, call func() error) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.ResetTimer()
		for range b.N {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(body)), "x-body")
	}
	b.Run("sdk", func(b *testing.B) {
		p := &TransactionListParams{ListRange: ListRange{Count: 10}}
		run(b, func() error {
			if _, err := c.Transactions.ListPage(context.Background(), p); !errors.Is(err, ErrInvalidResponse) {
				return fmt.Errorf("got %v, want ErrInvalidResponse", err)
			}
			return nil
		})
	})
	b.Run("baseline", func(b *testing.B) {
		hc := srv.Client()
		run(b, func() error {
			resp, err := hc.Get(srv.URL + "/api/v1/transactions?count=10&startIndex=0")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			var page struct {
				Transactions []models.Transaction `json:"transactions"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
				return err
			}
			if len(page.Transactions) != 25_000 {
				return fmt.Errorf("%d items", len(page.Transactions))
			}
			return nil
		})
	})
}

// A list the service returns whole (Accounts.ListSelected,
// Identity.CustomerVerification, Customers.List) asks no count, so each has
// its own bound (ops.MaxSelectedAccounts, ops.MaxCustomerMatches, ops.MaxCustomers),
// counted by the same scan as an oversized page, before decoding: a list
// of exactly the bound is read, in either shape; one more item is a
// *ResponseError (ErrInvalidResponse) naming the array and no value; 1 MiB
// of empty objects (which decoded cost 367 MiB for Accounts.ListSelected)
// allocates a small multiple of the body. The longest customer list read
// costs under 4 times the 8 MiB body cap, as ops.MaxCustomers promises.
func TestUnpagedListBoundedBeforeDecoding(t *testing.T) {
	c, mock, _ := newTestClient(t)
	var body []byte
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
	})
	ctx := context.Background()
	// items is n copies of item, under key or (bare) as a bare array.
	items := func(key string, bare bool, n int, item string) []byte {
		b := []byte(`{"` + key + `":[`)
		if bare {
			b = []byte(`[`)
		}
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, item...)
		}
		if bare {
			return append(b, ']')
		}
		return append(b, "]}"...)
	}
	// allocated is the most read allocated in 3 calls, each failing with
	// ErrInvalidResponse (refused) or not (read).
	allocated := func(t *testing.T, read func() (int, error), refused bool) uint64 {
		runtime.GC()
		var most uint64
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := read()
			runtime.ReadMemStats(&after)
			if refused {
				require.ErrorIs(t, err, ErrInvalidResponse)
			} else {
				require.NoError(t, err)
			}
			most = max(most, after.TotalAlloc-before.TotalAlloc)
		}
		return most
	}
	for _, l := range []struct {
		name, key string
		limit     int
		read      func() (int, error)
	}{
		{"Accounts.ListSelected", "accounts", ops.MaxSelectedAccounts, func() (int, error) {
			a, err := c.Accounts.ListSelected(ctx, "T1")
			return len(a), err
		}},
		{"Identity.CustomerVerification", "matches", ops.MaxCustomerMatches, func() (int, error) {
			m, err := c.Identity.CustomerVerification(ctx, "T1")
			return len(m), err
		}},
		{"Countries.List", "countries", ops.MaxCountries, func() (int, error) {
			cs, err := c.Countries.List(ctx, nil)
			return len(cs), err
		}},
		{"Customers.List", "customers", ops.MaxCustomers, func() (int, error) {
			cs, err := c.Customers.List(ctx, nil)
			return len(cs), err
		}},
	} {
		t.Run(l.name, func(t *testing.T) {
			const secret = "SECRET-4111111111111111"
			for _, bare := range []bool{false, true} {
				body = items(l.key, bare, l.limit, `{}`)
				n, err := l.read()
				require.NoError(t, err, "bare %v", bare)
				assert.Equal(t, l.limit, n, "bare %v", bare)

				body = items(l.key, bare, l.limit+1, `{"name":"`+secret+`"}`)
				n, err = l.read()
				require.ErrorIs(t, err, ErrInvalidResponse, "bare %v", bare)
				var re *ResponseError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, http.StatusOK, re.StatusCode)
				assert.Contains(t, err.Error(), fmt.Sprintf(`%q holds more than %s items`, l.key, grouped(l.limit)))
				assert.NotContains(t, err.Error(), secret)
				assert.Zero(t, n)
			}

			body = items(l.key, false, 1<<20/3, `{}`)
			most := allocated(t, l.read, true)
			t.Logf("body %d B; allocated at most %d B a call (%.1fx the body)", len(body), most, float64(most)/float64(len(body)))
			assert.Less(t, most, uint64(8*len(body)), "%d B for a %d B body", most, len(body))
		})
	}
	t.Run("longest customer list", func(t *testing.T) {
		body = items("customers", false, ops.MaxCustomers, `{}`)
		most := allocated(t, func() (int, error) {
			cs, err := c.Customers.List(ctx, nil)
			return len(cs), err
		}, false)
		t.Logf("%d customers: allocated at most %.1f MiB a call", ops.MaxCustomers, float64(most)/(1<<20))
		assert.Less(t, most, uint64(4*defaultMaxResponseBytes))
	})
}
