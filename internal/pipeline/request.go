// Package pipeline is the call pipeline, which knows nothing of the SDK's
// public types. Its one entry point, Invoke, takes an operation's row
// (internal/ops) and the call's Args: it prepares the request (its method,
// path, query, encoded body, headers and retry marks) and does the call
// (Call.Do: build, send with retries, check, decode). Here too: the retry
// rule, the send guard below every transport, and the capped reading of
// bodies. The root package gives it a Config per call and makes the public
// errors of its failures (Reporter).
package pipeline

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/internal/jsonbody"
)

// Request is one prepared API call.
type Request struct {
	Method string
	// Path is relative to the base URL, already escaped (ops.Op.Fill).
	Path        string
	Query       url.Values
	Body        []byte
	ContentType string
	// StateChanging marks a call that moves money or changes state: it is
	// not retried unless it provably never left, or the caller opted in.
	// NewRequest sets it for every method but GET and HEAD; an operation
	// sets it by its retry class (Prepare).
	StateChanging bool
	// Header holds this call's own headers (Idempotency-Key), sent with
	// every attempt; they replace a WithHeader header of the same name.
	Header http.Header
	// Idempotent marks a state-changing call the service deduplicates by
	// a key sent in Header: it is retried like a read, with the same key.
	Idempotent bool

	NotReady bool // a 400 response also means "not ready yet" (identity reads)
	Expand   bool // the call takes WithExpand's fields as expand parameters
}

// Keyed reports whether the service can recognize the call when it comes
// again: it carries an Idempotency-Key, or a merchantReference at the top
// of its body. Only such a call is retried under WithRetryNonIdempotent.
func (r *Request) Keyed() bool {
	return r.Idempotent || len(r.BodyFields("merchantReference")) > 0
}

// BodyFields returns the non-empty string values of r's top-level body
// fields named in names, in the order of names: the one reading of a
// request's own body (Keyed, and the ids callText keeps readable).
func (r *Request) BodyFields(names ...string) []string {
	var vals []string
	switch r.ContentType {
	case ContentTypeForm:
		if v, err := url.ParseQuery(string(r.Body)); err == nil {
			for _, f := range names {
				if s := v.Get(f); s != "" {
					vals = append(vals, s)
				}
			}
		}
	case ContentTypeJSON:
		var m map[string]json.RawMessage
		if json.Unmarshal(r.Body, &m) == nil {
			for _, f := range names {
				var s string
				if json.Unmarshal(m[f], &s) == nil && s != "" {
					vals = append(vals, s)
				}
			}
		}
	}
	return vals
}

// FormBody marks a params struct to be sent form-encoded with dotted nested
// names (beneficiary.address.city) instead of as JSON.
type FormBody struct{ V any }

// NewRequest prepares a call of the API. body may be nil, url.Values (sent
// form-encoded), a FormBody, or any other value (sent as JSON).
func NewRequest(method, path string, query url.Values, body any) (*Request, error) {
	r := new(Request)
	if err := r.Init(method, path, query, body); err != nil {
		return nil, err
	}
	return r, nil
}

// Init prepares r, a zero Request held by the caller, as NewRequest
// prepares a new one.
func (r *Request) Init(method, path string, query url.Values, body any) error {
	*r = Request{
		Method:        method,
		Path:          path,
		Query:         query,
		StateChanging: method != http.MethodGet && method != http.MethodHead,
	}
	switch b := body.(type) {
	case nil:
	case url.Values:
		r.Body, r.ContentType = []byte(b.Encode()), ContentTypeForm
	case FormBody:
		buf, err := form.Body(b.V)
		if err != nil {
			return fmt.Errorf("bankpay: encoding form body: %w", err)
		}
		r.Body, r.ContentType = buf, ContentTypeForm
	default:
		buf, err := jsonbody.Marshal(b)
		if err != nil {
			return fmt.Errorf("bankpay: encoding JSON body: %w", err)
		}
		r.Body, r.ContentType = buf, ContentTypeJSON
	}
	return nil
}

// Content types of request bodies (NewRequest).
const (
	ContentTypeJSON = "application/json"
	ContentTypeForm = "application/x-www-form-urlencoded"
)

// SetHeaders sets the headers of one request (but Authorization, which
// guardTransport sets): Accept, User-Agent, Content-Type when there is a
// body, and each extra header in turn. Every value is this request's own:
// a middleware that writes h["Accept"][0] changes no other request (nor
// another attempt of its call: each retry gets new ones), nor the client's
// WithHeader values. All the values share one array (one allocation besides the
// map's storage); each slice's capacity is its length, so that an append
// copies. h must be empty (a new request's).
func SetHeaders(h http.Header, userAgent, contentType string, extra ...http.Header) {
	n := 3
	for _, x := range extra {
		for _, vs := range x {
			n += len(vs)
		}
	}
	vals := make([]string, 0, n)
	add := func(k string, vs ...string) {
		i := len(vals)
		vals = append(vals, vs...)
		h[k] = vals[i:len(vals):len(vals)]
	}
	add("Accept", ContentTypeJSON)
	add("User-Agent", userAgent)
	if contentType != "" {
		add("Content-Type", contentType)
	}
	for _, x := range extra { // a later one replaces an earlier one's name
		for k, vs := range x {
			add(k, vs...)
		}
	}
}
