package bankpaytest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func statusOf(t *testing.T, srv *bankpaytest.Server, id string) models.TransactionStatus {
	t.Helper()
	txn, ok := srv.Transaction(id)
	if !ok {
		t.Fatalf("no transaction %s", id)
	}
	return txn.Status
}

func TestStateMachineAcrossWeekend(t *testing.T) {
	srv := newServer(t) // Friday 10:00 UTC
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("sm", "100.00")
	d := c.mustDeposit(auth.TransactionID, "sm-1", "10.00")
	id := d.TransactionID

	if got := statusOf(t, srv, id); got != models.StatusAuthorized {
		t.Fatalf("before submission: %v", got)
	}
	// Submitted to the network as soon as the clock moves.
	srv.Advance(time.Millisecond)
	got := c.txn(id)
	if got.Status != models.StatusProcessed || got.ProcessedAt.Time() != friday {
		t.Fatalf("after submission: %v processedAt %v", got.Status, got.ProcessedAt)
	}
	// Friday + 3 banking days = Wednesday 10:00 (Saturday and Sunday skipped).
	wednesday := friday.AddDate(0, 0, 5)
	srv.AdvanceTo(wednesday.Add(-time.Millisecond))
	if got := statusOf(t, srv, id); got != models.StatusProcessed {
		t.Fatalf("one millisecond before 3 banking days: %v", got)
	}
	srv.Advance(time.Millisecond)
	got = c.txn(id)
	if got.Status != models.StatusCompleted || got.CompletedAt.Time() != wednesday {
		t.Fatalf("after 3 banking days: %v completedAt %v", got.Status, got.CompletedAt)
	}
	evs := srv.EventsFor(id)
	if joined(eventTypes(evs)) != "Process,Complete" {
		t.Fatalf("events %v", eventTypes(evs))
	}
	if evs[0].Fields.Get("status") != "3" || evs[1].Fields.Get("status") != "4" || evs[1].CreatedAt != wednesday ||
		evs[1].Fields.Get("parentObjectId") != auth.TransactionID || evs[1].Fields.Get("transactionType") != "6" {
		t.Fatalf("event fields %v %v", evs[0].Fields, evs[1].Fields)
	}
}

func TestAdvanceBankingDays(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("bd", "0.00")
	d := c.mustDeposit(auth.TransactionID, "bd-1", "1.00")
	srv.AdvanceBankingDays(2) // Friday -> Tuesday; submitted Friday
	if now := srv.Now(); now != friday.AddDate(0, 0, 4) {
		t.Fatalf("2 banking days from Friday: %v", now)
	}
	if got := statusOf(t, srv, d.TransactionID); got != models.StatusProcessed {
		t.Fatalf("after 2 banking days: %v", got)
	}
	srv.AdvanceBankingDays(1)
	if got := statusOf(t, srv, d.TransactionID); got != models.StatusCompleted {
		t.Fatalf("after 3 banking days: %v", got)
	}
	// Submitted on a Saturday: Monday, Tuesday, Wednesday.
	srv2 := newServer(t, bankpaytest.WithStartTime(friday.AddDate(0, 0, 1)))
	c2 := newAPI(t, srv2, srv2.Credentials())
	d2 := c2.mustDeposit(c2.establish("sat", "0.00").TransactionID, "sat-1", "1.00")
	srv2.Advance(time.Millisecond)
	srv2.AdvanceTo(friday.AddDate(0, 0, 5).Add(-time.Millisecond)) // Wednesday 09:59:59.999
	if got := statusOf(t, srv2, d2.TransactionID); got != models.StatusProcessed {
		t.Fatalf("submitted Saturday, Wednesday before 10:00: %v", got)
	}
	srv2.AdvanceBankingDays(1)
	if got := statusOf(t, srv2, d2.TransactionID); got != models.StatusCompleted {
		t.Fatalf("submitted Saturday, Thursday: %v", got)
	}
}

func TestNeverCompletedOnceDenied(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("deny", "0.00")
	processed := c.mustDeposit(auth.TransactionID, "deny-1", "1.00")
	srv.Advance(time.Hour)
	early := c.mustDeposit(auth.TransactionID, "deny-2", "1.00") // still Authorized

	if err := srv.Deny(processed.TransactionID); err != nil {
		t.Fatal(err)
	}
	if err := srv.Deny(early.TransactionID); err != nil {
		t.Fatal(err)
	}
	srv.AdvanceBankingDays(10)
	for _, id := range []string{processed.TransactionID, early.TransactionID} {
		if got := statusOf(t, srv, id); got != models.StatusDenied {
			t.Fatalf("%s: %v, want Denied", id, got)
		}
	}
	if got := joined(eventTypes(srv.EventsFor(processed.TransactionID))); got != "Process,Deny" {
		t.Fatalf("events %s", got)
	}
	if got := joined(eventTypes(srv.EventsFor(early.TransactionID))); got != "Deny" {
		t.Fatalf("events %s", got)
	}
	if err := srv.Deny(processed.TransactionID); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("deny twice: %v", err)
	}
	if err := srv.Reverse(processed.TransactionID); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse a Denied deposit: %v", err)
	}
}

func TestReverseOnlyFromCompleted(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("rev", "10.00")
	d := c.mustDeposit(auth.TransactionID, "rev-1", "10.00")
	id := d.TransactionID

	if err := srv.Reverse(id); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse Authorized: %v", err)
	}
	srv.Advance(time.Second)
	if err := srv.Reverse(id); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse Processed: %v", err)
	}
	srv.AdvanceBankingDays(3)
	if err := srv.Deny(id); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("deny Completed: %v", err)
	}
	if err := srv.Reverse(id); err != nil {
		t.Fatalf("reverse Completed: %v", err)
	}
	if got := statusOf(t, srv, id); got != models.StatusReversed {
		t.Fatalf("status %v", got)
	}
	if err := srv.Reverse(id); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse twice: %v", err)
	}
	if got := joined(eventTypes(srv.EventsFor(id))); got != "Process,Complete,Reverse" {
		t.Fatalf("events %s", got)
	}
	// The reversed amount is available again.
	c.mustDeposit(auth.TransactionID, "rev-2", "10.00")

	if err := srv.Deny("100000000999999"); !errors.Is(err, bankpaytest.ErrNotFound) {
		t.Fatalf("deny unknown: %v", err)
	}
	if err := srv.Reverse(auth.TransactionID); !errors.Is(err, bankpaytest.ErrInvalidTransition) {
		t.Fatalf("reverse an authorization: %v", err)
	}
}

func TestAdvanceBackwardsDoesNothing(t *testing.T) {
	srv := newServer(t)
	srv.Advance(-time.Hour)
	srv.Advance(0)
	srv.AdvanceTo(friday.Add(-time.Hour))
	srv.AdvanceBankingDays(0)
	if now := srv.Now(); now != friday {
		t.Fatalf("clock moved to %v", now)
	}
}
