package bankpay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fault table: every call of the SDK against every fault of the
// faultinject harness, over real loopback connections, asserting how many
// requests reached the server and what the caller got. Set
// BANKPAY_FAULTS_REPORT=file to write the table of outcomes as markdown.

// faultCall is one SDK call the table exercises.
type faultCall struct {
	name string
	// mutates marks a state-changing call: by default it must never reach
	// the server twice.
	mutates bool
	// idempotent marks a state-changing call sent with an Idempotency-Key:
	// retried by default, always with the same key.
	idempotent bool
	// keyed marks a call the service can recognize when it comes again
	// (merchantReference or Idempotency-Key): WithRetryNonIdempotent
	// applies to it only.
	keyed bool
	// readsBody is false for a call that does not read a 2xx body.
	readsBody bool
	okBody    string
	do        func(ctx context.Context, c *Client, opts ...Option) error
}

const faultTxn = `{"transaction":{"transactionId":"1002600000000001","transactionType":6,"status":2,"amount":"1.00"}}`

// faultCalls are the calls of the endpoints table (endpoints_test.go).
var faultCalls = func() []faultCall {
	var calls []faultCall
	for _, ep := range endpoints() {
		calls = append(calls, faultCall{ep.name, ep.mutates(), ep.idempotent, ep.keyed(), ep.readsBody, ep.answer("1002600000000001"),
			func(ctx context.Context, c *Client, o ...Option) error {
				return ep.call(ctx, c, "1002600000000001", o...)
			}})
	}
	return calls
}()

// faultSlice is the default slice of faultCalls: the first call of each
// kind (state-changing or not, idempotent, keyed, reading its body), so
// every column and expectation of the table is exercised. The full table
// runs with BANKPAY_FAULT_MATRIX=1 (fullFaultMatrix).
func faultSlice(calls []faultCall) []faultCall {
	if fullFaultMatrix() {
		return calls
	}
	type kind struct{ mutates, idempotent, keyed, readsBody bool }
	seen := map[kind]bool{}
	var out []faultCall
	for _, c := range calls {
		k := kind{c.mutates, c.idempotent, c.keyed, c.readsBody}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func intPtr(n int) *int { return &n }

// Modes of a cell: a state-changing call with default settings, the same
// with the per-call opt-in, and a read.
const (
	modeDefault = "state-changing, default"
	modeOptIn   = "state-changing, opt-in"
	modeRead    = "read"
	// modeIdempotent: a state-changing call with an Idempotency-Key, with
	// default settings; it behaves as one opted in.
	modeIdempotent = "state-changing, idempotent"
	// The middleware column: the two modes of a state-changing call
	// with a retrying middleware (retryingMiddlewares) in WithTransport.
	// The guard below it must keep every cell to the sends of the same
	// cell without the middleware.
	modeDefaultMW = "state-changing, default, middleware "
	modeOptInMW   = "state-changing, opt-in, middleware "
)

// middlewareMode is the mode of a middleware cell, and its base mode.
func middlewareMode(mode string, mw middleware) string { return mode + mw.name }

// baseMode is the mode of mode's cell without middleware, and the middleware.
func baseMode(mode string) (string, *middleware) {
	for _, mw := range retryingMiddlewares {
		switch mode {
		case modeDefaultMW + mw.name:
			return modeDefault, &mw
		case modeOptInMW + mw.name:
			return modeOptIn, &mw
		}
	}
	return mode, nil
}

// want is the expected result of a cell.
type want struct {
	reached int
	check   func(err error) error // nil error: as expected
	waits   []time.Duration       // exact fake-clock waits, when not nil
}

type faultScenario struct {
	name   string
	script []faultinject.Action // the call's 200 response follows
	// always replaces the 200 response after the script.
	always     *faultinject.Action
	refuse     int
	timeout    time.Duration // the http.Client's; 10s when zero
	ctxTimeout time.Duration
	opts       []Option
	// brokenBody: the 2xx response is broken; a call that does not read
	// 2xx bodies succeeds after one request.
	brokenBody          bool
	def, optIn, read    want
	sameBodiesOnRetries bool
}

// waits reports whether sc's cells wait out a timeout (no response until
// the client's or the context's deadline): time, not CPU.
func (sc faultScenario) waits() bool { return sc.timeout > 0 || sc.ctxTimeout > 0 }

func succeeded(n int) want { return want{reached: n, check: isNil} }

func isNil(err error) error {
	if err != nil {
		return fmt.Errorf("want success, got %v", err)
	}
	return nil
}

// netErr wants a *NetworkError with the given Sent that matches every target.
func netErr(n int, sent bool, targets ...error) want {
	return want{reached: n, check: func(err error) error {
		var ne *NetworkError
		if !errors.As(err, &ne) || ne.Sent != sent {
			return fmt.Errorf("want *NetworkError with Sent=%v, got %T %v", sent, err, err)
		}
		for _, t := range targets {
			if !errors.Is(err, t) {
				return fmt.Errorf("%v does not match %v", err, t)
			}
		}
		return nil
	}}
}

// timedOut wants a *NetworkError whose cause is a timeout.
func timedOut(n int) want {
	return want{reached: n, check: func(err error) error {
		var ne *NetworkError
		var te interface{ Timeout() bool }
		if !errors.As(err, &ne) || !ne.Sent || !errors.As(err, &te) || !te.Timeout() {
			return fmt.Errorf("want a sent *NetworkError timing out, got %T %v", err, err)
		}
		return nil
	}}
}

// apiErr wants an *APIError with status that matches every target, after
// as many attempts as requests reached the server.
func apiErr(n, status int, targets ...error) want { return apiErrAfter(n, n, status, targets...) }

// apiErrAfter is apiErr when the retry layer made fewer attempts than
// requests reached the server: net/http replays an idempotent request (a GET)
// by itself when a reused connection fails, and the retry layer does not see it.
func apiErrAfter(n, attempts, status int, targets ...error) want {
	return want{reached: n, check: func(err error) error {
		var e *APIError
		if !errors.As(err, &e) || e.StatusCode != status {
			return fmt.Errorf("want *APIError %d, got %T %v", status, err, err)
		}
		if e.Attempts != attempts {
			return fmt.Errorf("Attempts = %d, want %d", e.Attempts, attempts)
		}
		for _, t := range targets {
			if !errors.Is(err, t) {
				return fmt.Errorf("%v does not match %v", err, t)
			}
		}
		return nil
	}}
}

// lookupIncomplete wants what w wants, of an error that matches
// ErrIncomplete and not ErrNotFound.
func lookupIncomplete(w want) want {
	check := w.check
	w.check = func(err error) error {
		if !errors.Is(err, ErrIncomplete) || errors.Is(err, ErrNotFound) {
			return fmt.Errorf("want ErrIncomplete, not ErrNotFound, got %T %v", err, err)
		}
		return check(err)
	}
	return w
}

// respErr wants a *ResponseError matching every target.
func respErr(n int, targets ...error) want {
	return want{reached: n, check: func(err error) error {
		var e *ResponseError
		if !errors.As(err, &e) {
			return fmt.Errorf("want *ResponseError, got %T %v", err, err)
		}
		for _, t := range targets {
			if !errors.Is(err, t) {
				return fmt.Errorf("%v does not match %v", err, t)
			}
		}
		return nil
	}}
}

// and adds a check to w.
func (w want) and(check func(err error) error) want {
	prev := w.check
	w.check = func(err error) error {
		if e := prev(err); e != nil {
			return e
		}
		return check(err)
	}
	return w
}

func (w want) waiting(d ...time.Duration) want {
	w.waits = append([]time.Duration{}, d...)
	return w
}

func retryAfterIs(d time.Duration) func(error) error {
	return func(err error) error {
		var e *APIError
		if errors.As(err, &e) && e.RetryAfter != d {
			return fmt.Errorf("RetryAfter = %v, want %v", e.RetryAfter, d)
		}
		return nil
	}
}

func attemptsAre(n int) func(error) error {
	return func(err error) error {
		var ne *NetworkError
		if errors.As(err, &ne) && ne.Attempts != n {
			return fmt.Errorf("Attempts = %d, want %d", ne.Attempts, n)
		}
		return nil
	}
}

func bodyExcerptCapped(err error) error {
	var e *APIError
	if errors.As(err, &e) && (e.Body == "" || len(e.Body) > maxExcerpt+len("…")) {
		return fmt.Errorf("Body excerpt of %d bytes, want 1 to %d", len(e.Body), maxExcerpt+3)
	}
	return nil
}

const (
	errorJSON     = `{"errors":[{"domain":"com.bankpay","code":100,"message":"Internal error"}]}`
	duplicateJSON = `{"errors":[{"domain":"com.bankpay","code":210,"message":"duplicate request"}]}`
)

func faultScenarios() []faultScenario {
	day := 24 * time.Hour
	always503 := faultinject.Respond(503, errorJSON)
	ok := succeeded
	var out []faultScenario
	out = append(out,
		faultScenario{name: "connection refused once", refuse: 1,
			def: ok(1), optIn: ok(1), read: ok(1)},
		faultScenario{name: "connection refused every time", refuse: 100,
			def:   netErr(0, false, syscall.ECONNREFUSED).and(attemptsAre(4)),
			optIn: netErr(0, false, syscall.ECONNREFUSED).and(attemptsAre(4)),
			read:  netErr(0, false, syscall.ECONNREFUSED).and(attemptsAre(4))},
		faultScenario{name: "reset before the request is read", script: []faultinject.Action{faultinject.ResetOnAccept()},
			def: netErr(0, true), optIn: ok(1), read: ok(1)},
		faultScenario{name: "reset after the request, before the response", script: []faultinject.Action{faultinject.ResetAfterRequest()},
			def: netErr(1, true), optIn: ok(2), read: ok(2)},
		faultScenario{name: "response is not HTTP", script: []faultinject.Action{faultinject.Garbage("SSH-2.0-OpenSSH_9.6\r\n\r\n")},
			def: netErr(1, true), optIn: ok(2), read: ok(2)},
		faultScenario{name: "no response within the client timeout", script: []faultinject.Action{faultinject.Hang()}, timeout: time.Second,
			def: timedOut(1), optIn: ok(2), read: ok(2)},
		faultScenario{name: "no response within the context deadline", script: []faultinject.Action{faultinject.Hang()}, ctxTimeout: 500 * time.Millisecond,
			def:   netErr(1, true, context.DeadlineExceeded),
			optIn: netErr(1, true, context.DeadlineExceeded),
			read:  netErr(1, true, context.DeadlineExceeded)},
		faultScenario{name: "429 without Retry-After", script: []faultinject.Action{faultinject.Respond(429, `{"errors":[{"code":100,"message":"slow down"}]}`)},
			def: apiErr(1, 429, ErrRateLimited), optIn: ok(2), read: ok(2)},
		faultScenario{name: "429 with Retry-After: 2", script: []faultinject.Action{faultinject.Respond(429, `{}`, "Retry-After", "2")},
			def:   apiErr(1, 429, ErrRateLimited).and(retryAfterIs(2 * time.Second)),
			optIn: ok(2).waiting(2 * time.Second), read: ok(2).waiting(2 * time.Second)},
		faultScenario{name: "503 with Retry-After: 86400 (a day)", script: []faultinject.Action{faultinject.Respond(503, errorJSON, "Retry-After", "86400")},
			def:   apiErr(1, 503, ErrServer).and(retryAfterIs(day)).waiting(),
			optIn: apiErr(1, 503, ErrServer).and(retryAfterIs(day)).waiting(),
			read:  apiErr(1, 503, ErrServer).and(retryAfterIs(day)).waiting()},
		faultScenario{name: "503 with Retry-After: an HTTP date two days ahead",
			script: []faultinject.Action{faultinject.Respond(503, errorJSON, "Retry-After", time.Now().Add(48*time.Hour).UTC().Format(http.TimeFormat))},
			def:    apiErr(1, 503, ErrServer).waiting(), optIn: apiErr(1, 503, ErrServer).waiting(), read: apiErr(1, 503, ErrServer).waiting()},
		faultScenario{name: "429 with Retry-After: 99999999999999999999 (overflow)", script: []faultinject.Action{faultinject.Respond(429, `{}`, "Retry-After", "99999999999999999999")},
			def: apiErr(1, 429).waiting(), optIn: apiErr(1, 429).waiting(), read: apiErr(1, 429).waiting()},
	)
	for _, st := range []int{500, 502, 503, 504} {
		out = append(out, faultScenario{name: fmt.Sprintf("%d without Retry-After", st), script: []faultinject.Action{faultinject.Respond(st, errorJSON)},
			def: apiErr(1, st, ErrServer), optIn: ok(2), read: ok(2)})
	}
	out = append(out,
		faultScenario{name: "503 on every attempt", always: &always503,
			def: apiErr(1, 503, ErrServer), optIn: apiErr(4, 503, ErrServer), read: apiErr(4, 503, ErrServer)},
		faultScenario{name: "502 with an HTML body", script: []faultinject.Action{faultinject.Respond(502, "<html><body>Bad Gateway</body></html>", "Content-Type", "text/html")},
			def: apiErr(1, 502, ErrServer).and(bodyExcerptCapped), optIn: ok(2), read: ok(2)},
		faultScenario{name: "500 with a 4 GiB body", script: []faultinject.Action{faultinject.Huge(500, 4<<30)},
			def: apiErr(1, 500, ErrServer).and(bodyExcerptCapped), optIn: ok(2), read: ok(2)},
		faultScenario{name: "200 reset mid-response", script: []faultinject.Action{faultinject.ResetMidResponse(200, faultTxn, 12)}, brokenBody: true,
			def: respErr(1, ErrInvalidResponse), optIn: respErr(1, ErrInvalidResponse), read: ok(2)},
		faultScenario{name: "200 truncated (Content-Length longer than the body)", script: []faultinject.Action{faultinject.Truncate(200, faultTxn, 12)}, brokenBody: true,
			def: respErr(1, ErrInvalidResponse), optIn: respErr(1, ErrInvalidResponse), read: ok(2)},
		faultScenario{name: "200 with a non-JSON body", script: []faultinject.Action{faultinject.Respond(200, "<html>maintenance</html>", "Content-Type", "text/html")}, brokenBody: true,
			def: respErr(1, ErrInvalidResponse), optIn: respErr(1, ErrInvalidResponse), read: respErr(1, ErrInvalidResponse)},
		faultScenario{name: "200 with an empty body", script: []faultinject.Action{faultinject.Respond(200, "")}, brokenBody: true,
			def: respErr(1, ErrInvalidResponse), optIn: respErr(1, ErrInvalidResponse), read: respErr(1, ErrInvalidResponse)},
		faultScenario{name: "200 with a 4 GiB body (cap 1 MiB)", script: []faultinject.Action{faultinject.Huge(200, 4<<30)}, brokenBody: true,
			opts: []Option{withMaxResponseBytes(1 << 20)},
			def:  respErr(1, errResponseTooLarge), optIn: respErr(1, errResponseTooLarge), read: respErr(1, errResponseTooLarge)},
		faultScenario{name: "200 with an endless chunked body (cap 1 MiB)", script: []faultinject.Action{faultinject.Huge(200, -1)}, brokenBody: true,
			opts: []Option{withMaxResponseBytes(1 << 20)},
			def:  respErr(1, errResponseTooLarge), optIn: respErr(1, errResponseTooLarge), read: respErr(1, errResponseTooLarge)},
		faultScenario{name: "400 duplicate (code 210)", script: []faultinject.Action{faultinject.Respond(400, duplicateJSON)},
			def: apiErr(1, 400, ErrDuplicate), optIn: apiErr(1, 400, ErrDuplicate), read: apiErr(1, 400, ErrDuplicate)},
		faultScenario{name: "response lost, then 400 duplicate (code 210)", script: []faultinject.Action{faultinject.ResetAfterRequest(), faultinject.Respond(400, duplicateJSON)},
			sameBodiesOnRetries: true,
			def:                 netErr(1, true), optIn: apiErr(2, 400, ErrDuplicate), read: apiErr(2, 400, ErrDuplicate)},
		faultScenario{name: "500, then response lost, then 400 duplicate", script: []faultinject.Action{faultinject.Respond(500, errorJSON), faultinject.ResetAfterRequest(), faultinject.Respond(400, duplicateJSON)},
			sameBodiesOnRetries: true,
			def:                 apiErr(1, 500, ErrServer), optIn: apiErr(3, 400, ErrDuplicate), read: apiErrAfter(3, 2, 400, ErrDuplicate)},
		faultScenario{name: "404", script: []faultinject.Action{faultinject.Respond(404, `{"errors":[{"code":200,"message":"not found"}]}`)},
			def: apiErr(1, 404, ErrNotFound), optIn: apiErr(1, 404, ErrNotFound), read: apiErr(1, 404, ErrNotFound)},
		faultScenario{name: "401 (code 375)", script: []faultinject.Action{faultinject.Respond(401, `{"errors":[{"code":375,"message":"access control"}]}`)},
			def: apiErr(1, 401, ErrUnauthorized), optIn: apiErr(1, 401, ErrUnauthorized), read: apiErr(1, 401, ErrUnauthorized)},
	)
	return out
}

// cellResult is what one call did in one scenario.
type cellResult struct {
	scenario, call, mode string
	reached              int
	received             []faultinject.Received
	err                  error
	waits                []time.Duration
	problems             []string
}

func runFaultCell(sc faultScenario, call faultCall, mode string) cellResult {
	res := cellResult{scenario: sc.name, call: call.name, mode: mode}
	okResponse := faultinject.Respond(200, call.okBody)
	s := faultinject.NewServer(nil, sc.script...)
	defer s.Close()
	if sc.always != nil {
		s.SetFallback(*sc.always)
	} else {
		s.SetFallback(okResponse)
	}
	s.RefuseNext(sc.refuse)
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	timeout := sc.timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	opts := append([]Option{WithBaseURL(s.URL + "/api/v1"), WithHTTPClient(&http.Client{Transport: tr, Timeout: timeout})}, sc.opts...)
	mode, mw := baseMode(mode)
	if mw != nil {
		opts = append(opts, WithTransport(mw.wrap))
	}
	c, err := NewClient(testCreds, opts...)
	if err != nil {
		res.problems = append(res.problems, err.Error())
		return res
	}
	w := &waits{}
	c.cfg.waitScale = w.record
	ctx := context.Background()
	if sc.ctxTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sc.ctxTimeout)
		defer cancel()
	}
	var callOpts []Option
	if mode == modeOptIn {
		callOpts = append(callOpts, WithRetryNonIdempotent())
	}
	res.err = call.do(ctx, c, callOpts...)
	res.reached, res.received, res.waits = s.Requests(), s.Received(), w.list
	return res
}

func (sc faultScenario) expectation(call faultCall, mode string) want {
	if base, mw := baseMode(mode); mw != nil {
		return sc.middlewareExpectation(call, base)
	}
	// A lookup whose list page is answered 404 could not read the list: it
	// is ErrIncomplete, never ErrNotFound ("not made, pay again").
	if (call.name == "Transactions.FindByMerchantReference" || call.name == "Transactions.FindAuthorization") && sc.name == "404" {
		return lookupIncomplete(apiErr(1, 404))
	}
	if sc.brokenBody && !call.readsBody {
		return succeeded(1)
	}
	// A 2xx response cut short is retried as for a read: the same key
	// gets the first response again.
	if sc.brokenBody && mode == modeIdempotent {
		return sc.read
	}
	switch mode {
	case modeDefault:
		return sc.def
	case modeOptIn, modeIdempotent:
		if !call.keyed {
			return sc.def // the opt-in does not apply to a keyless call
		}
		return sc.optIn
	}
	return sc.read
}

// middlewareExpectation is what a cell with a retrying middleware must
// get: as many sends as without it (the guard refuses the middleware's),
// no success where the cell without it fails (a success would have needed
// a second send), and never Sent false where the cell without it is not.
// The outcome may differ otherwise: the middleware turns a 5xx it retried
// into the guard's refusal (a *NetworkError, Sent true).
func (sc faultScenario) middlewareExpectation(call faultCall, base string) want {
	w := sc.expectation(call, base)
	return want{reached: w.reached, check: func(err error) error {
		if err == nil {
			if w.check(nil) != nil {
				return fmt.Errorf("success behind the middleware, but %v without it", w.check(nil))
			}
			return nil
		}
		var ne *NetworkError
		if errors.As(err, &ne) && !ne.Sent && w.check(err) != nil {
			return fmt.Errorf("Sent=false behind the middleware (%v), but without it: %v", err, w.check(err))
		}
		return nil
	}}
}

func (r *cellResult) judge(sc faultScenario, call faultCall, w want) {
	if r.reached != w.reached {
		r.problems = append(r.problems, fmt.Sprintf("%d requests reached the server, want %d", r.reached, w.reached))
	}
	if err := w.check(r.err); err != nil {
		r.problems = append(r.problems, err.Error())
	}
	if w.waits != nil && !equalDurations(r.waits, w.waits) {
		r.problems = append(r.problems, fmt.Sprintf("waits %v, want %v", r.waits, w.waits))
	}
	// The headline property, whatever the table says.
	if base, _ := baseMode(r.mode); base == modeDefault && r.reached > 1 {
		r.problems = append(r.problems, "a state-changing request reached the server twice with default settings")
	}
	if r.mode == modeIdempotent {
		for i := 1; i < len(r.received); i++ {
			if k := r.received[i].Header.Get("Idempotency-Key"); k == "" || k != r.received[0].Header.Get("Idempotency-Key") {
				r.problems = append(r.problems, fmt.Sprintf("retry %d sent Idempotency-Key %q, first %q", i, k, r.received[0].Header.Get("Idempotency-Key")))
			}
		}
	}
	if r.mode != modeRead && sc.sameBodiesOnRetries {
		for i := 1; i < len(r.received); i++ {
			if !bytes.Equal(r.received[i].Body, r.received[0].Body) {
				r.problems = append(r.problems, fmt.Sprintf("retry %d sent a different body:\n%s\nfirst:\n%s", i, r.received[i].Body, r.received[0].Body))
			}
		}
	}
	if r.err != nil {
		assertNoSecretIn(&r.problems, r.err.Error())
	}
	_ = call
}

func assertNoSecretIn(problems *[]string, s string) {
	for _, secret := range []string{testCreds.AccessKey.Reveal(), "1000000006", "124003116"} {
		if strings.Contains(s, secret) {
			*problems = append(*problems, fmt.Sprintf("error %q shows a secret", s))
		}
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultTable(t *testing.T) {
	t.Parallel() // every cell on servers of its own: beside the other long tests
	scenarios := faultScenarios()
	results := runFaultCells(scenarios)
	var all []cellResult
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for _, r := range results[i] {
				for _, p := range r.problems {
					assert.Failf(t, p, "%s (%s)", r.call, r.mode)
				}
			}
		})
		all = append(all, results[i]...)
	}
	if path := os.Getenv("BANKPAY_FAULTS_REPORT"); path != "" {
		assert.NoError(t, os.WriteFile(path, []byte(faultReport(all)), 0o644))
	}
}

// runFaultCells runs the cells of every scenario, each call of faultSlice
// in each of its modes, and returns their judged results by scenario. They
// run eight at a time, beside up to 32 cells that wait out a timeout (no
// response): waiting costs no CPU and is most of their time, which the
// other scenarios' cells use meanwhile.
func runFaultCells(scenarios []faultScenario) [][]cellResult {
	type cell struct {
		call faultCall
		mode string
	}
	var cells []cell
	for _, call := range faultSlice(faultCalls) {
		if call.idempotent {
			cells = append(cells, cell{call, modeIdempotent})
		} else if call.mutates {
			cells = append(cells, cell{call, modeDefault}, cell{call, modeOptIn})
			for _, mw := range retryingMiddlewares {
				cells = append(cells, cell{call, middlewareMode(modeDefaultMW, mw)}, cell{call, middlewareMode(modeOptInMW, mw)})
			}
		} else {
			cells = append(cells, cell{call, modeRead})
		}
	}
	results := make([][]cellResult, len(scenarios))
	busy, idle := make(chan struct{}, 8), make(chan struct{}, 32)
	var wg sync.WaitGroup
	// The waiting scenarios first, so that they wait beside all the others.
	order := make([]int, 0, len(scenarios))
	for _, waitingFirst := range []bool{true, false} {
		for i, sc := range scenarios {
			if sc.waits() == waitingFirst {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		sc := scenarios[i]
		results[i] = make([]cellResult, len(cells))
		sem := busy
		if sc.waits() {
			sem = idle
		}
		for j, ce := range cells {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				r := runFaultCell(sc, ce.call, ce.mode)
				r.judge(sc, ce.call, sc.expectation(ce.call, ce.mode))
				results[i][j] = r
			}()
		}
	}
	wg.Wait()
	return results
}

// outcome describes what a caller got, for the report.
func outcome(err error) string {
	if err == nil {
		return "success"
	}
	var (
		ae *APIError
		ne *NetworkError
		re *ResponseError
	)
	switch {
	case errors.As(err, &ae):
		s := fmt.Sprintf("*APIError %d", ae.StatusCode)
		for _, m := range []struct {
			e    error
			name string
		}{{ErrDuplicate, "ErrDuplicate"}, {ErrRateLimited, "ErrRateLimited"}, {ErrNotFound, "ErrNotFound"}, {ErrUnauthorized, "ErrUnauthorized"}, {ErrServer, "ErrServer"}} {
			if errors.Is(err, m.e) {
				s += " " + m.name
				break
			}
		}
		if ae.RetryAfter > 0 {
			s += fmt.Sprintf(", RetryAfter %v", ae.RetryAfter.Round(time.Minute))
		}
		return s
	case errors.As(err, &ne):
		s := fmt.Sprintf("*NetworkError Sent=%v", ne.Sent)
		var te interface{ Timeout() bool }
		switch {
		case strings.Contains(err.Error(), "Client.Timeout"):
			s += " (client timeout)"
		case errors.Is(err, context.DeadlineExceeded):
			s += " (context deadline)"
		case errors.As(err, &te) && te.Timeout():
			s += " (timeout)"
		case errors.Is(err, syscall.ECONNREFUSED):
			s += " (connection refused)"
		}
		return s
	case errors.As(err, &re):
		if errors.Is(err, errResponseTooLarge) {
			return "*ResponseError errResponseTooLarge"
		}
		return "*ResponseError ErrInvalidResponse"
	}
	return fmt.Sprintf("%T", err)
}

// faultReport merges the cells of a scenario and mode that got the same
// result into one row.
func faultReport(all []cellResult) string {
	type key struct{ scenario, mode, outcome string }
	type row struct{ calls []string }
	rows := map[key]*row{}
	var order []key
	for _, r := range all {
		k := key{r.scenario, r.mode, fmt.Sprintf("%d|%s", r.reached, outcome(r.err))}
		if rows[k] == nil {
			rows[k] = &row{}
			order = append(order, k)
		}
		rows[k].calls = append(rows[k].calls, r.call)
	}
	var b strings.Builder
	b.WriteString("| scenario | mode | calls | requests that reached the server (each call) | outcome |\n|---|---|---|---|---|\n")
	for _, k := range order {
		reached, what, _ := strings.Cut(k.outcome, "|")
		calls := rows[k].calls
		sort.Strings(calls)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", k.scenario, k.mode, strings.Join(calls, ", "), reached, what)
	}
	return b.String()
}

// TestRetryAfterBeyondContextDeadlineIsNotAwaited: a Retry-After under the
// cap but longer than what is left of the caller's context is not waited
// for; the caller gets the response's *APIError at once.
func TestRetryAfterBeyondContextDeadlineIsNotAwaited(t *testing.T) {
	s := faultinject.NewServer(nil, faultinject.Respond(503, errorJSON, "Retry-After", "20"))
	defer s.Close()
	s.SetFallback(faultinject.Respond(200, faultTxn))
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr, Timeout: 10 * time.Second}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.Transactions.Get(ctx, "1002600000000001")
	var e *APIError
	require.ErrorAs(t, err, &e, "err = %v, want the 503 *APIError with its Retry-After", err)
	require.Equal(t, 503, e.StatusCode, "err = %v, want the 503 *APIError with its Retry-After", err)
	require.Equal(t, 20*time.Second, e.RetryAfter, "err = %v, want the 503 *APIError with its Retry-After", err)
	d := time.Since(start)
	assert.LessOrEqual(t, d, time.Second, "took %v: waited for a retry the context could not afford", d)
	assert.Equal(t, 1, s.Requests(), "requests = %d", s.Requests())
}

// TestMaxResponseBytesWithoutLimit: the largest cap there is still reads
// responses (max+1 must not overflow).
func TestMaxResponseBytesWithoutLimit(t *testing.T) {
	s := faultinject.NewServer(nil, faultinject.Respond(200, faultTxn))
	defer s.Close()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr}), withMaxResponseBytes(math.MaxInt64))
	require.NoError(t, err)
	txn, err := c.Transactions.Get(context.Background(), "1002600000000001")
	require.NoError(t, err, "%+v, %v", txn, err)
	require.Equal(t, "1002600000000001", txn.TransactionID, "%+v, %v", txn, err)
	for _, max := range []int64{1, 5, 4 << 10, math.MaxInt64} {
		got, err := pipeline.ReadCapped(nil, strings.NewReader("hello"), max)
		if max < 5 {
			assert.ErrorIs(t, err, errResponseTooLarge, "max %d: %q, %v", max, got, err)
			assert.Equal(t, max, int64(len(got)), "max %d: %q, %v", max, got, err)
		} else {
			assert.NoError(t, err, "max %d: %q, %v", max, got, err)
			assert.Equal(t, "hello", string(got), "max %d: %q, %v", max, got, err)
		}
	}
}

// TestTotalTimeIsBounded: a server that never responses costs at most
// (retries+1) client timeouts plus the backoffs, or the context's deadline.
func TestTotalTimeIsBounded(t *testing.T) {
	t.Parallel() // waits for real timeouts: beside the other waiting tests
	s := faultinject.NewServer(nil)
	defer s.Close()
	s.SetFallback(faultinject.Hang())
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond),
		WithHTTPClient(&http.Client{Transport: tr, Timeout: 100 * time.Millisecond}))
	require.NoError(t, err)
	start := time.Now()
	_, err = c.Transactions.Get(context.Background(), "1")
	d := time.Since(start)
	var ne *NetworkError
	require.ErrorAs(t, err, &ne, "err = %v, requests %d", err, s.Requests())
	require.Equal(t, defaultMaxRetries+1, ne.Attempts, "err = %v, requests %d", err, s.Requests())
	// Each attempt is sent; on a loaded machine one whose 100 ms run out
	// before its request reached the server is still an attempt, so the
	// server may have seen fewer.
	require.Positive(t, s.Requests(), "err = %v", err)
	require.LessOrEqual(t, s.Requests(), defaultMaxRetries+1, "err = %v, requests %d", err, s.Requests())
	assert.GreaterOrEqual(t, d, 4*100*time.Millisecond, "a GET that never gets a response took %v, want about 4 x 100ms", d)
	assert.LessOrEqual(t, d, 4*100*time.Millisecond+5*time.Second, "a GET that never gets a response took %v, want about 4 x 100ms", d)

	// Many retries, but the context ends it.
	c, err = NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithRetryBackoff(time.Millisecond, 2*time.Millisecond), WithMaxRetries(1000),
		WithHTTPClient(&http.Client{Transport: tr, Timeout: 50 * time.Millisecond}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = c.Transactions.Get(ctx, "1")
	d = time.Since(start)
	assert.LessOrEqual(t, d, 2*time.Second, "with a 300ms context: %v after %v", err, d)
	assert.Error(t, err, "with a 300ms context: %v after %v", err, d)
}

// TestHugeResponseMemoryIsBounded: with the default 8 MiB cap, a 4 GiB
// response costs a bounded amount of memory and is cut at the cap.
func TestHugeResponseMemoryIsBounded(t *testing.T) {
	for _, status := range []int{200, 500} {
		s := faultinject.NewServer(nil, faultinject.Huge(status, 4<<30))
		tr := s.Transport()
		c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr, Timeout: 30 * time.Second}), WithMaxRetries(0))
		require.NoError(t, err)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = c.Transactions.Get(context.Background(), "1")
		runtime.ReadMemStats(&after)
		tr.CloseIdleConnections()
		s.Close()
		if status == 200 {
			assert.ErrorIs(t, err, errResponseTooLarge, "200: err = %v", err)
		}
		if status == 500 {
			assert.ErrorIs(t, err, ErrServer, "500: err = %v", err)
		}
		grew := after.TotalAlloc - before.TotalAlloc
		assert.LessOrEqual(t, grew, uint64(64<<20), "%d: a 4 GiB response allocated %d MiB", status, grew>>20)
		got := s.Streamed()
		assert.LessOrEqual(t, got, int64(64<<20), "%d: the client read on: %d MiB streamed", status, got>>20)
	}
}

// TestOptInPerClient: WithRetryNonIdempotent retries every state-changing
// call with the same body, and the duplicate response surfaces as ErrDuplicate.
func TestOptInPerClient(t *testing.T) {
	for _, call := range faultCalls {
		if !call.mutates {
			continue
		}
		s := faultinject.NewServer(nil, faultinject.Respond(502, errorJSON), faultinject.ResetAfterRequest(), faultinject.Respond(400, duplicateJSON))
		tr := s.Transport()
		c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: tr}), WithRetryNonIdempotent())
		require.NoError(t, err)
		c.cfg.waitScale = (&waits{}).record
		err = call.do(context.Background(), c)
		got := s.Received()
		tr.CloseIdleConnections()
		s.Close()
		if !call.keyed {
			// Nothing to recognize a repeat by: sent once, as without the opt-in.
			assert.ErrorIs(t, err, ErrServer, "%s: keyless, err %v", call.name, err)
			assert.Len(t, got, 1, "%s: keyless, sent %d times", call.name, len(got))
			continue
		}
		if !assert.ErrorIs(t, err, ErrDuplicate, "%s: err %v after %d requests, want ErrDuplicate after 3", call.name, err, len(got)) ||
			!assert.Len(t, got, 3, "%s: err %v after %d requests, want ErrDuplicate after 3", call.name, err, len(got)) {
			continue
		}
		for i := range got {
			assert.True(t, bytes.Equal(got[i].Body, got[0].Body), "%s: attempt %d differs: %s %s?%s", call.name, i+1, got[i].Body, got[i].Path, got[i].RawQuery)
			assert.Equal(t, got[0].Path, got[i].Path, "%s: attempt %d differs: %s %s?%s", call.name, i+1, got[i].Body, got[i].Path, got[i].RawQuery)
			assert.Equal(t, got[0].RawQuery, got[i].RawQuery, "%s: attempt %d differs: %s %s?%s", call.name, i+1, got[i].Body, got[i].Path, got[i].RawQuery)
		}
		if ref := merchantReference(got[0].Body); call.name == "Transactions.Deposit" {
			assert.Equal(t, "dep-ref-1", ref, "deposit sent merchantReference %q", ref)
		}
	}
}

// merchantReference finds the merchantReference in a JSON or form body.
func merchantReference(body []byte) string {
	s := string(body)
	if i := strings.Index(s, "merchantReference="); i >= 0 {
		v, _, _ := strings.Cut(s[i+len("merchantReference="):], "&")
		return v
	}
	if i := strings.Index(s, `"merchantReference":"`); i >= 0 {
		v, _, _ := strings.Cut(s[i+len(`"merchantReference":"`):], `"`)
		return v
	}
	return ""
}

// TestTransportErrorBeforeWriteIsNotRetriedForAPost: an error the transport
// reports before writing anything still is not proof the request never
// left, unless it is a dial error; the harness's RoundTripper injects both.
func TestTransportErrorBeforeWriteIsNotRetriedForAPost(t *testing.T) {
	s := faultinject.NewServer(nil)
	defer s.Close()
	s.SetFallback(faultinject.Respond(200, faultTxn))
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	for _, tc := range []struct {
		err   error
		sent  int // requests that reached the server
		trips int
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, 1, 2},
		{&net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}, 0, 1},
	} {
		before := s.Requests()
		rt := &faultinject.RoundTripper{Base: tr, Before: func(n int, _ *http.Request) error {
			if n == 0 {
				return tc.err
			}
			return nil
		}}
		c, err := NewClient(testCreds, WithBaseURL(s.URL+"/api/v1"), WithHTTPClient(&http.Client{Transport: rt}))
		require.NoError(t, err)
		c.cfg.waitScale = (&waits{}).record
		_, err = c.Transactions.Deposit(context.Background(), "1", &DepositParams{MerchantReference: "r"})
		got := s.Requests() - before
		assert.Equal(t, tc.sent, got, "%v: %d requests reached the server in %d trips, want %d in %d (err %v)", tc.err, got, rt.Trips(), tc.sent, tc.trips, err)
		assert.Equal(t, tc.trips, rt.Trips(), "%v: %d requests reached the server in %d trips, want %d in %d (err %v)", tc.err, got, rt.Trips(), tc.sent, tc.trips, err)
	}
}

// endless is a request body that never ends; it counts what was read.
type endless struct{ n atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n.Add(int64(len(p)))
	return len(p), nil
}

// TestWebhookHandlerCapsItsBody: a notification of unbounded size, with and
// without a Content-Length, is refused with 413 after at most the cap (plus
// what sockets buffer) is read, and the callback is never called.
func TestWebhookHandlerCapsItsBody(t *testing.T) {
	var called atomic.Int32
	h := NewWebhookHandler(testCreds, func(context.Context, *Event) error { called.Add(1); return nil })
	ts := httptest.NewServer(h)
	defer ts.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	for _, length := range []int64{-1, 4 << 30} {
		body := &endless{}
		req, err := http.NewRequest(http.MethodPost, ts.URL, io.LimitReader(body, 4<<30))
		require.NoError(t, err)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Basic eDp5")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		resp, err := hc.Do(req)
		runtime.ReadMemStats(&after)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "length %d: status %d, want 413", length, resp.StatusCode)
		} // else the server closed the connection on the unread body: also a refusal
		sent := body.n.Load()
		assert.LessOrEqual(t, sent, int64(64<<20), "length %d: the client could send %d MiB", length, sent>>20)
		grew := after.TotalAlloc - before.TotalAlloc
		assert.LessOrEqual(t, grew, uint64(64<<20), "length %d: %d MiB allocated", length, grew>>20)
	}
	assert.Equal(t, int32(0), called.Load(), "the callback ran on a refused notification")
}

// TestFaultSliceCoversEveryKind: the default slice keeps a call of every
// kind the full table has, and the full table every call.
func TestFaultSliceCoversEveryKind(t *testing.T) {
	slice := faultSlice(faultCalls)
	kinds := func(calls []faultCall) map[string]bool {
		m := map[string]bool{}
		for _, c := range calls {
			m[fmt.Sprint(c.mutates, c.idempotent, c.keyed, c.readsBody)] = true
		}
		return m
	}
	assert.Equal(t, kinds(faultCalls), kinds(slice))
	if fullFaultMatrix() {
		assert.Len(t, slice, len(faultCalls))
	} else {
		assert.Less(t, len(slice), len(faultCalls))
	}
}

// fullFaultMatrix reports whether TestFaultTable runs every call of the
// endpoints table in every scenario, and TestCallsShareOneConnection 1,000
// calls: with BANKPAY_FAULT_MATRIX=1 in the environment (.ci/run sets it).
// Otherwise it runs every scenario against one call of each kind
// (faultSlice), and 200 calls, which keeps `go test ./...` quick.
func fullFaultMatrix() bool { return os.Getenv("BANKPAY_FAULT_MATRIX") == "1" }
