package pgdedup_test

import (
	"context"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/pgdedup"
	"github.com/stretchr/testify/require"
)

// Found by review when the owner was the instance, not the claim: a
// delivery whose claim expired and was re-claimed by another request of the
// same replica released that request's claim when it failed, and a third
// delivery ran the callback while the second was still running it. Each
// claim now has its own token.
func TestAttackReviewReleaseDropsSameInstanceReclaim(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	table := freshTable(t, db)
	d, err := pgdedup.New(db, pgdedup.Options{Table: table, ClaimTTL: 200 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, d.CreateTable(ctx))

	st, first, err := d.Claim(ctx, "ev1") // delivery 1: its callback runs past the TTL
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	time.Sleep(300 * time.Millisecond)
	st, _, err = d.Claim(ctx, "ev1") // delivery 2, same replica: claims again
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	require.NoError(t, d.Release(ctx, "ev1", first)) // delivery 1 fails: releases
	st, _, err = d.Claim(ctx, "ev1")                 // delivery 3 while 2 still runs
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimInProgress, st, "delivery 2's claim was released by delivery 1")
}
