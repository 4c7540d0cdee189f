package pipeline

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// TestAttemptBodyReader: every reader of a call's body reads it whole, from
// the start; only the length probe and the first attempt share the
// attempt's own reader, and each retry gets a new one (the transport may
// still be reading the last attempt's).
func TestAttemptBodyReader(t *testing.T) {
	a := &Call{req: &Request{Body: []byte(`{"a":1}`)}}
	probe, err := a.bodyReader()
	require.NoError(t, err)
	first, err := a.bodyReader()
	require.NoError(t, err)
	assert.Same(t, probe, first)
	got, err := io.ReadAll(first)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	retry, err := a.bodyReader()
	require.NoError(t, err)
	assert.NotSame(t, first, retry)
	got, err = io.ReadAll(retry)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	assert.IsType(t, &bytes.Reader{}, retry, "a reader net/http knows to be in memory")

	empty := &Call{req: &Request{}}
	r, err := empty.bodyReader()
	require.NoError(t, err)
	got, err = io.ReadAll(r)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// plainURL makes, without parsing, the URL url.Parse reads from the base,
// the path and the query, and leaves every other URL to url.Parse.
func TestPlainURLIsParse(t *testing.T) {
	bases := []string{"https://sandbox.trustly.one/api/v1", "http://127.0.0.1:8080/api/v1", "HTTPS://H.example", "https://h.example/a%2Fb",
		"https://user@h.example/x", "https://h.example:/x", "https://h.example/x?q=1", "https://[::1]:9/x"}
	paths := []string{"/transactions/1002581230000", "/accounts/tokenize", "/t/a%2Fb", "/t/a b", "/t/\u00e9", "", "/t/x:y", "/t/A-z._~9"}
	queries := []string{"", "verifyAccount=true", "a=b&c=d", "x=%23", "x=#"}
	plain := 0
	for _, b := range bases {
		base, err := url.Parse(b)
		require.NoError(t, err)
		for _, p := range paths {
			for _, q := range queries {
				if checkPlainURL(t, base, b, p, q) {
					plain++
				}
			}
		}
	}
	assert.Positive(t, plain)
	assert.NotNil(t, plainURLOf(mustParse(t, "https://sandbox.trustly.one/api/v1"), "/transactions/1002581230000", ""), "the usual URL needs no parsing")
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// The request's context is the Call: it carries the Call (attemptOf) and
// every value, deadline and cancellation of the call's context.
func TestCallIsItsRequestsContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	a := &Call{Context: parent}
	assert.Same(t, a, attemptOf(a))
	assert.Equal(t, "v", a.Value(key{}))
	assert.Nil(t, attemptOf(parent))
	child, stop := context.WithCancel(a)
	defer stop()
	cancel()
	<-child.Done() // the call's cancellation reaches what net/http derives from it
	assert.ErrorIs(t, child.Err(), context.Canceled)
}

// countingBody is a response body that counts what is read of it after
// its end, and its closes.
type countingBody struct {
	r              io.Reader
	afterEOF, shut int
	ended          bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.ended {
		b.afterEOF++
	}
	n, err := b.r.Read(p)
	b.ended = b.ended || err == io.EOF
	return n, err
}

func (b *countingBody) Close() error { b.shut++; return nil }

// A body read to its end is closed without another read; one left unread
// is drained, then closed.
func TestDrainOnClose(t *testing.T) {
	read := &countingBody{r: strings.NewReader("abc")}
	d := &DrainOnClose{ReadCloser: read}
	got, err := io.ReadAll(d)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got))
	require.NoError(t, CloseBody(d))
	assert.Equal(t, 0, read.afterEOF, "nothing left to drain")
	assert.Equal(t, 1, read.shut)

	unread := &countingBody{r: strings.NewReader("abc")}
	require.NoError(t, CloseBody(&DrainOnClose{ReadCloser: unread}))
	assert.True(t, unread.ended, "drained to its end")
	assert.Equal(t, 1, unread.shut)
}

// baseOf is raw as WithBaseURL keeps it (its text without a trailing
// slash) and parsed, or false when WithBaseURL refuses it.
func baseOf(raw string) (string, *url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", nil, false
	}
	text := strings.TrimRight(u.String(), "/")
	b, err := url.Parse(text)
	if err != nil {
		return text, nil, true
	}
	return text, b, true
}

// Whatever the base WithBaseURL takes, the path (a row's, "/"-led, its ids
// path-escaped) and the query (encoded), the URL made without parsing is
// the one url.Parse reads from their text.
func FuzzPlainURLIsParse(f *testing.F) {
	for _, s := range []string{"https://sandbox.trustly.one/api/v1", "http://127.0.0.1:8080/api/v1/", "HTTPS://H.example", "https://h.example/a%2Fb",
		"https://[::1]:9/x", "https://[fe80::1%25en0]/x", "https://b%C3%BCcher.example/", "https://h.example:/x", "https://h/a%41", "https://h//x"} {
		f.Add(s, "/transactions/{id}", "1002581230000", "verifyAccount=true")
	}
	f.Add("https://h", "/t/{id}", "a/b?c#d ..%", "")
	f.Add("https://h", "/t", "", "x=%23&expand=a")
	f.Fuzz(func(t *testing.T, rawBase, row, id, rawQuery string) {
		text, base, ok := baseOf(rawBase)
		if !ok {
			return
		}
		path := "/" + strings.TrimPrefix(row, "/")
		path = strings.ReplaceAll(path, "{id}", url.PathEscape(id))
		if q, err := url.ParseQuery(rawQuery); err == nil {
			rawQuery = encodeQuery(q)
		} else {
			rawQuery = url.QueryEscape(rawQuery)
		}
		checkPlainURL(t, base, text, path, rawQuery)
	})
}

// checkPlainURL: the URL plainURL makes of base (parsed from text), path
// and query, when it makes one (false when it leaves it to url.Parse), is
// the one url.Parse reads from their text, and prints as that one does.
func checkPlainURL(t *testing.T, base *url.URL, text, path, query string) bool {
	t.Helper()
	u := plainURLOf(base, path, query)
	if u == nil {
		return false
	}
	target := text + path
	if query != "" {
		target += "?" + query
	}
	want, err := url.Parse(target)
	require.NoError(t, err, target)
	require.Equal(t, want, u, target)
	require.Equal(t, want.String(), u.String(), target)
	return true
}

// The request made without parsing is the one made by parsing its URL
// (retryablehttp.NewRequestWithContext): method, URL, host, protocol,
// headers, length and body, for a read and a state-changing call.
func TestPlainRequestIsParsedRequest(t *testing.T) {
	for _, req := range []Request{
		{Method: "GET", Path: "/transactions/1002581230000", Query: url.Values{"expand": {"a", "b"}}},
		{Method: "POST", Path: "/accounts/tokenize", Body: []byte(`{"a":1}`), StateChanging: true},
		{Method: "POST", Path: "/transactions/T1/cancel", StateChanging: true},
	} {
		made := func(base *url.URL) *http.Request {
			a := &Call{Request: req, cfg: Config{BaseURL: "https://h.example:8443/api/v1", Base: base}}
			a.init(&a.Request)
			hr, err := a.build(context.Background(), req.Query)
			require.NoError(t, err)
			r := hr.Request
			if r.Body != nil {
				b, err := io.ReadAll(r.Body)
				require.NoError(t, err)
				r.Body = io.NopCloser(bytes.NewReader(b))
			}
			return r
		}
		base := mustParse(t, "https://h.example:8443/api/v1")
		require.NotNil(t, plainURLOf(base, req.Path, ""), "the fast path's case")
		plain, parsed := made(base), made(nil)
		assert.Equal(t, parsed.URL, plain.URL)
		assert.Equal(t, parsed.Host, plain.Host)
		assert.Equal(t, [3]any{parsed.Method, parsed.Proto, parsed.ProtoMajor*10 + parsed.ProtoMinor}, [3]any{plain.Method, plain.Proto, plain.ProtoMajor*10 + plain.ProtoMinor})
		assert.Equal(t, parsed.Header, plain.Header)
		assert.Equal(t, parsed.ContentLength, plain.ContentLength)
		assert.Equal(t, parsed.GetBody == nil, plain.GetBody == nil)
		assert.Equal(t, parsed.Body, plain.Body)
		assert.Equal(t, parsed.Close, plain.Close)
		assert.Equal(t, parsed.TransferEncoding, plain.TransferEncoding)
	}
}

// plainURLOf is the URL plainURL sets, or nil when it leaves it to
// url.Parse.
func plainURLOf(base *url.URL, path, rawQuery string) *url.URL {
	var u url.URL
	if !plainURL(&u, base, path, rawQuery) {
		return nil
	}
	return &u
}

// encodeQuery is url.Values.Encode, for one name and value that need no
// escaping (its shortcut) and for every other query.
func TestEncodeQueryIsEncode(t *testing.T) {
	for _, q := range []url.Values{
		{"verifyAccount": {"true"}}, {"a-b.c_d~e": {"Z9"}}, {"x": {"a b"}}, {"x": {"a+b"}}, {"x": {"é"}}, {"x y": {"1"}},
		{"x": {""}}, {"": {"v"}}, {"x": {"1", "2"}}, {"x": {}}, {"a": {"1"}, "b": {"2"}}, {"x": {"a/b?c#d&e=f"}},
	} {
		assert.Equal(t, q.Encode(), encodeQuery(q), "%v", q)
	}
	for c := 0; c < 256; c++ {
		s := string([]byte{byte(c)})
		assert.Equal(t, url.QueryEscape(s) == s, unreserved(s), "%q", s)
	}
}

// The query sent is Query encoded; with fields to expand, Query with them.
func TestQuerySentEncoded(t *testing.T) {
	op := &ops.Op{Name: "A.Tokenize", Method: http.MethodPost, Path: "/accounts/tokenize", Body: ops.BodyJSON, Retry: ops.RetryUnlessSent}
	q := url.Values{"verifyAccount": {"true"}}
	for _, tc := range []struct {
		expand []string
		want   string
	}{
		{want: "verifyAccount=true"},
		{expand: []string{"x"}, want: "expand=x&verifyAccount=true"},
	} {
		for _, base := range []*url.URL{mustParse(t, "https://h.example/api/v1"), nil} {
			a := &Call{cfg: Config{BaseURL: "https://h.example/api/v1", Base: base, Expand: tc.expand}}
			require.NoError(t, a.Request.Prepare(op, Args{Query: q, Body: &struct{}{}}))
			a.init(&a.Request)
			hr, err := a.build(context.Background(), expandQuery(a.req.Query, tc.expand))
			require.NoError(t, err)
			assert.Equal(t, tc.want, hr.URL.RawQuery, "%+v, base %v", tc, base)
		}
	}
}
