package sign

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"hash"
	"strings"
	"sync"
	"sync/atomic"
)

// Keyed HMAC states are reused instead of being keyed anew for every
// signature: keying costs two hash blocks and several allocations, more
// than signing a short message.
//
// A state is only ever reused with the exact (algorithm, key) it was keyed
// with: the states live in one sync.Pool per (algorithm, key), found by
// comparing the full key. The pools belong to a MACCache that the key's
// owner holds (a Client, a webhook handler), never to the package: no key
// outlives its owner in package-level state. Beyond maxCachedKeys distinct
// keys in one cache, new keys are keyed afresh on every call and their
// states are dropped, so a cache never grows with the number of calls.

// maxCachedKeys bounds the keys whose states are pooled.
const maxCachedKeys = 16

// macState is one keyed HMAC with the buffers of one signature.
type macState struct {
	h       hash.Hash
	alg     Algorithm
	pool    *sync.Pool // nil when the key is not cached
	sum     []byte     // the raw HMAC
	out     []byte     // the prefixed Base64 signature
	scratch []byte     // a copy of the message or of a received signature
}

type macEntry struct {
	alg  Algorithm
	key  string
	pool *sync.Pool
}

// MACCache reuses keyed HMAC states for the keys of one owner. The zero
// value is ready to use; it must not be copied after first use. A nil
// *MACCache keys afresh on every call.
type MACCache struct {
	entries atomic.Pointer[[]macEntry] // copy on write
	mu      sync.Mutex                 // serializes writers
}

// Sign is the package-level Sign with the cache's keyed states.
func (c *MACCache) Sign(alg Algorithm, key, message string) string {
	m := c.get(alg, key)
	defer m.release()
	return string(m.sign(message))
}

// Verify is the package-level Verify with the cache's keyed states.
func (c *MACCache) Verify(key, message, sig string) bool {
	alg := SHA1
	if strings.HasPrefix(sig, SHA512Prefix) {
		alg = SHA512
	}
	m := c.get(alg, key)
	defer m.release()
	want := m.sign(message)
	// The received signature is copied to the state's memory, not
	// converted, so that the comparison allocates nothing.
	m.scratch = append(m.scratch[:0], sig...)
	return hmac.Equal(want, m.scratch)
}

func newMAC(alg Algorithm, key string) *macState {
	h := sha1.New
	if alg == SHA512 {
		h = sha512.New
	}
	return &macState{h: hmac.New(h, []byte(key)), alg: alg}
}

// get returns a state keyed with (alg, key), ready to sign. Call release
// when done with it and with the slices it returned.
func (c *MACCache) get(alg Algorithm, key string) *macState {
	if c == nil {
		return newMAC(alg, key)
	}
	p := c.pool(alg, key)
	if p == nil {
		return newMAC(alg, key)
	}
	m := p.Get().(*macState)
	m.pool = p
	return m
}

// macPool returns the pool of (alg, key), creating it while the cache has
// room; nil when it is full.
func (c *MACCache) pool(alg Algorithm, key string) *sync.Pool {
	if p := lookupMAC(c.entries.Load(), alg, key); p != nil {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.entries.Load()
	if p := lookupMAC(cur, alg, key); p != nil {
		return p
	}
	var entries []macEntry
	if cur != nil {
		entries = *cur
	}
	if len(entries) >= maxCachedKeys {
		return nil
	}
	p := &sync.Pool{New: func() any { return newMAC(alg, key) }}
	next := make([]macEntry, len(entries), len(entries)+1)
	copy(next, entries)
	next = append(next, macEntry{alg: alg, key: key, pool: p})
	c.entries.Store(&next)
	return p
}

func lookupMAC(entries *[]macEntry, alg Algorithm, key string) *sync.Pool {
	if entries == nil {
		return nil
	}
	for i := range *entries {
		if e := &(*entries)[i]; e.alg == alg && e.key == key {
			return e.pool
		}
	}
	return nil
}

// maxPooledScratch bounds the scratch buffer a pooled state keeps.
const maxPooledScratch = 64 << 10

// release returns the state to its pool (sign resets it before use).
func (m *macState) release() {
	if m.pool == nil {
		return
	}
	if cap(m.scratch) > maxPooledScratch {
		m.scratch = nil
	}
	p := m.pool
	m.pool = nil
	p.Put(m)
}

// sign returns the signature of message: the Base64 HMAC, prefixed for
// SHA512. The slice is the state's and valid until release.
func (m *macState) sign(message string) []byte {
	m.h.Reset()
	// hash.Hash has no WriteString: copy the message into the state's
	// scratch buffer rather than into a new []byte.
	m.scratch = append(m.scratch[:0], message...)
	m.h.Write(m.scratch)
	m.sum = m.h.Sum(m.sum[:0])
	m.out = m.out[:0]
	if m.alg == SHA512 {
		m.out = append(m.out, SHA512Prefix...)
	}
	m.out = base64.StdEncoding.AppendEncode(m.out, m.sum)
	return m.out
}
