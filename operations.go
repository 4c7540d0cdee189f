package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// operation is one operation of the API, a row of the table below: what
// the pipeline (invoke) needs to call it. A service method checks its
// input, then makes one call with its row; adding an operation is that
// method and one row here (CONTRIBUTING.md shows the diff).
type operation struct {
	// name is the SDK method ("Transactions.Deposit").
	name   string
	method string
	// path is the path under the base URL; each {name} segment is filled,
	// in order, with one of the call's ids, path-escaped.
	path string
	// body is how the call's params are sent.
	body bodyEncoding
	// key is the object or array the response wraps its result in ("" for
	// a bare one, or none read). Either shape is read.
	key string
	// retry is when an attempt may be sent again.
	retry retryClass
	// expand marks an operation that takes WithExpand's fields.
	expand bool
	// notReady marks a read whose 400 response also matches
	// ErrIdentityNotReady.
	notReady bool
	// limit bounds a list the service returns whole: one with more items
	// is refused before it is decoded (listWhole). 0 for a paged list
	// (bounded by the count asked) or no list.
	limit int
}

// bodyEncoding is how an operation sends its params.
type bodyEncoding uint8

const (
	bodyNone bodyEncoding = iota
	bodyJSON              // encoding/json
	bodyForm              // form-encoded, dotted nested names (internal/form)
)

// retryClass is when an operation's attempt may be sent again
// (internal/pipeline: attempt.go).
type retryClass uint8

const (
	// retryRead: a read, retried on a network error or a 5xx response.
	retryRead retryClass = iota
	// retryUnlessSent: a call that moves money or changes state, not
	// retried once it may have reached the server, unless the caller opted
	// in (WithRetryNonIdempotent, with a merchantReference).
	retryUnlessSent
	// retryKeyed: a state-changing call sent with an Idempotency-Key, the
	// same in every attempt: retried like a read.
	retryKeyed
)

// The operations of the API, by service. Bounds of whole lists: see
// maxSelectedAccounts (below).
var (
	opAccountsBalance      = &operation{name: "Accounts.Balance", method: http.MethodGet, path: "/transactions/{transactionId}/payment/paymentProvider/account/balance", key: "accountBalance"}
	opAccountsUser         = &operation{name: "Accounts.User", method: http.MethodGet, path: "/transactions/{transactionId}/payment/paymentProvider/user", key: "user", expand: true}
	opAccountsSummary      = &operation{name: "Accounts.Summary", method: http.MethodGet, path: "/transactions/{transactionId}/accountSummary"}
	opAccountsListSelected = &operation{name: "Accounts.ListSelected", method: http.MethodGet, path: "/transactions/{transactionId}/payment/paymentProvider/accounts", key: "accounts", limit: maxSelectedAccounts}
	opAccountsVerify       = &operation{name: "Accounts.Verify", method: http.MethodPost, path: "/accounts/verify", body: bodyJSON, key: "account", retry: retryUnlessSent, expand: true}
	opAccountsFeedback     = &operation{name: "Accounts.Feedback", method: http.MethodPost, path: "/feedback", body: bodyJSON, retry: retryUnlessSent}
	opAccountsTokenize     = &operation{name: "Accounts.Tokenize", method: http.MethodPost, path: "/accounts/tokenize", body: bodyJSON, retry: retryUnlessSent}

	opCountriesList = &operation{name: "Countries.List", method: http.MethodGet, path: "/countries", key: "countries", limit: maxCountries}

	opCustomersCreate = &operation{name: "Customers.Create", method: http.MethodPost, path: "/customers", body: bodyJSON, key: "customer", retry: retryUnlessSent}
	opCustomersUpdate = &operation{name: "Customers.Update", method: http.MethodPost, path: "/customers/{customerId}", body: bodyJSON, key: "customer", retry: retryUnlessSent}
	// UpdateByExternalID sends the id as ?externalId=.
	opCustomersUpdateByExternalID = &operation{name: "Customers.UpdateByExternalID", method: http.MethodPost, path: "/customers", body: bodyJSON, key: "customer", retry: retryUnlessSent}
	opCustomersGet                = &operation{name: "Customers.Get", method: http.MethodGet, path: "/customers/{customerId}", key: "customer"}
	opCustomersList               = &operation{name: "Customers.List", method: http.MethodGet, path: "/customers", key: "customers", limit: maxCustomers}
	opCustomersLookup             = &operation{name: "Customers.Lookup", method: http.MethodGet, path: "/customers/lookup"}

	opDisputesCreate = &operation{name: "Disputes.Create", method: http.MethodPost, path: "/collections/recovery/dispute", body: bodyJSON, key: "transaction", retry: retryKeyed}

	opIdentityUser                 = &operation{name: "Identity.User", method: http.MethodGet, path: "/transactions/{transactionId}/user", key: "user", expand: true, notReady: true}
	opIdentityDetail               = &operation{name: "Identity.Detail", method: http.MethodGet, path: "/transactions/{transactionId}/user/detail", key: "detail", expand: true, notReady: true}
	opIdentityCustomerVerification = &operation{name: "Identity.CustomerVerification", method: http.MethodGet, path: "/transactions/{transactionId}/payment/customer/verify", key: "matches", limit: maxCustomerMatches}
	// Register and Void: the same feedback, two statuses.
	opIdentityFeedback = &operation{name: "Identity.Register and Identity.Void", method: http.MethodPost, path: "/transactions/{transactionId}/feedback", body: bodyJSON, retry: retryUnlessSent}

	opPaymentProvidersList = &operation{name: "PaymentProviders.List", method: http.MethodGet, path: "/paymentProviders", key: "paymentProviders"}

	opPaymentsGet  = &operation{name: "Payments.Get", method: http.MethodGet, path: "/payments/{paymentId}", key: "payment"}
	opPaymentsList = &operation{name: "Payments.List", method: http.MethodGet, path: "/payments", key: "payments"}

	opTransactionsGet          = &operation{name: "Transactions.Get", method: http.MethodGet, path: "/transactions/{transactionId}", key: "transaction"}
	opTransactionsList         = &operation{name: "Transactions.List", method: http.MethodGet, path: "/transactions", key: "transactions"}
	opTransactionsEstablish    = &operation{name: "Transactions.Establish", method: http.MethodPost, path: "/establish", body: bodyJSON, key: "transaction", retry: retryUnlessSent}
	opTransactionsPreauthorize = &operation{name: "Transactions.Preauthorize", method: http.MethodPost, path: "/transactions/{transactionId}/capture/preAuth", body: bodyJSON, key: "transaction", retry: retryUnlessSent}
	opTransactionsCapture      = &operation{name: "Transactions.Capture", method: http.MethodPost, path: "/transactions/{transactionId}/capture", body: bodyForm, key: "transaction", retry: retryUnlessSent}
	opTransactionsDeposit      = &operation{name: "Transactions.Deposit", method: http.MethodPost, path: "/transactions/{transactionId}/deposit", body: bodyForm, key: "transaction", retry: retryUnlessSent}
	opTransactionsRefund       = &operation{name: "Transactions.Refund", method: http.MethodPost, path: "/transactions/{transactionId}/refund", body: bodyJSON, key: "transaction", retry: retryUnlessSent}
	opTransactionsReclaim      = &operation{name: "Transactions.Reclaim", method: http.MethodPost, path: "/transactions/{transactionId}/reclaim", body: bodyJSON, key: "transaction", retry: retryUnlessSent}
	opTransactionsCancel       = &operation{name: "Transactions.Cancel", method: http.MethodPost, path: "/transactions/{transactionId}/cancel", body: bodyJSON, key: "transaction", retry: retryUnlessSent}
	opTransactionsRefresh      = &operation{name: "Transactions.Refresh", method: http.MethodPost, path: "/transactions/{transactionId}/refresh", body: bodyJSON, key: "refresh", retry: retryUnlessSent}
)

// args are one call's values: the ids that fill its operation's path, in
// order, its query, its body (params to encode as the operation says) and
// the Idempotency-Key of a retryKeyed operation.
type args struct {
	ids            []string
	query          url.Values
	body           any
	idempotencyKey string
}

// pathFor is op's path with each {name} segment replaced by the next of
// ids, path-escaped, so that a "/", "?" or "#" in an id cannot change the
// path (the service method rejects "." and "..", see checkID).
func (op *operation) pathFor(ids ...string) (string, error) {
	segs := strings.Split(op.path, "/")
	n := 0
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			if n == len(ids) {
				return "", fmt.Errorf("bankpay: %s: no value for %s", op.name, s)
			}
			segs[i] = url.PathEscape(ids[n])
			n++
		}
	}
	if n != len(ids) {
		return "", fmt.Errorf("bankpay: %s: %d ids for %d path segments", op.name, len(ids), n)
	}
	return strings.Join(segs, "/"), nil
}

// request prepares a call of op with a in r.
func (op *operation) request(r *pipeline.Request, a args) error {
	path, err := op.pathFor(a.ids...)
	if err != nil {
		return err
	}
	body := a.body
	switch op.body {
	case bodyNone:
		if body != nil {
			return fmt.Errorf("bankpay: %s takes no body", op.name)
		}
	case bodyForm:
		body = pipeline.FormBody{V: body}
	}
	if err := r.Init(op.method, path, a.query, body); err != nil {
		return err
	}
	r.StateChanging = op.retry != retryRead
	r.Expand = op.expand
	if op.notReady {
		r.NotReady = ErrIdentityNotReady
	}
	if op.retry == retryKeyed {
		if a.idempotencyKey == "" {
			return invalid("idempotencyKey", "must not be empty")
		}
		r.Header = http.Header{"Idempotency-Key": {a.idempotencyKey}}
		r.Idempotent = true
	}
	return nil
}

// invoke is the one entry point of the pipeline: it prepares the call of
// op with a and sends it (send, then pipeline.Call.Do: send with retries,
// check, decode into v).
func (c *caller) invoke(ctx context.Context, op *operation, a args, v any, opts []Option) error {
	// The request and the state of its call in one allocation.
	call := new(pipeline.Call)
	if err := op.request(&call.Request, a); err != nil {
		return err
	}
	return c.send(ctx, call, v, opts)
}

// noContent is the result of a call whose 2xx body is not read.
type noContent struct{}

// resultError is the *ResponseError of a 2xx response to a call of op
// made with ids whose result lacks what the call needs (err says what).
func (op *operation) resultError(err error, ids ...string) *ResponseError {
	path, _ := op.pathFor(ids...) // the call was made with these ids: no error
	return &ResponseError{StatusCode: http.StatusOK, Method: op.method, Path: path, Err: err}
}

// call is the typed face of invoke for every service method that reads
// one result: it calls op with a and decodes the response as a T, wrapped
// as op.key or bare (decodeLogged, decode.go), while its body is still in
// the pooled buffer.
//
// Three Ts are read otherwise: a noContent result reads no body (any 2xx
// response is success), a json.RawMessage is a copy of the body (for a
// caller that reads it itself: a list page), and a T whose pointer is a
// pipeline.Decoder reads the body itself (Tokenize's two shapes).
func call[T any](ctx context.Context, c *caller, op *operation, a args, opts []Option) (*T, error) {
	var v any
	var d *decodeInto[T]
	out := (*T)(nil)
	switch any(out).(type) {
	case *noContent: // v nil: the body is not read
		out = new(T)
	case *json.RawMessage, pipeline.Decoder:
		out = new(T)
		v = out
	default:
		d = &decodeInto[T]{key: op.key}
		v = d
	}
	if err := c.invoke(ctx, op, a, v, opts); err != nil {
		return nil, err
	}
	if d != nil {
		return d.out, nil
	}
	return out, nil
}

// Bounds of the lists the service returns whole, in one response, with no
// count asked (listWhole): the OpenAPI gives no maxItems, so each is the
// most its list can legitimately hold, with room to spare. The accounts a
// user selected in one authorization and the attributes compared for one
// customer verification are a handful; 1,000 of either is already absurd.
// A merchant's customers may be many, but a decoded item costs about
// 1.4 KiB of Go structure even when its JSON is an empty object (measured
// through Customers.List: the struct, and the slice grown by doubling), so
// an unbounded count of three-byte "{}" items turns the 8 MiB body cap
// into ~3 GB. 20,000 customers cost about 26 MiB of such structure, under
// 4 times the body cap (TestUnpagedListBoundedBeforeDecoding), and a list
// that long is already 4 to 8 MiB of real records (200 to 400 bytes each:
// ids, name, email, merchant id, timestamps), near the cap itself. A
// merchant with more customers reads them by externalId or customerId.
const (
	maxSelectedAccounts = 1_000
	maxCustomerMatches  = 1_000
	maxCountries        = 1_000 // ISO 3166 has 249
	maxCustomers        = 20_000
)
