package bankpay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// caseServer is movingOrderServer's list (L at 150 in order A, at 50 in
// order B, pages alternating A, B, A…), with every id written in upper
// case on the pages served in order B (ids: the service's, in another
// case), and L's originalTransactionId written as orig.
func caseServer(t *testing.T, orig string) (*Client, *atomic.Int32) {
	var orderA, orderB []string
	for i := range 249 {
		orderA = append(orderA, fmt.Sprintf("t%d", i))
	}
	orderB = slices.Clone(orderA)
	orderA = slices.Insert(orderA, 150, "L")
	orderB = slices.Insert(orderB, 50, "L")
	var n atomic.Int32
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		read := int(n.Add(1)) - 1
		order, upper := orderA, false
		if read%2 == 1 {
			order, upper = orderB, true
		}
		start, _ := strconv.Atoi(r.URL.Query().Get("startIndex"))
		items := []string{}
		for i := start; i < min(start+100, len(order)); i++ {
			id, ref, o := order[i], "other", "A1"
			if id == "L" {
				ref, o = "dep-7", orig
			}
			if upper {
				id = strings.ToUpper(id)
			}
			items = append(items, findTxnJSON(id, o, ref))
		}
		_, _ = io.WriteString(w, findPage(items...))
	})
	return c, &n
}

// TestAttack_FindIDsChangeCase: the order moves between reads (L skipped)
// and the page that shows t99 again writes it T99: the repeat is not
// seen, so the scan "saw" 250 distinct ids and answered ErrNotFound (pay
// again) for a deposit that was made.
func TestAttack_FindIDsChangeCase(t *testing.T) {
	c, _ := caseServer(t, "A1")
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NotErrorIs(t, err, ErrNotFound, "got %v: a made deposit reads as not made", got)
}

// TestAttack_FindOriginalChangesCase: the deposit made from A1 is listed
// (by the server's filter originalTransactionId=A1) with
// originalTransactionId "a1": it must not be dropped as made from another
// transaction, which answers ErrNotFound.
func TestAttack_FindOriginalChangesCase(t *testing.T) {
	c, mock := findClient(t)
	item := `{"transactionId":"D7","originalTransactionId":"a1","transactionType":6,"status":3,"amount":"10.00","merchantReference":"dep-7"}`
	sequence(t, mock, jsonResponse(200, findPage(findTxnJSON("t1", "A1", "other"), item)), jsonResponse(200, emptyPage))
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NotErrorIs(t, err, ErrNotFound, "got %v: a made deposit reads as not made", got)
}

// TestAttack_FindLyingPageFields: a server whose pages say startIndex 0
// and itemsPerPage 1 on every page; the scan still moves by the items
// received and finds L on the third page.
func TestAttack_FindLyingPageFields(t *testing.T) {
	var n atomic.Int32
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		start, _ := strconv.Atoi(r.URL.Query().Get("startIndex"))
		items := []string{}
		for i := start; i < min(start+100, 250); i++ {
			ref := "other"
			if i == 230 {
				ref = "dep-7"
			}
			items = append(items, findTxnJSON(fmt.Sprintf("t%d", i), "A1", ref))
		}
		_, _ = io.WriteString(w, `{"startIndex":0,"itemsPerPage":1,"transactions":[`+strings.Join(items, ",")+`]}`)
	})
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{OriginalTransactionID: "A1", MerchantReference: "dep-7", Type: models.TypeDeposit})
	require.NoError(t, err)
	assert.Equal(t, "t230", got.TransactionID)
	assert.Equal(t, int32(4), n.Load())
}

// TestAttack_FindAuthorizationReferenceInPaymentOnly: the list (filtered
// by payment.merchantReference) shows the authorization with its
// reference under payment only, none of its own: the lookup answered "no
// authorization has it" (nil, false, nil) although it listed it, and the
// merchant establishes again.
func TestAttack_FindAuthorizationReferenceInPaymentOnly(t *testing.T) {
	c, mock, _ := newTestClient(t)
	item := `{"transactionId":"A1","transactionType":1,"status":2,"amount":"10.00","payment":{"paymentId":"P1","merchantReference":"order-42"}}`
	pages(t, mock, "/api/v1/transactions",
		pageStep{findByPayment + "0", findPage(item)},
		pageStep{findByPayment + "1", emptyPage},
	)
	got, ok, err := c.Transactions.FindAuthorization(context.Background(), "order-42")
	require.True(t, ok || err != nil, "got %v, %v, %v: an authorization listed reads as none", got, ok, err)
}
