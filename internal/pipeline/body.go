package pipeline

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrTooLarge is the cause of a body over its cap (ReadCapped). The root
// package names it errResponseTooLarge and wraps it in its errors.
var ErrTooLarge = errors.New("bankpay: response too large")

// bufPool holds the buffers responses are read into; maxPooledBuffer bounds
// what goes back, so that one huge response does not stay in memory.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxPooledBuffer = 256 << 10

// GetBuffer takes a buffer from the pool (PutBuffer gives it back).
func GetBuffer() *[]byte { return bufPool.Get().(*[]byte) }

// PutBuffer gives b back to the pool, unless it grew over maxPooledBuffer.
func PutBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		*b = (*b)[:0]
		bufPool.Put(b)
	}
}

// ReadCapped appends r to dst up to max bytes; more than that is
// ErrTooLarge. It reads no more than max+1 bytes.
func ReadCapped(dst []byte, r io.Reader, max int64) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)] // grow
		}
		room := dst[len(dst):cap(dst)]
		// Read at most max+1 bytes in all; written so that max+1 cannot
		// overflow when max is math.MaxInt64.
		if left := max - int64(len(dst)-start); left < int64(len(room)) {
			room = room[:left+1]
		}
		n, err := r.Read(room)
		dst = dst[:len(dst)+n]
		if int64(len(dst)-start) > max {
			return dst[:start+int(max)], fmt.Errorf("%w (over %d bytes)", ErrTooLarge, max)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
