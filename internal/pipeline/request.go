package bankpay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/form"
)

// request is one prepared API call.
type request struct {
	Method string
	// Path is relative to the base URL, already escaped (operation.pathFor).
	Path        string
	Query       url.Values
	Body        []byte
	ContentType string
	// StateChanging marks a call that moves money or changes state: it is
	// not retried unless it provably never left, or the caller opted in.
	// newRequest sets it for every method but GET and HEAD; an operation
	// sets it by its retry class (operation.request).
	StateChanging bool
	// Header holds this call's own headers (Idempotency-Key), sent with
	// every attempt; they replace a WithHeader header of the same name.
	Header http.Header
	// Idempotent marks a state-changing call the service deduplicates by
	// a key sent in Header: it is retried like a read, with the same key.
	Idempotent bool

	notReady error // the sentinel a 400 response also matches (identity reads)
	expand   bool  // the call takes WithExpand's fields as expand parameters
}

// keyed reports whether the service can recognize the call when it comes
// again: it carries an Idempotency-Key, or a merchantReference at the top
// of its body. Only such a call is retried under WithRetryNonIdempotent.
func (r *request) keyed() bool {
	return r.Idempotent || len(r.bodyFields("merchantReference")) > 0
}

// bodyFields returns the non-empty string values of r's top-level body
// fields named in names, in the order of names: the one reading of a
// request's own body (keyed, and the ids callText keeps readable).
func (r *request) bodyFields(names ...string) []string {
	var vals []string
	switch r.ContentType {
	case contentTypeForm:
		if v, err := url.ParseQuery(string(r.Body)); err == nil {
			for _, f := range names {
				if s := v.Get(f); s != "" {
					vals = append(vals, s)
				}
			}
		}
	case contentTypeJSON:
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

// formBody marks a params struct to be sent form-encoded with dotted nested
// names (beneficiary.address.city) instead of as JSON.
type formBody struct{ V any }

// newRequest prepares a call of the API. body may be nil, url.Values (sent
// form-encoded), a formBody, or any other value (sent as JSON).
func newRequest(method, path string, query url.Values, body any) (*request, error) {
	r := &request{
		Method:        method,
		Path:          path,
		Query:         query,
		StateChanging: method != http.MethodGet && method != http.MethodHead,
	}
	switch b := body.(type) {
	case nil:
	case url.Values:
		r.Body, r.ContentType = []byte(b.Encode()), contentTypeForm
	case formBody:
		buf, err := form.Body(b.V)
		if err != nil {
			return nil, fmt.Errorf("bankpay: encoding form body: %w", err)
		}
		r.Body, r.ContentType = buf, contentTypeForm
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("bankpay: encoding JSON body: %w", err)
		}
		r.Body, r.ContentType = buf, contentTypeJSON
	}
	return r, nil
}

// Content types of request bodies (newRequest).
const (
	contentTypeJSON = "application/json"
	contentTypeForm = "application/x-www-form-urlencoded"
)

// setHeaders sets the headers of one request (but Authorization, which
// guardTransport sets): Accept, User-Agent, Content-Type when there is a
// body, and each extra header in turn. Every value is this request's own:
// a middleware that writes h["Accept"][0] changes no other request (nor
// another attempt of its call: each retry gets new ones), nor the client's
// WithHeader values. All the values share one array (one allocation besides the
// map's storage); each slice's capacity is its length, so that an append
// copies. h must be empty (a new request's).
func setHeaders(h http.Header, userAgent, contentType string, extra ...http.Header) {
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
	add("Accept", contentTypeJSON)
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
