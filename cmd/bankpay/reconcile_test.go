package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fake service whose money-moving calls are refused as repeats (400,
// code 210) and whose GET /transactions answers list (by startIndex).
func duplicateServer(t *testing.T, list func(start string) (int, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"errors":[{"code":210,"message":"duplicate merchantReference"}]}`))
			return
		}
		status, body := list(r.URL.Query().Get("startIndex"))
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRepeatIsAlreadyDone(t *testing.T) {
	dep := `{"transactionId":"D1","transactionType":6,"status":4,"originalTransactionId":"A1","merchantReference":"r1","amount":"5.00","currency":"USD"}`
	for _, tc := range []struct {
		name    string
		args    []string
		list    func(string) (int, string)
		code    int
		out     string
		errPart string
	}{
		{"found", []string{"deposit", "-ref", "r1", "A1"}, func(start string) (int, string) {
			if start == "0" {
				return 200, `{"transactions":[` + dep + `]}`
			}
			return 200, `{"transactions":[]}`
		}, exitDone, "D1", "already done"},
		{"several", []string{"deposit", "-ref", "r1", "A1"}, func(start string) (int, string) {
			if start == "0" {
				return 200, `{"transactions":[` + dep + `,` + `{"transactionId":"D2","transactionType":6,"status":4,"amount":"5.00","originalTransactionId":"A1","merchantReference":"r1"}]}`
			}
			return 200, `{"transactions":[]}`
		}, exitDone, "", "more than one transaction"},
		{"lookup cut short", []string{"refund", "-ref", "r1", "A1"}, func(string) (int, string) {
			return 401, `{"errors":[{"code":375,"message":"Access control error"}]}`
		}, exitIncomplete, "", "lookup incomplete"},
		{"no reference", []string{"refund", "A1"}, func(string) (int, string) {
			t.Error("a refund without a reference cannot be looked up: no list read")
			return 500, ""
		}, exitDone, "", "no merchantReference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := attackReviewRun(duplicateServer(t, tc.list), tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, "210")
			assert.Contains(t, errOut, tc.errPart)
			if tc.out != "" {
				assert.Regexp(t, `transactionId\s+`+tc.out, out)
			} else {
				assert.Empty(t, out)
			}
		})
	}
}

// Every command has a deadline: a deposit to a server that never answers
// ends at -timeout with "outcome unknown" (it may have been received).
func TestTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	start := time.Now()
	code, _, errOut := attackReviewRun(srv, "-timeout", "200ms", "deposit", "-ref", "r1", "A1")
	assert.Equal(t, exitUncertain, code, errOut)
	require.Less(t, time.Since(start), 30*time.Second)
	code, _, _ = attackReviewRun(srv, "-timeout", "-1s", "transactions", "get", "T1")
	assert.Equal(t, exitUsage, code)
}
