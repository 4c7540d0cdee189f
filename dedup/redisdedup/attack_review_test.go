package redisdedup_test

import (
	"context"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/dedup/redisdedup"
	"github.com/stretchr/testify/require"
)

// As in pgdedup: found by review when the token was the instance's, so a
// stale delivery's Release deleted a live re-claim of the same replica.
// Each claim now has its own token.
func TestAttackReviewReleaseDropsSameInstanceReclaim(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	d := redisdedup.New(rdb, redisdedup.Options{KeyPrefix: freshPrefix(t, rdb), ClaimTTL: 200 * time.Millisecond})
	st, first, err := d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	time.Sleep(300 * time.Millisecond)
	st, _, err = d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimNew, st)
	require.NoError(t, d.Release(ctx, "ev1", first))
	st, _, err = d.Claim(ctx, "ev1")
	require.NoError(t, err)
	require.Equal(t, bankpay.ClaimInProgress, st, "delivery 2's claim was released by delivery 1")
}
