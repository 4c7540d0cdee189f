package sign

import (
	"crypto/sha1"
	"crypto/sha512"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPooledStatesNeverCrossKeys signs and verifies from many goroutines
// with more keys than the cache holds (so both the pooled and the unpooled
// paths run), keys that share prefixes and differ only in length, and both
// algorithms, and checks every signature against an HMAC keyed afresh.
func TestPooledStatesNeverCrossKeys(t *testing.T) {
	var keys []string
	for i := 0; i < maxCachedKeys+8; i++ {
		keys = append(keys, fmt.Sprintf("key-%d", i))
	}
	keys = append(keys, "k", "kk", "k\x00", strings.Repeat("long-key-", 40)) // longer than a block: hashed first
	msgs := []string{"", "a=1", strings.Repeat("accessId=A&merchantId=M&amount=10.00&", 200)}

	var cache MACCache // shared by every goroutine, as a Client's is
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				key := keys[(g*7+i)%len(keys)]
				msg := msgs[i%len(msgs)]
				alg := Algorithm((g + i) % 2)
				want := mac(sha1.New, key, msg)
				if alg == SHA512 {
					want = SHA512Prefix + mac(sha512.New, key, msg)
				}
				if got := cache.Sign(alg, key, msg); got != want {
					errs <- fmt.Sprintf("Sign(%v, %q, len %d) = %s, want %s", alg, key, len(msg), got, want)
					return
				}
				if !cache.Verify(key, msg, want) || !Verify(key, msg, want) {
					errs <- fmt.Sprintf("Verify(%q) rejected its own signature", key)
					return
				}
				other := keys[(g*7+i+1)%len(keys)]
				if cache.Verify(other, msg, want) {
					errs <- fmt.Sprintf("Verify(%q) accepted the signature of %q", other, key)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		assert.Fail(t, e)
	}
	n := len(*cache.entries.Load())
	assert.LessOrEqual(t, n, maxCachedKeys, "cache holds %d keys, more than %d", n, maxCachedKeys)
}

// TestVerifyRejectsNearMisses checks that Verify compares the whole
// signature: a truncated, extended or one-character-off signature, the
// other algorithm's signature, and an empty one all fail.
func TestVerifyRejectsNearMisses(t *testing.T) {
	const key, msg = "near-miss-key", "accessId=A&amount=1.00"
	good := Sign(SHA1, key, msg)
	flip := []byte(good)
	flip[3] ^= 1
	for _, sig := range []string{good[:len(good)-1], good + "=", string(flip), "", SHA512Prefix + good,
		Sign(SHA512, key, msg)[len(SHA512Prefix):]} {
		assert.False(t, Verify(key, msg, sig), "Verify accepted %q", sig)
	}
	assert.True(t, Verify(key, msg, good), "Verify rejected a good signature")
	assert.True(t, Verify(key, msg, Sign(SHA512, key, msg)), "Verify rejected a good signature")
}

// TestNilCacheKeysAfresh checks that the package-level functions keep no
// state: a nil cache signs correctly and pools nothing.
func TestNilCacheKeysAfresh(t *testing.T) {
	var c *MACCache
	got, want := c.Sign(SHA1, "k", "m"), mac(sha1.New, "k", "m")
	require.Equal(t, want, got, "nil cache Sign = %s, want %s", got, want)
	m := c.get(SHA1, "k")
	require.Nil(t, m.pool, "a nil cache handed out a pooled state")
	m.release()
}
