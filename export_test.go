package bankpay

// Test helpers shared with the external test package (bankpay_test), which
// the tests that use the bankpaytest sandbox live in.

import (
	"bytes"
	"sync"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of slog.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SyncBuffer is syncBuffer for the external test package (test builds only).
type SyncBuffer = syncBuffer

// IntPtr is intPtr for the external test package.
var IntPtr = intPtr

// TestCreds is testCreds for the external test package.
var TestCreds = testCreds
