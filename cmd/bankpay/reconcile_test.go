package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fake service whose money-moving calls are refused as repeats (400,
// code 210), whose GET /transactions answers list (by startIndex) and whose
// GET /transactions/A1 and /transactions/C1 answer an authorization and a
// capture (the originals of the lookups).
func duplicateServer(t *testing.T, list func(start string) (int, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"errors":[{"code":210,"message":"duplicate merchantReference"}]}`))
			return
		}
		if typ, ok := map[string]int{"A1": 1, "C1": 3}[path.Base(r.URL.Path)]; ok && r.Method == http.MethodGet {
			_, _ = fmt.Fprintf(w, `{"transaction":{"transactionId":%q,"transactionType":%d,"status":4,"amount":"10.00"}}`, path.Base(r.URL.Path), typ)
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
		{"lookup cut short", []string{"refund", "-ref", "r1", "C1"}, func(string) (int, string) {
			return 401, `{"errors":[{"code":375,"message":"Access control error"}]}`
		}, exitIncomplete, "", "lookup incomplete"},
		{"no reference given: one is made", []string{"refund", "C1"}, func(start string) (int, string) {
			if start == "0" {
				return 200, `{"transactions":[` + strings.Replace(dep, `"r1"`, `"other"`, 1) + `]}`
			}
			return 200, `{"transactions":[]}`
		}, exitFailed, "", "no refund made from C1 carries merchantReference \"cli-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runAgainst(duplicateServer(t, tc.list), tc.args...)
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
	t.Parallel() // waits out a 200 ms timeout: beside the other waiting tests
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	start := time.Now()
	code, _, errOut := runAgainst(srv, "-timeout", "200ms", "deposit", "-ref", "r1", "A1")
	assert.Equal(t, exitUncertain, code, errOut)
	require.Less(t, time.Since(start), 30*time.Second)
	code, _, _ = runAgainst(srv, "-timeout", "-1s", "transactions", "get", "T1")
	assert.Equal(t, exitUsage, code)
}

// Every money-moving command has a reference when its answer is lost: one
// made and printed before anything is sent when -ref gives none, and exit
// 5's lookup names it (with the transaction the call was made against).
func TestMoneyCommandsAlwaysHaveAReference(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		lookup string // the lookup exit 5 prints, %s for the reference
	}{
		{[]string{"reclaim", "-amount", "1.00", "D1"}, "transactions find -original D1 -ref %s -type reclaim, and make the call again only if that exits 4"},
		{[]string{"refund", "-amount", "1.00", "C1"}, "transactions find -original C1 -ref %s -type refund, and make the call again only if that exits 4"},
		{[]string{"cancel", "T1"}, "transactions get T1, and if its status is Canceled (7), the cancel was made"},
		{[]string{"deposit", "-ref", "given-1", "-amount", "1.00", "A1"}, "transactions find -original A1 -ref %s -type deposit, and"},
		{[]string{"capture", "-ref", "given-2", "-amount", "1.00", "-split-token", "tok", "A1"}, "transactions find -original A1 -ref %s -type capture, and"},
	} {
		var sent []string
		var printedFirst bool
		var errOut strings.Builder
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			printedFirst = strings.Contains(errOut.String(), "merchantReference is ")
			form, _ := url.ParseQuery(string(body))
			var doc struct {
				MerchantReference string `json:"merchantReference"`
			}
			if json.Unmarshal(body, &doc) != nil {
				doc.MerchantReference = form.Get("merchantReference")
			}
			sent = append(sent, doc.MerchantReference)
			w.WriteHeader(http.StatusBadGateway) // the answer is lost
		}))
		vars := map[string]string{"BANKPAY_ACCESS_ID": "id", "BANKPAY_ACCESS_KEY": "secretkey0123456789", "BANKPAY_MERCHANT_ID": "m", "BANKPAY_BASE_URL": srv.URL}
		e := &env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut}
		code := run(context.Background(), tc.args, e)
		srv.Close()
		assert.Equal(t, exitUncertain, code, "%v: %s", tc.args, errOut.String())
		require.Len(t, sent, 1, "%v: sent once", tc.args)
		ref := sent[0]
		require.NotEmpty(t, ref, "%v: sent with a reference", tc.args)
		if !slices.Contains(tc.args, "-ref") {
			assert.True(t, printedFirst, "%v: the reference is printed before the request is sent", tc.args)
			assert.Contains(t, errOut.String(), "no -ref given: its merchantReference is "+ref, tc.args)
		}
		assert.Contains(t, errOut.String(), "look it up with bankpay "+strings.ReplaceAll(tc.lookup, "%s", ref), tc.args)
	}
}

// TestAttack_LookupCommandQuoted: exit 5 prints a command to paste; a
// reference with a space or shell characters (the SDK allows them) was
// printed bare: pasted, "-ref order 42; touch x" looks up "order" and runs
// what follows.
func TestAttack_LookupCommandQuoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	vars := map[string]string{"BANKPAY_ACCESS_ID": "id", "BANKPAY_ACCESS_KEY": "secretkey0123456789", "BANKPAY_MERCHANT_ID": "m", "BANKPAY_BASE_URL": srv.URL}
	var errOut strings.Builder
	e := &env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut}
	code := run(context.Background(), []string{"deposit", "-ref", "order 42; touch x's", "-amount", "1.00", "A1"}, e)
	require.Equal(t, exitUncertain, code, errOut.String())
	assert.Contains(t, errOut.String(), `-ref 'order 42; touch x'\''s'`, errOut.String())
}
