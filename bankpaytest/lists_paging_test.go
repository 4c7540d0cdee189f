package bankpaytest

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// seedAuthorizations records n Authorized Disbursement authorizations of
// the default merchant (references seed-0, seed-1, …) directly, a test
// fixture without n HTTP round trips or their events.
func seedAuthorizations(s *Server, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.merchants[0]
	for i := range n {
		t := s.newTxn(m, models.TypeAuthorize)
		t.data = &models.EstablishData{PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00"}
		t.rec.MerchantReference = fmt.Sprintf("seed-%d", i)
		t.rec.Currency, t.rec.Amount = models.USD, "0.00"
		t.rec.Payment = &models.Payment{PaymentID: t.id(), PaymentType: models.PaymentTypeDisbursement, MerchantID: m.cfg.MerchantID,
			Amount: "0.00", Currency: models.USD, PaymentProvider: sandboxProvider(m),
			Account: &models.PaymentAccount{Name: "Checking", Type: 1, AccountNumber: AccountVerified, RoutingNumber: SandboxRoutingNumber, Verified: true}}
		t.rec.Status, t.rec.StatusMessage = models.StatusAuthorized, "Authorized"
		t.rec.PaymentProviderTransaction = &models.PaymentProviderTransaction{PaymentProviderTransactionID: "P" + t.id(),
			Status: models.ProviderStatus("SW010"), StatusMessage: "established"}
	}
}

// pageCounter counts the GET /transactions requests of a client.
type pageCounter struct {
	base http.RoundTripper
	n    atomic.Int32
}

func (p *pageCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/transactions") {
		p.n.Add(1)
	}
	return p.base.RoundTrip(r)
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// listAll reads the n seeded transactions of a fresh sandbox with
// Transactions.List, pages of 100, checking their order, and returns the
// page requests and the largest growth of the live heap seen inside the
// loop (after a GC, mid-page in the first, middle and last pages) over the
// heap before it.
func listAll(t *testing.T, n int) (pages int32, growth uint64) {
	srv := NewServer()
	defer srv.Close()
	seedAuthorizations(srv, n)
	pc := &pageCounter{}
	c := srv.Client(bankpay.WithTransport(func(rt http.RoundTripper) http.RoundTripper { pc.base = rt; return pc }))
	before := liveHeap()
	i := 0
	for txn, err := range c.Transactions.List(context.Background(), &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 100}}) {
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("seed-%d", i), txn.MerchantReference)
		i++
		if i == 50 || i == n/2+50 || i == n-50 {
			if h := liveHeap(); h > before {
				growth = max(growth, h-before)
			}
		}
	}
	require.Equal(t, n, i)
	// The records are those GET /transactions/{id} shows.
	srv.mu.Lock()
	last := srv.st.merchants[0].txns[n-1].id()
	srv.mu.Unlock()
	got, err := c.Transactions.Get(context.Background(), last)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("seed-%d", n-1), got.MerchantReference)
	return pc.n.Load(), growth
}

// TestListIsLazy: 10,000 transactions are read one page at a time (a
// request per page of 100 asked, served as PageCap, and the empty one that
// ends the list), and the live heap inside the loop does not grow with the
// list: reading 10,000 holds no more than reading 1,000 (one page, not the
// list). A retention of 128 bytes an item (planted by a review) fails it
// at these sizes, not at half of them.
func TestListIsLazy(t *testing.T) {
	// Not parallel: the heap is the process's, and the tests beside it
	// would allocate while it measures.
	pages1k, growth1k := listAll(t, 1000)
	pages10k, growth10k := listAll(t, 10000)
	t.Logf("1,000: %d pages, heap +%d B; 10,000: %d pages, heap +%d B", pages1k, growth1k, pages10k, growth10k)
	assert.Equal(t, int32(1000/PageCap+1), pages1k)
	assert.Equal(t, int32(10000/PageCap+1), pages10k)
	// A list held whole would be ~10x larger at 10,000 (megabytes); one
	// page is the same at both sizes.
	assert.Less(t, growth10k, 2*growth1k+512<<10, "the heap grows with the list")
	assert.Less(t, growth10k, uint64(4<<20))
}
