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

	"github.com/bankpay/bankpay-go/models"
)

// FuzzListDecoders: the one-pass decoder of list pages (decodeListFast)
// agrees with the tolerant one it stands in for. When the fast one takes a
// body, the tolerant one reads the same page from it; when the fast one
// fails, so does the tolerant one; when it declines, the page is untouched
// and the tolerant one decides alone.
func FuzzListDecoders(f *testing.F) {
	for _, b := range []string{
		`{"transactions":[]}`,
		`{"transactions":[{"transactionId":"t1","transactionType":6,"status":3,"amount":"10.00","createdAt":1700000000000}]}`,
		`{"transactions":[{"transactionId":"t1"}],"startIndex":40,"itemsPerPage":20}`,
		`{"startIndex":40.0,"itemsPerPage":"20","transactions":[{"transactionId":"t1"}]}`,
		`{"transactions":[{"transactionId":"t1"}],"startIndex":4.5}`,
		`{"transactions":[{"transactionId":"t1"}],"itemsPerPage":"x"}`,
		`{"transactions":[{"transactionId":"t1","transactionType":"6","recordVersion":2.0}]}`,
		`{"transactions":[{"transactionId":"t1","amount":{"v":1}}]}`,
		`{"transactions":null}`,
		`{"payments":[]}`,
		`{"\u0074ransactions":[{"transactionId":"t1"}],"startIndex":2}`,
		`[{"transactionId":"t1"}]`,
		`{"transactions":[{"transactionId":"t1"}]`,
		`{"stArtIndeX":1000,"00":"","transactions":[]}`,
		`{"Transactions":[{"transactionId":"t1"}]}`,
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if repeatsTopKey(body) {
			// encoding/json merges a repeated array into the first one's
			// elements, RawMessage keeps the last: not a shape to agree on.
			t.Skip("a repeated top-level key")
		}
		fast := &Page[models.Transaction]{StartIndex: 7}
		ok, ferr := decodeListFast(body, "transactions", fast)
		slow := &Page[models.Transaction]{StartIndex: 7}
		serr := decodeListTolerant(body, "transactions", slow)
		switch {
		case ferr != nil:
			require.Error(t, serr, "the fast decoder failed (%v), the tolerant one did not", ferr)
		case !ok:
			assert.Equal(t, &Page[models.Transaction]{StartIndex: 7}, fast, "a declined body leaves the page as it was")
		default:
			require.NoError(t, serr, "the fast decoder took the body")
			assert.Equal(t, slow, fast)
		}
	})
}

func TestListDecodersOnShapes(t *testing.T) {
	for body, want := range map[string]*Page[models.Transaction]{
		`{"transactions":[{"transactionId":"t1"}],"startIndex":40.0,"itemsPerPage":"20"}`: {Items: []models.Transaction{{TransactionID: "t1"}}, StartIndex: 40, ItemsPerPage: 20},
		`{"transactions":[{"transactionId":"t1","transactionType":"6"}]}`:                 {Items: []models.Transaction{{TransactionID: "t1", TransactionType: models.TypeDeposit}}, StartIndex: 7},
		`[{"transactionId":"t1"}]`:                                      {Items: []models.Transaction{{TransactionID: "t1"}}, StartIndex: 7},
		`{"\u0074ransactions":[{"transactionId":"t1"}],"startIndex":2}`: {Items: []models.Transaction{{TransactionID: "t1"}}, StartIndex: 2},
	} {
		page := &Page[models.Transaction]{StartIndex: 7}
		ok, err := decodeListFast([]byte(body), "transactions", page)
		require.NoError(t, err)
		if !ok {
			require.NoError(t, decodeListTolerant([]byte(body), "transactions", page), body)
		}
		assert.Equal(t, want, page, body)
	}
}

// repeatsTopKey reports whether the top-level object of body has a name
// twice, in any case.
func repeatsTopKey(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		name := strings.ToLower(fmt.Sprint(tok))
		if seen[name] {
			return true
		}
		seen[name] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
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

func TestCountListItems(t *testing.T) {
	for _, tc := range []struct {
		body  string
		limit int
		want  int
	}{
		{`{"transactions":[]}`, 10, 0},
		{`{"transactions":[{},{},{}]}`, 10, 3},
		{` { "startIndex" : 0 , "transactions" : [ {"a":[1,2,3]} , {"b":"],[,{"} , "x\"],"] , "itemsPerPage":3}`, 10, 3},
		{`{"transactions":[1,2,3,4,5,6,7,8,9,10,11,12]}`, 4, 5}, // stops past the limit
		{`[{},{}]`, 10, 2},
		{`{"Transactions":[{},{}]}`, 10, 2},                     // encoding/json's case folding
		{`{"TRANSACTIONſ":[{},{}]}`, 10, 2},                     // ſ folds to s, as in encoding/json
		{`{"\u0074ransactions":[{},{},{}]}`, 10, 3},             // an escaped name
		{`{"transactions":[{}],"transactions":[{},{}]}`, 10, 2}, // the larger of a repeat
		{`{"other":[{},{},{}],"transactions":[{}]}`, 10, 1},
		{`{"transactions":{"a":[{},{}]}}`, 10, 0},
		{`{"transactions":[{},{}`, 10, 2}, // truncated: the decoder reports it
		{`not json`, 10, 0},
		{``, 10, 0},
	} {
		assert.Equal(t, tc.want, countListItems([]byte(tc.body), "transactions", tc.limit), tc.body)
	}
}

// FuzzCountListItems: on a body encoding/json reads as a list page (no
// repeated top-level name), countListItems counts what it decodes.
func FuzzCountListItems(f *testing.F) {
	for _, b := range []string{`{"transactions":[]}`, `{"transactions":[{"a":"]"},2,"x",[3]]}`, `[1,2]`,
		`{"itemsPerPage":1,"TRANSACTIONS":[{}]}`, `{"\u0074ransactions":[null,true]}`, `{"transactions":[1,]}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if repeatsTopKey(body) {
			t.Skip("a repeated top-level key")
		}
		var items []json.RawMessage
		var env struct {
			Transactions *[]json.RawMessage `json:"transactions"`
		}
		switch {
		case json.Unmarshal(body, &env) == nil && env.Transactions != nil:
			items = *env.Transactions
		case json.Unmarshal(body, &items) == nil:
		default:
			return // not a page: the decoders refuse it
		}
		require.Equal(t, len(items), countListItems(body, "transactions", 1<<30), "%s", body)
	})
}

// oversizedPage is a list page of n empty transactions: 3 bytes each.
func oversizedPage(n int) []byte {
	b := make([]byte, 0, 20+3*n)
	b = append(b, `{"transactions":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "{}"...)
	}
	return append(b, "]}"...)
}

// A page with 250,000 items when 10 were asked (a 0.7 MiB body) is an
// ErrInvalidResponse, refused before its items are decoded: the call
// allocates a small multiple of the body (reading it), not the ~400 MiB
// of 250,000 decoded transactions. Most of the figure is the pipeline's
// read of the body into a growing buffer (readCapped: a body this large is
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
	assert.Zero(t, testing.AllocsPerRun(10, func() { countListItems(body, "transactions", 10) }), "the count allocates")

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
// its own bound (maxSelectedAccounts, maxCustomerMatches, maxCustomers),
// counted by the same scan as an oversized page, before decoding: a list
// of exactly the bound is read, in either shape; one more item is a
// *ResponseError (ErrInvalidResponse) naming the array and no value; 1 MiB
// of empty objects (which decoded cost 367 MiB for Accounts.ListSelected)
// allocates a small multiple of the body. The longest customer list read
// costs under 4 times the 8 MiB body cap, as maxCustomers promises.
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
		{"Accounts.ListSelected", "accounts", maxSelectedAccounts, func() (int, error) {
			a, err := c.Accounts.ListSelected(ctx, "T1")
			return len(a), err
		}},
		{"Identity.CustomerVerification", "matches", maxCustomerMatches, func() (int, error) {
			m, err := c.Identity.CustomerVerification(ctx, "T1")
			return len(m), err
		}},
		{"Countries.List", "countries", maxCountries, func() (int, error) {
			cs, err := c.Countries.List(ctx, nil)
			return len(cs), err
		}},
		{"Customers.List", "customers", maxCustomers, func() (int, error) {
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
		body = items("customers", false, maxCustomers, `{}`)
		most := allocated(t, func() (int, error) {
			cs, err := c.Customers.List(ctx, nil)
			return len(cs), err
		}, false)
		t.Logf("%d customers: allocated at most %.1f MiB a call", maxCustomers, float64(most)/(1<<20))
		assert.Less(t, most, uint64(4*defaultMaxResponseBytes))
	})
}
