package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// hookServer is a merchant's endpoint: NewWebhookHandler (de-duplicating
// by default) with the sandbox's clock, counting callbacks; the first
// fail requests are answered 500 before the handler sees them.
type hookServer struct {
	*httptest.Server
	calls atomic.Int32
	fail  atomic.Int32
	mu    sync.Mutex
	got   []*bankpay.Event
}

func newHookServer(t *testing.T, srv *bankpaytest.Server) *hookServer {
	hs := &hookServer{}
	h := bankpay.NewWebhookHandler(srv.Credentials(), func(_ context.Context, ev *bankpay.Event) error {
		hs.calls.Add(1)
		hs.mu.Lock()
		defer hs.mu.Unlock()
		hs.got = append(hs.got, ev)
		return nil
	}, bankpay.WithWebhookClock(srv.Now))
	hs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hs.fail.Add(-1) >= 0 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs
}

func (h *hookServer) events() []*bankpay.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*bankpay.Event(nil), h.got...)
}

// TestListenForwards: listen delivers the sandbox's new events to a local
// NewWebhookHandler, which accepts them (signed as the service signs),
// retries one answered 500, prints a line per attempt, and ends with the
// context (Ctrl-C) with exit 0.
func TestListenForwards(t *testing.T) {
	c := newCLI(t)
	old := c.disbursement("before-listen") // recorded before: not forwarded
	hs := newHookServer(t, c.srv)
	hs.fail.Store(1)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	e := &env{getenv: func(k string) string { return c.vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"listen", "-forward-to", hs.URL + "/bankpay/events", "-retry-interval", "10ms"}, e)
	}()
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "forwarding") }, 5*time.Second, 10*time.Millisecond)

	code, tout, terr := c.run("", "-json", "trigger", "Complete")
	require.Equal(t, exitOK, code, terr)
	var trig []map[string]any
	require.NoError(t, json.Unmarshal([]byte(tout), &trig), tout)
	require.NotEmpty(t, trig)
	dep := trig[0]["transactionId"].(string)

	require.Eventually(t, func() bool {
		for _, ev := range hs.events() {
			if ev.EventType == models.EventComplete && ev.TransactionID == dep {
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, errOut.String())
	case <-time.After(5 * time.Second):
		t.Fatal("listen did not end with its context")
	}
	lines := out.String()
	assert.Regexp(t, `Complete\s+\d+\s+transaction `+dep+`\s+-> 200 OK`, lines)
	assert.Contains(t, lines, "-> 500 Internal Server Error", "the first attempt, refused")
	assert.Regexp(t, `-> 200 OK \(attempt 2\)`, lines, "retried")
	assert.NotContains(t, lines, old.TransactionID, "events from before listen started are not forwarded")
	assert.NotContains(t, lines+errOut.String(), c.vars["BANKPAY_ACCESS_KEY"])
	for _, ev := range hs.events() {
		assert.NotEqual(t, old.TransactionID, ev.TransactionID)
	}
}

// TestTriggerEachEvent: trigger emits every event kind it names; -json
// prints the events with their documented fields.
func TestTriggerEachEvent(t *testing.T) {
	c := newCLI(t)
	for _, typ := range bankpaytest.TriggerEvents {
		code, out, errOut := c.run("", "-json", "trigger", strings.ToLower(string(typ)))
		require.Equal(t, exitOK, code, "%s: %s", typ, errOut)
		var evs []eventView
		require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
		require.NotEmpty(t, evs, typ)
		for _, ev := range evs {
			assert.Equal(t, string(typ), ev.EventType)
			recorded := c.srv.EventsFor(ev.TransactionID)
			assert.NotEmpty(t, recorded, "%s: the sandbox recorded it", typ)
		}
	}
	code, out, _ := c.run("", "trigger", "Deny")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `EVENT\s+TYPE\s+TRANSACTION`, out)
	assert.Regexp(t, `\d+\s+Deny\s+\d+`, out)
	code, _, errOut := c.run("", "trigger", "Nope")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "want one event: Authorize, Process, Complete")
}

// TestEventsListJSONFields pins the fields of events list -json (README,
// Operations CLI).
func TestEventsListJSONFields(t *testing.T) {
	c := newCLI(t)
	code, _, errOut := c.run("", "trigger", "Process")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := c.run("", "-json", "events", "list", "-type", "Process")
	require.Equal(t, exitOK, code, errOut)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.Len(t, evs, 1)
	var keys []string
	for k := range evs[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{"attempts", "createdAt", "delivered", "eventId", "eventType", "lastStatus", "transactionId"}, keys,
		"url is left out when the event has none; body and authorization never appear")
	assert.Equal(t, "Process", evs[0]["eventType"])

	code, out, _ = c.run("", "events", "list", "-limit", "1")
	require.Equal(t, exitOK, code)
	assert.Equal(t, 2, strings.Count(out, "\n"), "a header and one event: %s", out)
}

// TestEventsResendDeduplicated: an event resent twice to a deduplicating
// handler is answered 200 both times and runs the callback once.
func TestEventsResendDeduplicated(t *testing.T) {
	c := newCLI(t)
	hs := newHookServer(t, c.srv)
	code, out, errOut := c.run("", "-json", "trigger", "Authorize")
	require.Equal(t, exitOK, code, errOut)
	var evs []eventView
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.Len(t, evs, 1)
	id := evs[0].EventID
	for i := range 2 {
		code, out, errOut = c.run("", "events", "resend", id, "--to", hs.URL+"/bankpay/events")
		require.Equal(t, exitOK, code, "resend %d: %s", i, errOut)
		assert.Contains(t, out, "-> "+hs.URL+"/bankpay/events: 200 OK")
	}
	assert.Equal(t, int32(1), hs.calls.Load(), "the callback ran once")
	hs.fail.Store(1)
	code, out, errOut = c.run("", "-json", "events", "resend", "-to", hs.URL, id)
	assert.Equal(t, exitFailed, code, errOut)
	var line deliveryLine
	require.NoError(t, json.Unmarshal([]byte(out), &line), out)
	assert.Equal(t, http.StatusInternalServerError, line.StatusCode)
	assert.Equal(t, id, line.EventID)
	code, _, errOut = c.run("", "events", "resend", "100", "-to", hs.URL)
	assert.Equal(t, exitNotFound, code, errOut)
}

// TestSandboxOnlyCommands: against the service (no BANKPAY_BASE_URL, or
// a host that is not loopback) listen, trigger and events say they are
// sandbox-only, exit 2 and send nothing.
func TestSandboxOnlyCommands(t *testing.T) {
	var dialed atomic.Int32
	live := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { dialed.Add(1) }))
	defer live.Close()
	for _, base := range []string{"", bankpay.ProductionBaseURL, bankpay.SandboxBaseURL,
		strings.Replace(live.URL, "127.0.0.1", "localhost.example", 1) + "/api/v1"} {
		c := newCLI(t)
		c.vars["BANKPAY_BASE_URL"] = base
		for _, args := range [][]string{
			{"listen", "-forward-to", "http://localhost:8080/events"}, {"trigger", "Complete"},
			{"events", "list"}, {"events", "resend", "1", "-to", "http://localhost:8080/"},
		} {
			code, out, errOut := c.run("", args...)
			assert.Equal(t, exitUsage, code, "%q %v: %s", base, args, errOut)
			assert.Contains(t, errOut, "sandbox-only", "%q %v", base, args)
			assert.Contains(t, errOut, "nothing was sent")
			assert.Empty(t, out)
		}
		assert.Empty(t, c.srv.Events(), "nothing reached the sandbox")
	}
	assert.Zero(t, dialed.Load())
}

// TestEventsUsage: each events subcommand's -h lists the flags its usage
// line names, and exits 2.
func TestEventsUsage(t *testing.T) {
	c := newCLI(t)
	for sub, flags := range map[string][]string{"list": {"-transaction", "-type", "-limit"}, "resend": {"-to"}} {
		code, _, errOut := c.run("", "events", sub, "-h")
		assert.Equal(t, exitUsage, code, sub)
		for _, f := range flags {
			assert.Contains(t, commands["events"].usage, f)
			assert.Regexp(t, `(?m)^  `+f+`( |$)`, errOut, "events %s -h lists %s", sub, f)
		}
	}
}

// events list -type takes a comma-separated list, any case, and the other
// spellings (Completed); an unknown type is exit 2 naming it, not an empty
// list. events resend of an event without a notification URL names -to.
func TestEventsListTypes(t *testing.T) {
	c := newCLI(t)
	for _, ev := range []string{"Process", "Deny"} {
		code, _, errOut := c.run("", "trigger", ev)
		require.Equal(t, exitOK, code, errOut)
	}
	count := func(args ...string) (int, map[string]int, string) {
		code, out, errOut := c.run("", append([]string{"-json", "events", "list"}, args...)...)
		var evs []eventView
		if code == exitOK {
			require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
		}
		n := map[string]int{}
		for _, e := range evs {
			n[e.EventType]++
		}
		return code, n, errOut
	}
	_, all, _ := count()
	require.NotZero(t, all["Process"])
	require.NotZero(t, all["Deny"])
	code, got, errOut := count("-type", "process,DENY")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, map[string]int{"Process": all["Process"], "Deny": all["Deny"]}, got)

	code, _, errOut = c.run("", "trigger", "Complete")
	require.Equal(t, exitOK, code, errOut)
	code, got, errOut = count("-type", "Completed")
	require.Equal(t, exitOK, code, errOut)
	assert.NotZero(t, got["Complete"], "Completed is Complete")

	code, _, errOut = count("-type", "Process,Nope")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown event type "Nope"`)

	// An event of a transaction without a notification URL: -to, not to=.
	code, out, errOut := c.run("", "-json", "trigger", "Authorize")
	require.Equal(t, exitOK, code, errOut)
	var evs []eventView
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.NotEmpty(t, evs)
	require.Empty(t, evs[0].URL, "trigger's transaction has no notification URL")
	code, _, errOut = c.run("", "events", "resend", evs[0].EventID)
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "give -to URL")
	assert.NotContains(t, errOut, "to=URL")
}
