package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// sandboxEnv is a bankpaytest sandbox with an SDK client and two
// authorizations: a Deferred one (to read) and a Retrieval one (for the
// account data calls).
type sandboxEnv struct {
	srv                 *bankpaytest.Server
	c                   *bankpay.Client
	deferred, retrieval string
	tokenize            *bankpay.TokenizeParams
}

func newSandboxEnv(b testing.TB) *sandboxEnv {
	b.Helper()
	srv := bankpaytest.NewServer()
	b.Cleanup(srv.Close)
	sc := srv.Credentials()
	c, err := bankpay.NewClient(sc,
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	e := &sandboxEnv{srv: srv, c: c, tokenize: &bankpay.TokenizeParams{
		AccountNumber: bankpaytest.SandboxAccounts()[0].AccountNumber, RoutingNumber: bankpaytest.SandboxRoutingNumber, AccountType: 1,
	}}
	for i, pt := range []models.PaymentType{models.PaymentTypeDeferred, models.PaymentTypeRetrieval} {
		d := establishData()
		d.NotificationURL = "" // no event delivery during the benchmark
		d.PaymentType = pt
		d.MerchantReference = "bench-" + pt.String()
		if err := c.SignEstablishData(d); err != nil {
			b.Fatal(err)
		}
		_, tx, err := srv.Authorize(*d, bankpaytest.OutcomeAuthorize)
		if err != nil {
			b.Fatalf("authorize %d: %v", i, err)
		}
		if pt == models.PaymentTypeDeferred {
			e.deferred = tx.TransactionID
		} else {
			e.retrieval = tx.TransactionID
		}
	}
	return e
}

// mixed makes call number i of a mix of reads and tokenize: get
// transaction, account balance, account summary, tokenize.
func (e *sandboxEnv) mixed(ctx context.Context, i uint64) error {
	var err error
	switch i % 4 {
	case 0:
		sinkTx, err = e.c.Transactions.Get(ctx, e.deferred)
	case 1:
		var bal *models.AccountBalance
		bal, err = e.c.Accounts.Balance(ctx, e.retrieval)
		if err == nil && bal.Account == nil {
			err = errors.New("no account")
		}
	case 2:
		sinkSummary, err = e.c.Accounts.Summary(ctx, e.retrieval)
	case 3:
		sinkToken, err = e.c.Accounts.Tokenize(ctx, e.tokenize)
	}
	return err
}

// BenchmarkSandboxThroughput is the sandbox's request rate on one
// goroutine: run it with -cpu 1 for requests per second on one core (the
// client and the server share that core). get reads a transaction; mixed
// cycles through get, balance, summary and tokenize.
func BenchmarkSandboxThroughput(b *testing.B) {
	e := newSandboxEnv(b)
	b.Run("get", func(b *testing.B) {
		measure(b, func() (err error) { sinkTx, err = e.c.Transactions.Get(ctx, e.deferred); return })
		perSecond(b, "req/s")
	})
	b.Run("mixed", func(b *testing.B) {
		var i uint64
		measure(b, func() error { i++; return e.mixed(ctx, i) })
		perSecond(b, "req/s")
	})
}

// BenchmarkParallel runs mixed calls from GOMAXPROCS goroutines sharing one
// Client (b.RunParallel): run it with -cpu 1,2 to see how the rate scales.
// sandbox is the bankpaytest sandbox (its state is behind one lock, as a
// fake of a remote service may be); canned is the loopback server of canned
// responses, which has no lock, with the SDK and the hand-written baseline.
func BenchmarkParallel(b *testing.B) {
	b.Run("sandbox", func(b *testing.B) {
		e := newSandboxEnv(b)
		var n atomic.Uint64
		parallel(b, func() error { return e.mixed(ctx, n.Add(1)) })
	})
	p := newPairEnv(b, shapes[0])
	var n atomic.Uint64
	b.Run("canned/sdk", func(b *testing.B) {
		parallel(b, func() error {
			var err error
			switch n.Add(1) % 4 {
			case 0:
				sinkTx, err = p.sdk.Transactions.Get(ctx, txID)
			case 1:
				sinkTx, err = p.sdk.Transactions.Deposit(ctx, authID, depositParams)
			case 2:
				sinkSummary, err = p.sdk.Accounts.Summary(ctx, txID)
			case 3:
				sinkToken, err = p.sdk.Accounts.Tokenize(ctx, tokenizeParams)
			}
			return err
		})
	})
	b.Run("canned/baseline", func(b *testing.B) {
		parallel(b, func() error {
			var err error
			switch n.Add(1) % 4 {
			case 0:
				_, err = p.bare.getTransaction(ctx, txID)
			case 1:
				_, err = p.bare.deposit(ctx, authID, depositParams.MerchantReference, depositParams.Amount)
			case 2:
				_, err = p.bare.summary(ctx, txID)
			case 3:
				_, err = p.bare.tokenize(ctx, tokenizeParams.AccountNumber, tokenizeParams.RoutingNumber)
			}
			return err
		})
	})
}

func parallel(b *testing.B, call func() error) {
	if err := call(); err != nil {
		b.Fatalf("first call: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	perSecond(b, "req/s")
}
