package integration

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// countingListener counts the connections a server accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// TestSixtyFourGoroutinesShareOneClient: 64 goroutines share one Client
// (the SDK's default HTTP client) and go through every call against the
// bankpaytest sandbox at once, twice (the second round tokenizes without
// verifying and updates each customer again). Run under -race: no error,
// no data race, and the sandbox ends with exactly the state the calls made.
func TestSixtyFourGoroutinesShareOneClient(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		const (
			workers = 64
			rounds  = 2
		)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		cl := &countingListener{Listener: ln}
		sb := bankpaytest.NewServer(sh.options(bankpaytest.WithListener(cl),
			bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))...)
		defer sb.Close()
		c := sb.Client(bankpay.WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		defer func() { _ = c.Close() }()
		ctx := context.Background()

		customer := &models.Customer{Name: "Jane Doe", ExternalID: "conc-1",
			Address: &models.Address{Address1: "1 Main St", City: "Austin", State: "TX", Zip: "78701", Country: "US"}}
		authorize := func(d models.EstablishData, o bankpaytest.Outcome) string {
			t.Helper()
			require.NoError(t, c.SignEstablishData(&d))
			_, txn, err := sb.Authorize(d, o)
			require.NoError(t, err)
			return txn.TransactionID
		}
		urls := models.EstablishData{ReturnURL: "https://merchant.example/r", CancelURL: "https://merchant.example/c"}
		kyc := urls
		kyc.PaymentType, kyc.Currency, kyc.Amount, kyc.MerchantReference = models.PaymentTypeDeferred, models.USD, "0.00", "conc-kyc"
		kyc.KYCType, kyc.Customer = models.KYCTypeIdentity, customer
		kycID := authorize(kyc, bankpaytest.OutcomeEligible)
		ret := urls
		ret.PaymentType, ret.Currency, ret.Amount, ret.MerchantReference = models.PaymentTypeRetrieval, models.USD, "0.00", "conc-ret"
		retID := authorize(ret, bankpaytest.OutcomeAuthorize)
		sb.Advance(10 * bankpaytest.IdentityStep)

		var (
			wg       sync.WaitGroup
			calls    atomic.Int64
			mu       sync.Mutex
			failures []string
			deposits = make(chan string, workers*rounds)
		)
		fail := func(w, r int, step string, err error) {
			mu.Lock()
			defer mu.Unlock()
			if len(failures) < 20 {
				failures = append(failures, fmt.Sprintf("worker %d round %d %s: %v", w, r, step, err))
			}
		}
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					step := func(name string, err error) bool {
						calls.Add(1)
						if err != nil {
							fail(w, r, name, err)
						}
						return err == nil
					}
					ref := fmt.Sprintf("conc-%d-%d", w, r)
					txn, err := c.Transactions.Establish(ctx, &models.EstablishData{
						PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: ref,
						Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe"},
					})
					if !step("establish", err) {
						return
					}
					dep, err := c.Transactions.Deposit(ctx, txn.TransactionID, &bankpay.DepositParams{MerchantReference: ref, Amount: "1.00"})
					if step("deposit", err) {
						deposits <- dep.TransactionID
					}
					_, err = c.Transactions.Get(ctx, txn.TransactionID)
					step("get", err)
					_, err = c.Transactions.Capture(ctx, kycID, &bankpay.CaptureParams{MerchantReference: ref, Amount: "1.00",
						Beneficiary: &models.Beneficiary{Name: "John Roe", Address: &models.Address{Country: "MX"}}})
					step("capture", err)
					_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, VerifyAccount: r%2 == 0})
					step("tokenize", err)
					_, err = c.Accounts.Balance(ctx, retID)
					step("balance", err)
					_, err = c.Accounts.User(ctx, retID)
					step("bank user", err)
					_, err = c.Accounts.Summary(ctx, retID)
					step("summary", err)
					_, err = c.Identity.User(ctx, kycID)
					step("identity user", err)
					_, err = c.Identity.Detail(ctx, kycID)
					step("identity detail", err)
					step("register", c.Identity.Register(ctx, kycID, ref))
					_, err = c.Customers.UpdateByExternalID(ctx, fmt.Sprintf("conc-cust-%d", w), &bankpay.CustomerParams{Name: "Jane Doe", VIP: intPtr(1 + r)})
					step("customer", err)
				}
			}()
		}
		wg.Wait()
		close(deposits)
		for _, f := range failures {
			assert.Fail(t, f)
		}
		seen := map[string]bool{}
		for id := range deposits {
			assert.False(t, seen[id], "deposit id %s handed out twice", id)
			seen[id] = true
			d, ok := sb.Transaction(id)
			if assert.True(t, ok, "deposit %s: %+v, %v", id, d, ok) {
				assert.Equal(t, models.TypeDeposit, d.TransactionType, "deposit %s: %+v, %v", id, d, ok)
			}
		}
		assert.Len(t, seen, workers*rounds, "%d deposits, want %d", len(seen), workers*rounds)
		n := len(sb.Feedback(kycID))
		assert.Equal(t, workers*rounds, n, "%d feedbacks recorded, want %d", n, workers*rounds)
		for w := 0; w < workers; w++ {
			cu, ok := sb.Customer(fmt.Sprintf("conc-cust-%d", w))
			if assert.True(t, ok, "customer %d: %+v", w, cu) {
				if assert.NotNil(t, cu.VIP, "customer %d: %+v", w, cu) {
					assert.Equal(t, rounds, *cu.VIP, "customer %d: %+v", w, cu)
				}
			}
		}
		// Keep-alive under concurrency: about one connection per goroutine, not
		// one per call (the pool keeps enough idle connections to its host).
		conns := cl.n.Load()
		assert.LessOrEqual(t, conns, int64(2*workers), "%d calls opened %d connections, want at most %d", calls.Load(), conns, 2*workers)
		t.Logf("%d goroutines x %d rounds: %d calls, %d connections", workers, rounds, calls.Load(), cl.n.Load())
	})
}
