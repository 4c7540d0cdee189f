package bankpaytest_test

import (
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

func statusOf(t *testing.T, srv *bankpaytest.Server, id string) models.TransactionStatus {
	t.Helper()
	txn, ok := srv.Transaction(id)
	require.True(t, ok, "no transaction %s", id)
	return txn.Status
}

func TestStateMachineAcrossWeekend(t *testing.T) {
	srv := newServer(t) // Friday 10:00 UTC
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("sm", "100.00")
	d := c.mustDeposit(auth.TransactionID, "sm-1", "10.00")
	id := d.TransactionID

	got := statusOf(t, srv, id)
	require.Equal(t, models.StatusAuthorized, got, "before submission: %v", got)
	// Submitted to the network as soon as the clock moves.
	srv.Advance(time.Millisecond)
	txn := c.txn(id)
	require.Equal(t, models.StatusProcessed, txn.Status, "after submission: %v processedAt %v", txn.Status, txn.ProcessedAt)
	require.Equal(t, friday, txn.ProcessedAt.Time(), "after submission: %v processedAt %v", txn.Status, txn.ProcessedAt)
	// Friday + 3 banking days = Wednesday 10:00 (Saturday and Sunday skipped).
	wednesday := friday.AddDate(0, 0, 5)
	srv.AdvanceTo(wednesday.Add(-time.Millisecond))
	got = statusOf(t, srv, id)
	require.Equal(t, models.StatusProcessed, got, "one millisecond before 3 banking days: %v", got)
	srv.Advance(time.Millisecond)
	txn = c.txn(id)
	require.Equal(t, models.StatusCompleted, txn.Status, "after 3 banking days: %v completedAt %v", txn.Status, txn.CompletedAt)
	require.Equal(t, wednesday, txn.CompletedAt.Time(), "after 3 banking days: %v completedAt %v", txn.Status, txn.CompletedAt)
	evs := srv.EventsFor(id)
	require.Equal(t, "Process,Complete", joined(eventTypes(evs)), "events %v", eventTypes(evs))
	require.Equal(t, "3", evs[0].Raw.Get("status"), "event fields %v %v", evs[0].Raw, evs[1].Raw)
	require.Equal(t, "4", evs[1].Raw.Get("status"), "event fields %v %v", evs[0].Raw, evs[1].Raw)
	require.Equal(t, wednesday, evs[1].CreatedAt, "event fields %v %v", evs[0].Raw, evs[1].Raw)
	require.Equal(t, auth.TransactionID, evs[1].Raw.Get("parentObjectId"), "event fields %v %v", evs[0].Raw, evs[1].Raw)
	require.Equal(t, "6", evs[1].Raw.Get("transactionType"), "event fields %v %v", evs[0].Raw, evs[1].Raw)
}

func TestAdvanceBankingDays(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("bd", "0.00")
	d := c.mustDeposit(auth.TransactionID, "bd-1", "1.00")
	srv.AdvanceBankingDays(2) // Friday -> Tuesday; submitted Friday
	now := srv.Now()
	require.Equal(t, friday.AddDate(0, 0, 4), now, "2 banking days from Friday: %v", now)
	got := statusOf(t, srv, d.TransactionID)
	require.Equal(t, models.StatusProcessed, got, "after 2 banking days: %v", got)
	srv.AdvanceBankingDays(1)
	got = statusOf(t, srv, d.TransactionID)
	require.Equal(t, models.StatusCompleted, got, "after 3 banking days: %v", got)
	// Submitted on a Saturday: Monday, Tuesday, Wednesday.
	srv2 := newServer(t, bankpaytest.WithStartTime(friday.AddDate(0, 0, 1)))
	c2 := newAPI(t, srv2, srv2.Credentials())
	d2 := c2.mustDeposit(c2.establish("sat", "0.00").TransactionID, "sat-1", "1.00")
	srv2.Advance(time.Millisecond)
	srv2.AdvanceTo(friday.AddDate(0, 0, 5).Add(-time.Millisecond)) // Wednesday 09:59:59.999
	got = statusOf(t, srv2, d2.TransactionID)
	require.Equal(t, models.StatusProcessed, got, "submitted Saturday, Wednesday before 10:00: %v", got)
	srv2.AdvanceBankingDays(1)
	got = statusOf(t, srv2, d2.TransactionID)
	require.Equal(t, models.StatusCompleted, got, "submitted Saturday, Thursday: %v", got)
}

func TestNeverCompletedOnceDenied(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("deny", "0.00")
	processed := c.mustDeposit(auth.TransactionID, "deny-1", "1.00")
	srv.Advance(time.Hour)
	early := c.mustDeposit(auth.TransactionID, "deny-2", "1.00") // still Authorized

	require.NoError(t, srv.Deny(processed.TransactionID))
	require.NoError(t, srv.Deny(early.TransactionID))
	srv.AdvanceBankingDays(10)
	for _, id := range []string{processed.TransactionID, early.TransactionID} {
		got := statusOf(t, srv, id)
		require.Equal(t, models.StatusDenied, got, "%s: %v, want Denied", id, got)
	}
	got := joined(eventTypes(srv.EventsFor(processed.TransactionID)))
	require.Equal(t, "Process,Deny", got, "events %s", got)
	got = joined(eventTypes(srv.EventsFor(early.TransactionID)))
	require.Equal(t, "Deny", got, "events %s", got)
	err := srv.Deny(processed.TransactionID)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "deny twice: %v", err)
	err = srv.Reverse(processed.TransactionID)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse a Denied deposit: %v", err)
}

func TestReverseOnlyFromCompleted(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("rev", "10.00")
	d := c.mustDeposit(auth.TransactionID, "rev-1", "10.00")
	id := d.TransactionID

	err := srv.Reverse(id)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse Authorized: %v", err)
	srv.Advance(time.Second)
	err = srv.Reverse(id)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse Processed: %v", err)
	srv.AdvanceBankingDays(3)
	err = srv.Deny(id)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "deny Completed: %v", err)
	err = srv.Reverse(id)
	require.NoError(t, err, "reverse Completed: %v", err)
	got := statusOf(t, srv, id)
	require.Equal(t, models.StatusReversed, got, "status %v", got)
	err = srv.Reverse(id)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse twice: %v", err)
	events := joined(eventTypes(srv.EventsFor(id)))
	require.Equal(t, "Process,Complete,Reverse", events, "events %s", events)
	// The reversed amount is available again.
	c.mustDeposit(auth.TransactionID, "rev-2", "10.00")

	err = srv.Deny("100000000999999")
	require.ErrorIs(t, err, bankpaytest.ErrUnknownTransaction, "deny unknown: %v", err)
	err = srv.Reverse(auth.TransactionID)
	require.ErrorIs(t, err, bankpaytest.ErrInvalidTransition, "reverse an authorization: %v", err)
}

func TestAdvanceBackwardsDoesNothing(t *testing.T) {
	srv := newServer(t)
	srv.Advance(-time.Hour)
	srv.Advance(0)
	srv.AdvanceTo(friday.Add(-time.Hour))
	srv.AdvanceBankingDays(0)
	now := srv.Now()
	require.Equal(t, friday, now, "clock moved to %v", now)
}
