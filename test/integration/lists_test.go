package integration

// Integration tests of the list operations against the bankpaytest sandbox:
// Transactions.List, ListPage and FindByMerchantReference, Payments.List,
// ListPage and Get, in both response shapes.

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// countingTransport counts the requests to one path.
type countingTransport struct {
	base http.RoundTripper
	path string
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, c.path) {
		c.n.Add(1)
	}
	return c.base.RoundTrip(r)
}

// collect reads a whole iterator, failing on an error.
func collect[T any](t *testing.T, seq func(func(*T, error) bool)) []*T {
	t.Helper()
	var out []*T
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

func txnIDs(ts []*models.Transaction) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.TransactionID
	}
	return ids
}

func paymentIDs(ps []*models.Payment) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.PaymentID
	}
	return ids
}

// listFixture is what TestLists creates: three Disbursement
// authorizations a minute apart, and deposits of 10.00 and 25.00 from the
// first and 5.00 from the second.
type listFixture struct {
	start            time.Time
	auth1, auth2     *models.Transaction
	auth3            *models.Transaction
	dep1, dep2, dep3 *models.Transaction
}

func newListFixture(t *testing.T, s *sandbox) *listFixture {
	t.Helper()
	ctx := context.Background()
	c := s.client
	f := &listFixture{start: s.Now()}
	establish := func(ref, externalID string) *models.Transaction {
		d := disbursementParams(ref, "", "0.00", bankpaytest.AccountVerified)
		d.Customer = &models.Customer{ExternalID: externalID, Name: "Jane Doe"}
		est, err := c.Transactions.Establish(ctx, d)
		require.NoError(t, err)
		// The authorization's state is Get's: the OpenAPI's establish
		// answer (the bare shape) carries its id, not its payment.
		txn, err := c.Transactions.Get(ctx, est.TransactionID)
		require.NoError(t, err)
		s.Advance(time.Minute)
		return txn
	}
	deposit := func(auth *models.Transaction, ref string, amount models.Amount) *models.Transaction {
		dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: ref, Amount: amount})
		require.NoError(t, err)
		s.Advance(time.Minute)
		return dep
	}
	f.auth1 = establish("list-auth-1", "cust-1")
	f.auth2 = establish("list-auth-2", "cust-2")
	f.auth3 = establish("list-auth-3", "cust-1")
	f.dep1 = deposit(f.auth1, "list-dep-1", "10.00")
	f.dep2 = deposit(f.auth1, "list-dep-2", "25.00")
	f.dep3 = deposit(f.auth2, "list-dep-3", "5.00")
	return f
}

func TestLists(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		testLists(t, startSandbox(t, sh, bankpaytest.WithStartTime(thursday)))
	})
}

func testLists(t *testing.T, s *sandbox) {
	ctx := context.Background()
	c := s.client
	f := newListFixture(t, s)
	all := []string{f.auth1.TransactionID, f.auth2.TransactionID, f.auth3.TransactionID,
		f.dep1.TransactionID, f.dep2.TransactionID, f.dep3.TransactionID}
	list := func(p *bankpay.TransactionListParams) []string {
		t.Helper()
		return txnIDs(collect(t, c.Transactions.List(ctx, p)))
	}

	t.Run("everything, in creation order", func(t *testing.T) {
		assert.Equal(t, all, list(nil))
	})
	t.Run("filters", func(t *testing.T) {
		deposits := []models.TransactionType{models.TypeDeposit}
		assert.Equal(t, all[3:], list(&bankpay.TransactionListParams{TransactionTypes: deposits}))
		assert.Equal(t, all[:3], list(&bankpay.TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeAuthorize}}))
		assert.Equal(t, all[3:5], list(&bankpay.TransactionListParams{OriginalTransactionID: f.auth1.TransactionID}))
		assert.Equal(t, []string{all[0], all[3], all[4]}, list(&bankpay.TransactionListParams{PaymentID: f.auth1.Payment.PaymentID}),
			"a payment's transactions: the authorization and its deposits")
		assert.Equal(t, []string{all[0], all[3], all[4]}, list(&bankpay.TransactionListParams{MerchantReference: "list-auth-1"}))
		// payment.merchantReference is the payment's (the authorization's)
		// reference, as the operator documents it: a deposit's own is none.
		assert.Empty(t, list(&bankpay.TransactionListParams{MerchantReference: "list-dep-2"}))
		assert.Equal(t, all[3:5], list(&bankpay.TransactionListParams{TransactionTypes: deposits, ListRange: bankpay.ListRange{AmountMin: "10.00", AmountMax: "25.00"}}))
		assert.Equal(t, []string{all[0], all[2], all[3], all[4]}, list(&bankpay.TransactionListParams{CustomerExternalID: "cust-1"}))
		assert.Equal(t, all, list(&bankpay.TransactionListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDisbursement}}))
		assert.Empty(t, list(&bankpay.TransactionListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred}}))
		// Created a minute apart: the second to the fourth.
		assert.Equal(t, all[1:4], list(&bankpay.TransactionListParams{
			ListRange: bankpay.ListRange{CreatedAtStart: f.auth2.CreatedAt.Time(), CreatedAtEnd: f.dep1.CreatedAt.Time()}}))
	})
	t.Run("statuses change with the clock", func(t *testing.T) {
		// Every deposit was submitted when the clock moved: Processed.
		processed := []models.TransactionStatus{models.StatusProcessed}
		assert.Equal(t, all[3:], list(&bankpay.TransactionListParams{Statuses: processed}))
		require.NoError(t, s.Deny(f.dep3.TransactionID))
		assert.Equal(t, all[5:], list(&bankpay.TransactionListParams{Statuses: []models.TransactionStatus{models.StatusDenied}}))
		assert.Equal(t, all[3:5], list(&bankpay.TransactionListParams{Statuses: processed}))
		// Denied moved updatedAt: the deposit is the only one changed since.
		assert.Equal(t, all[5:], list(&bankpay.TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeDeposit},
			ListRange: bankpay.ListRange{UpdatedAtStart: s.Now()}}))
	})
	t.Run("order", func(t *testing.T) {
		deposits := []models.TransactionType{models.TypeDeposit}
		assert.Equal(t, []string{all[4], all[3], all[5]},
			list(&bankpay.TransactionListParams{TransactionTypes: deposits, ListRange: bankpay.ListRange{OrderBy: "amount", SortOrder: "desc"}}))
		assert.Equal(t, []string{all[5], all[3], all[4]},
			list(&bankpay.TransactionListParams{TransactionTypes: deposits, ListRange: bankpay.ListRange{OrderBy: "amount", SortOrder: "asc"}}))
		reversed := list(&bankpay.TransactionListParams{ListRange: bankpay.ListRange{OrderBy: "createdAt", SortOrder: "desc"}})
		for i := range all {
			assert.Equal(t, all[len(all)-1-i], reversed[i])
		}
	})
	t.Run("pages", func(t *testing.T) {
		ct := &countingTransport{path: "/transactions"}
		pc, err := bankpay.NewClient(s.Credentials(), bankpay.WithBaseURL(s.URL),
			bankpay.WithTransport(func(rt http.RoundTripper) http.RoundTripper { ct.base = rt; return ct }))
		require.NoError(t, err)
		got := txnIDs(collect(t, pc.Transactions.List(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 2}})))
		assert.Equal(t, all, got)
		assert.Equal(t, int32(4), ct.n.Load(), "three full pages of 2, then an empty one")

		got = txnIDs(collect(t, pc.Transactions.List(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 4, StartIndex: 1}})))
		assert.Equal(t, all[1:], got)

		// Stopping early reads no further page.
		ct.n.Store(0)
		for range pc.Transactions.List(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 2}}) {
			break
		}
		assert.Equal(t, int32(1), ct.n.Load())

		page, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{StartIndex: 4, Count: 5}})
		require.NoError(t, err)
		assert.Equal(t, 4, page.StartIndex)
		assert.Equal(t, all[4:], txnIDs(ptrs(page.Items)))
		// The records are those Get shows, account number cut to 4 digits.
		got1, err := c.Transactions.Get(ctx, all[4])
		require.NoError(t, err)
		assert.Equal(t, got1, &page.Items[0])
		assert.Len(t, page.Items[0].Payment.Account.AccountNumber, 4)
	})
	t.Run("find by merchantReference", func(t *testing.T) {
		// With no original, the authorization lookup: "none" is ErrNotFound
		// here, to share the table below.
		find := func(original, ref string) (*models.Transaction, error) {
			if original == "" {
				auth, ok, err := c.Transactions.FindAuthorization(ctx, ref)
				if err == nil && !ok {
					return nil, bankpay.ErrNotFound
				}
				return auth, err
			}
			return c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: original, Type: models.TypeDeposit, MerchantReference: ref})
		}
		got, err := find(f.auth1.TransactionID, "list-dep-2")
		require.NoError(t, err)
		assert.Equal(t, f.dep2.TransactionID, got.TransactionID)
		assert.Equal(t, models.Amount("25.00"), got.Amount)
		// An authorization's reference finds the authorization, not its deposits.
		got, err = find("", "list-auth-1")
		require.NoError(t, err)
		assert.Equal(t, f.auth1.TransactionID, got.TransactionID)

		for _, tc := range [][2]string{{"", "never-used"}, {f.auth1.TransactionID, "never-used"},
			// A deposit's reference under another authorization, or with none.
			{f.auth2.TransactionID, "list-dep-2"}, {"", "list-dep-2"}} {
			_, err = find(tc[0], tc[1])
			assert.ErrorIs(t, err, bankpay.ErrNotFound, "%q %q", tc[0], tc[1])
			assert.NotErrorIs(t, err, bankpay.ErrAmbiguous)
			assert.NotErrorIs(t, err, bankpay.ErrIncomplete)
		}

		// The same reference on an authorization and its deposit: each is
		// found by what it was made from.
		auth, err := c.Transactions.Establish(ctx, disbursementParams("shared-ref", "", "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "shared-ref", Amount: "1.00"})
		require.NoError(t, err)
		got, err = find("", "shared-ref")
		require.NoError(t, err)
		assert.Equal(t, auth.TransactionID, got.TransactionID)
		got, err = find(auth.TransactionID, "shared-ref")
		require.NoError(t, err)
		assert.Equal(t, dep.TransactionID, got.TransactionID)
	})
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func TestPayments(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		testPayments(t, startSandbox(t, sh, bankpaytest.WithStartTime(thursday)))
	})
}

func testPayments(t *testing.T, s *sandbox) {
	ctx := context.Background()
	c := s.client
	f := newListFixture(t, s)
	ids := []string{f.auth1.Payment.PaymentID, f.auth2.Payment.PaymentID, f.auth3.Payment.PaymentID}

	ps := collect(t, c.Payments.List(ctx, nil))
	assert.Equal(t, ids, paymentIDs(ps))
	p := ps[0]
	assert.Equal(t, "list-auth-1", p.MerchantReference)
	assert.Equal(t, models.PaymentTypeDisbursement, p.PaymentType)
	require.NotNil(t, p.AuthorizationStatus)
	assert.Equal(t, models.StatusAuthorized, *p.AuthorizationStatus)
	assert.Equal(t, models.Amount("35.00"), p.Pending, "two deposits submitted, not yet completed")
	assert.Equal(t, models.Amount("0.00"), p.Paid)
	require.NotNil(t, p.Customer)
	assert.Equal(t, "cust-1", p.Customer.ExternalID)
	assert.Len(t, p.Account.AccountNumber, 4)

	got, err := c.Payments.Get(ctx, f.auth1.Payment.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, p, got)

	// The deposits complete, one is reversed: the totals follow.
	s.AdvanceBankingDays(bankpaytest.CompletionBankingDays + 1)
	require.NoError(t, s.Reverse(f.dep1.TransactionID))
	got, err = c.Payments.Get(ctx, f.auth1.Payment.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, models.Amount("0.00"), got.Pending)
	assert.Equal(t, models.Amount("35.00"), got.Paid)
	assert.Equal(t, models.Amount("10.00"), got.Reversed)
	assert.Equal(t, models.Amount("25.00"), got.Balance)
	assert.Greater(t, got.UpdatedAt, p.UpdatedAt)

	// A reclaim of part of the other deposit counts as money returned.
	rc, err := c.Transactions.Reclaim(ctx, f.dep2.TransactionID, &bankpay.ReclaimParams{MerchantReference: "list-rc-1", Amount: "5.00"})
	require.NoError(t, err)
	got, err = c.Payments.Get(ctx, f.auth1.Payment.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, models.Amount("5.00"), got.Refunded)
	assert.Equal(t, models.Amount("20.00"), got.Balance, "35.00 paid, 10.00 reversed, 5.00 returned")
	assert.Equal(t, models.Amount("35.00"), got.Paid)
	// The reclaim belongs to the payment: listed with it, found from the
	// deposit by its reference.
	assert.Contains(t, txnIDs(collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{MerchantReference: "list-auth-1"}))), rc.TransactionID)
	found, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{OriginalTransactionID: f.dep2.TransactionID, Type: models.TypeReclaim, MerchantReference: "list-rc-1"})
	require.NoError(t, err)
	assert.Equal(t, rc.TransactionID, found.TransactionID)

	list := func(p *bankpay.PaymentListParams) []string {
		t.Helper()
		return paymentIDs(collect(t, c.Payments.List(ctx, p)))
	}
	assert.Equal(t, ids[1:2], list(&bankpay.PaymentListParams{MerchantReference: "list-auth-2"}))
	assert.Equal(t, ids, list(&bankpay.PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDisbursement}}))
	assert.Empty(t, list(&bankpay.PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred}}))
	assert.Equal(t, []string{ids[0], ids[2]}, list(&bankpay.PaymentListParams{CustomerID: p.Customer.CustomerID}))
	assert.Equal(t, []string{ids[2], ids[1], ids[0]}, list(&bankpay.PaymentListParams{ListRange: bankpay.ListRange{OrderBy: "createdAt", SortOrder: "desc"}}))
	assert.Equal(t, ids[:1], list(&bankpay.PaymentListParams{ListRange: bankpay.ListRange{UpdatedAtStart: got.UpdatedAt.Time()}}))
	assert.Equal(t, ids, list(&bankpay.PaymentListParams{AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized}}))

	page, err := c.Payments.ListPage(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{StartIndex: 1, Count: 1}})
	require.NoError(t, err)
	assert.Equal(t, ids[1:2], paymentIDs(ptrs(page.Items)))
	assert.Equal(t, 1, page.StartIndex)
	assert.Equal(t, 1, page.ItemsPerPage)

	_, err = c.Payments.Get(ctx, f.dep1.TransactionID)
	assert.ErrorIs(t, err, bankpay.ErrNotFound, "a deposit is no payment")
}
