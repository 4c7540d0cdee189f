package redisdedup_test

import (
	"context"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/redisdedup"
	"github.com/stretchr/testify/require"
)

// As in pgdedup: the token is the instance's, so a stale delivery's
// Release deletes a live re-claim of the same replica.
func TestAttackReviewReleaseDropsSameInstanceReclaim(t *testing.T) {
	t.Skip("FINDING: Release matches the instance's token, not the claim's: a stale delivery's Release deletes a live re-claim of the same replica")
	ctx := context.Background()
	rdb := client(t)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: freshPrefix(t, rdb), ClaimTTL: 200 * time.Millisecond})
	st, err := d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	time.Sleep(300 * time.Millisecond)
	st, err = d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	require.NoError(t, d.Release(ctx, "ev1"))
	st, err = d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimInProgress, st, "delivery 2's claim was released by delivery 1")
}
