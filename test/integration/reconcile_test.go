package integration

// Reconciliation: a money-moving call whose response is lost (the sandbox
// acts on it, then resets the connection) returns a *NetworkError with
// Sent true; the merchant finds the transaction from what the call was
// made against and its merchantReference instead of paying again. The
// sandbox lists as the operator documents (payment.merchantReference is
// the payment's reference, pages of at most 50, no itemsPerPage): each
// lost transaction is made after 55 others from the same transaction, so
// that it is on the second page.

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// fillers is how many transactions are made from the original before the
// lost one: more than the sandbox's page of 50.
const fillers = 55

// lostCall is one money-moving call whose response is lost.
type lostCall struct {
	name string
	typ  models.TransactionType
	// setup makes the transaction the call is made against and fillers
	// transactions from it, and returns its id.
	setup func(t *testing.T, s *sandbox) string
	// path is the call's path below /api/v1.
	path string
	// call makes the call from original with merchantReference ref.
	call func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error)
	// amount is the amount call moves.
	amount models.Amount
}

// reconcileCalls are the money-moving calls made from another transaction:
// a deposit and a money-transfer capture from an authorization, a refund
// of a completed capture, a reclaim of a completed deposit.
func reconcileCalls() []lostCall {
	ctx := context.Background()
	disbursement := func(t *testing.T, s *sandbox) string {
		auth, err := s.client.Transactions.Establish(ctx, disbursementParams("rec-auth", "", "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		return auth.TransactionID
	}
	deferred := func(t *testing.T, s *sandbox) string {
		d := deferredData("rec-auth", "")
		d.Customer = &models.Customer{ExternalID: "sender-1", Name: "Maria Garcia",
			Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"}}
		return s.authorize(t, d, bankpaytest.OutcomeAuthorize).TransactionID
	}
	capture := func(amount models.Amount) func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
		return func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
			p := transferCapture(ref)
			p.Amount = amount
			return c.Transactions.Capture(ctx, original, p)
		}
	}
	deposit := func(amount models.Amount) func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
		return func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
			return c.Transactions.Deposit(ctx, original, &bankpay.DepositParams{MerchantReference: ref, Amount: amount})
		}
	}
	refund := func(amount models.Amount) func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
		return func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
			return c.Transactions.Refund(ctx, original, &bankpay.RefundParams{MerchantReference: ref, Amount: amount})
		}
	}
	reclaim := func(amount models.Amount) func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
		return func(ctx context.Context, c *bankpay.Client, original, ref string) (*models.Transaction, error) {
			return c.Transactions.Reclaim(ctx, original, &bankpay.ReclaimParams{MerchantReference: ref, Amount: amount})
		}
	}
	// fill makes fillers transactions from original with call.
	fill := func(t *testing.T, s *sandbox, original string, call func(context.Context, *bankpay.Client, string, string) (*models.Transaction, error)) {
		for i := range fillers {
			_, err := call(ctx, s.client, original, fmt.Sprintf("rec-fill-%d", i))
			require.NoError(t, err)
		}
	}
	return []lostCall{
		{name: "deposit", typ: models.TypeDeposit, path: "deposit", amount: "40.00", call: deposit("40.00"),
			setup: func(t *testing.T, s *sandbox) string {
				auth := disbursement(t, s)
				fill(t, s, auth, deposit("1.00"))
				return auth
			}},
		{name: "capture", typ: models.TypeCapture, path: "capture", amount: "2.00", call: capture("2.00"),
			setup: func(t *testing.T, s *sandbox) string {
				auth := deferred(t, s)
				fill(t, s, auth, capture("1.00"))
				return auth
			}},
		{name: "refund", typ: models.TypeRefund, path: "refund", amount: "5.00", call: refund("5.00"),
			setup: func(t *testing.T, s *sandbox) string {
				cp, err := capture("80.00")(ctx, s.client, deferred(t, s), "rec-capture")
				require.NoError(t, err)
				settle(t, s)
				fill(t, s, cp.TransactionID, refund("1.00"))
				return cp.TransactionID
			}},
		{name: "reclaim", typ: models.TypeReclaim, path: "reclaim", amount: "5.00", call: reclaim("5.00"),
			setup: func(t *testing.T, s *sandbox) string {
				dep, err := deposit("100.00")(ctx, s.client, disbursement(t, s), "rec-deposit")
				require.NoError(t, err)
				settle(t, s)
				fill(t, s, dep.TransactionID, reclaim("1.00"))
				return dep.TransactionID
			}},
	}
}

func TestReconcileLostResponses(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		for _, lc := range reconcileCalls() {
			t.Run(lc.name, func(t *testing.T) {
				s := startSandbox(t, sh, bankpaytest.WithStartTime(thursday))
				ctx := context.Background()
				c := s.client
				original := lc.setup(t, s)

				s.LoseResponse(http.MethodPost, "/transactions/"+original+"/"+lc.path)
				_, err := lc.call(ctx, c, original, "rec-lost")
				var ne *bankpay.NetworkError
				require.ErrorAs(t, err, &ne)
				assert.True(t, ne.Sent, "the request may have reached the service")
				assert.Equal(t, 1, ne.Attempts, "a money-moving call is not retried")

				// Not paying again: find it, on the second page of 50.
				got, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: original, Type: lc.typ, MerchantReference: "rec-lost"})
				require.NoError(t, err)
				assert.Equal(t, lc.typ, got.TransactionType)
				assert.Equal(t, original, got.OriginalTransactionID)
				assert.Equal(t, lc.amount, got.Amount)
				assert.Equal(t, "rec-lost", got.MerchantReference)
				page, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{OriginalTransactionID: original})
				require.NoError(t, err)
				require.Len(t, page.Items, 50, "the sandbox's page cap")
				assert.NotContains(t, txnIDs(ptrs(page.Items)), got.TransactionID, "found beyond the first page")

				// The payment's reference filter does not list it by its own
				// reference: only the lookup from the original finds it.
				assert.Empty(t, collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{MerchantReference: "rec-lost"})))

				// A call whose request never took effect is not found: making it
				// with that reference is safe, and made once; a repeat of the
				// lost one is refused.
				_, err = c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: original, Type: lc.typ, MerchantReference: "rec-next"})
				require.ErrorIs(t, err, bankpay.ErrNotFound)
				assert.NotErrorIs(t, err, bankpay.ErrIncomplete)
				_, err = lc.call(ctx, c, original, "rec-next")
				require.NoError(t, err)
				_, err = lc.call(ctx, c, original, "rec-lost")
				require.ErrorIs(t, err, bankpay.ErrDuplicate)
				made := collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{OriginalTransactionID: original}))
				assert.Len(t, made, fillers+2, "each call made once")
			})
		}
	})
}

func TestReconcileLostEstablish(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		c := s.client
		s.LoseResponse(http.MethodPost, "/establish")
		_, err := c.Transactions.Establish(ctx, disbursementParams("rec-est", "", "0.00", bankpaytest.AccountVerified))
		var ne *bankpay.NetworkError
		require.ErrorAs(t, err, &ne)
		require.True(t, ne.Sent)

		auth, ok, err := c.Transactions.FindAuthorization(ctx, "rec-est")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, models.TypeAuthorize, auth.TransactionType)
		assert.Equal(t, models.StatusAuthorized, auth.Status)
		// Repeating it would be refused: the reference was used.
		_, err = c.Transactions.Establish(ctx, disbursementParams("rec-est", "", "0.00", bankpaytest.AccountVerified))
		assert.ErrorIs(t, err, bankpay.ErrDuplicate)
	})
}

// A lookup that cannot read the whole list is ErrIncomplete, never
// ErrNotFound: here the sandbox stops answering after the first page.
func TestReconcileIncomplete(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()
		auth, err := s.client.Transactions.Establish(ctx, disbursementParams("rec-inc", "", "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		for i := range fillers {
			_, err := s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: fmt.Sprintf("rec-fill-%d", i), Amount: "1.00"})
			require.NoError(t, err)
		}
		var pages int
		c, err := bankpay.NewClient(s.Credentials(), bankpay.WithBaseURL(s.URL), bankpay.WithMaxRetries(0),
			bankpay.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					if pages++; pages > 2 { // the original, then the first page
						return nil, fmt.Errorf("connection refused")
					}
					return rt.RoundTrip(r)
				})
			}))
		require.NoError(t, err)
		_, err = c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: auth.TransactionID, Type: models.TypeDeposit, MerchantReference: "rec-none"})
		require.ErrorIs(t, err, bankpay.ErrIncomplete)
		assert.NotErrorIs(t, err, bankpay.ErrNotFound)
		var ne *bankpay.NetworkError
		assert.ErrorAs(t, err, &ne)
		assert.Equal(t, 3, pages, "cut short after the original and the first page were read (a failing first page proves less)")
	})
}

// A refund whose response was lost, looked up with the wrong original:
// the authorization (the refund is made from the capture, so the
// authorization's children never include it) or an id that does not
// exist. Neither is ErrNotFound ("not made: make the call again", which
// both were): the authorization is a *ValidationError naming
// originalTransactionId, the unknown id ErrIncomplete; the right original
// finds the refund.
func TestReconcileWrongOriginal(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()
		c := s.client
		var refund lostCall
		for _, lc := range reconcileCalls() {
			if lc.typ == models.TypeRefund {
				refund = lc
			}
		}
		cp, err := c.Transactions.Get(ctx, refund.setup(t, s)) // a completed capture, with refunds made from it
		require.NoError(t, err)
		auth := cp.OriginalTransactionID
		require.NotEmpty(t, auth)
		s.LoseResponse(http.MethodPost, "/transactions/"+cp.TransactionID+"/refund")
		_, err = c.Transactions.Refund(ctx, cp.TransactionID, &bankpay.RefundParams{MerchantReference: "rec-refund", Amount: "1.00"})
		require.True(t, bankpay.OutcomeUnknown(err), "%v", err)

		find := func(original string) (*models.Transaction, error) {
			return c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: original, Type: models.TypeRefund, MerchantReference: "rec-refund"})
		}
		_, err = find(auth)
		require.NotErrorIs(t, err, bankpay.ErrNotFound, "the authorization given for a refund proves nothing")
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "originalTransactionId", ve.Field)
		assert.Contains(t, ve.Reason, "Capture")

		_, err = find("999999999999999")
		require.NotErrorIs(t, err, bankpay.ErrNotFound, "an id that does not exist proves nothing")
		require.ErrorIs(t, err, bankpay.ErrIncomplete)
		assert.Contains(t, err.Error(), "check OriginalTransactionID")
		var ae *bankpay.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusNotFound, ae.StatusCode)

		got, err := find(cp.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, models.TypeRefund, got.TransactionType)
		assert.Equal(t, cp.TransactionID, got.OriginalTransactionID)
	})
}

// roundTripFunc is a RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
