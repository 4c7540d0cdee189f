// Package ops is the table of the API's operations: one row an operation,
// what the SDK's pipeline needs to call it (method, path, body encoding,
// wrapper key, retry class, expand, list bound). The SDK's service methods
// call with their row; the sandbox (bankpaytest) routes each row's method
// and path to its handler; the contract suite (test/contract) checks each
// row's method and path against the operator's OpenAPI. Adding an
// operation is its method in the SDK and one row here.
package ops

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Op is one operation of the API, a row of the table below.
type Op struct {
	// Name is the SDK method ("Transactions.Deposit").
	Name   string
	Method string
	// Path is the path under the base URL; each {name} segment is filled,
	// in order, with one of the call's ids, path-escaped (Fill).
	Path string
	// Body is how the call's params are sent.
	Body Body
	// Key is the object or array the response wraps its result in ("" for
	// a bare one, or none read). Either shape is read.
	Key string
	// Retry is when an attempt may be sent again.
	Retry Retry
	// Expand marks an operation that takes WithExpand's fields.
	Expand bool
	// NotReady marks a read whose 400 response also matches
	// ErrIdentityNotReady.
	NotReady bool
	// Limit bounds a list the service returns whole: one with more items
	// is refused before it is decoded. 0 for a paged list (bounded by the
	// count asked) or no list.
	Limit int

	// pieces is Path cut at its {name} segments, worked out once by row:
	// the text before the first, between each two and after the last
	// (Fill joins them with the ids). nil for a row made otherwise.
	pieces []string
}

// Body is how an operation sends its params.
type Body uint8

// The body encodings.
const (
	BodyNone Body = iota
	BodyJSON      // JSON: the bytes encoding/json writes (internal/jsonbody)
	BodyForm      // form-encoded, dotted nested names (internal/form)
)

// Retry is when an operation's attempt may be sent again.
type Retry uint8

// The retry classes.
const (
	// RetryRead: a read, retried on a network error or a 5xx response.
	RetryRead Retry = iota
	// RetryUnlessSent: a call that moves money or changes state, not
	// retried once it may have reached the server, unless the caller opted
	// in (WithRetryNonIdempotent, with a merchantReference).
	RetryUnlessSent
	// RetryKeyed: a state-changing call sent with an Idempotency-Key, the
	// same in every attempt: retried like a read.
	RetryKeyed
)

// Fill is op's path with each {name} segment replaced by the next of ids,
// path-escaped, so that a "/", "?" or "#" in an id cannot change the path
// (the service method rejects "." and "..").
func (op *Op) Fill(ids ...string) (string, error) {
	if len(ids) == 0 && !strings.Contains(op.Path, "{") {
		return op.Path, nil // nothing to fill
	}
	if op.pieces != nil && len(ids) == len(op.pieces)-1 {
		return op.join(ids), nil
	}
	segs := strings.Split(op.Path, "/")
	n := 0
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			if n == len(ids) {
				return "", fmt.Errorf("bankpay: %s: no value for %s", op.Name, s)
			}
			segs[i] = url.PathEscape(ids[n])
			n++
		}
	}
	if n != len(ids) {
		return "", fmt.Errorf("bankpay: %s: %d ids for %d path segments", op.Name, len(ids), n)
	}
	return strings.Join(segs, "/"), nil
}

// join is op's path with ids (as many as op has {name} segments) in
// them, path-escaped: in one allocation when no id needs escaping.
func (op *Op) join(ids []string) string {
	if len(ids) == 1 {
		return op.pieces[0] + url.PathEscape(ids[0]) + op.pieces[1]
	}
	var b strings.Builder
	for i, id := range ids {
		b.WriteString(op.pieces[i])
		b.WriteString(url.PathEscape(id))
	}
	b.WriteString(op.pieces[len(ids)])
	return b.String()
}

// cut is path's pieces around its {name} segments (Op.pieces).
func cut(path string) []string {
	segs := strings.Split(path, "/")
	pieces := []string{""}
	for i, s := range segs {
		last := &pieces[len(pieces)-1]
		if i > 0 {
			*last += "/"
		}
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			pieces = append(pieces, "")
			continue
		}
		*last += s
	}
	return pieces
}

// All returns every row of the table, in the order written.
func All() []*Op { return append([]*Op(nil), all...) }

// all is the table, appended to by row only while the package's variables
// are initialized (each row below is one), never after.
var all []*Op

// row adds op to the table and returns it.
func row(op *Op) *Op {
	op.pieces = cut(op.Path)
	all = append(all, op)
	return op
}

// The operations of the API, by service, one row each.
var (
	AccountsBalance      = row(&Op{Name: "Accounts.Balance", Method: http.MethodGet, Path: "/transactions/{transactionId}/payment/paymentProvider/account/balance", Key: "accountBalance"})
	AccountsUser         = row(&Op{Name: "Accounts.User", Method: http.MethodGet, Path: "/transactions/{transactionId}/payment/paymentProvider/user", Key: "user", Expand: true})
	AccountsSummary      = row(&Op{Name: "Accounts.Summary", Method: http.MethodGet, Path: "/transactions/{transactionId}/accountSummary"})
	AccountsListSelected = row(&Op{Name: "Accounts.ListSelected", Method: http.MethodGet, Path: "/transactions/{transactionId}/payment/paymentProvider/accounts", Key: "accounts", Limit: MaxSelectedAccounts})
	AccountsVerify       = row(&Op{Name: "Accounts.Verify", Method: http.MethodPost, Path: "/accounts/verify", Body: BodyJSON, Key: "account", Retry: RetryUnlessSent, Expand: true})
	AccountsFeedback     = row(&Op{Name: "Accounts.Feedback", Method: http.MethodPost, Path: "/feedback", Body: BodyJSON, Retry: RetryUnlessSent})
	AccountsTokenize     = row(&Op{Name: "Accounts.Tokenize", Method: http.MethodPost, Path: "/accounts/tokenize", Body: BodyJSON, Retry: RetryUnlessSent})

	CountriesList = row(&Op{Name: "Countries.List", Method: http.MethodGet, Path: "/countries", Key: "countries", Limit: MaxCountries})

	CustomersCreate = row(&Op{Name: "Customers.Create", Method: http.MethodPost, Path: "/customers", Body: BodyJSON, Key: "customer", Retry: RetryUnlessSent})
	CustomersUpdate = row(&Op{Name: "Customers.Update", Method: http.MethodPost, Path: "/customers/{customerId}", Body: BodyJSON, Key: "customer", Retry: RetryUnlessSent})
	// UpdateByExternalID sends the id as ?externalId=.
	CustomersUpdateByExternalID = row(&Op{Name: "Customers.UpdateByExternalID", Method: http.MethodPost, Path: "/customers", Body: BodyJSON, Key: "customer", Retry: RetryUnlessSent})
	CustomersGet                = row(&Op{Name: "Customers.Get", Method: http.MethodGet, Path: "/customers/{customerId}", Key: "customer"})
	CustomersList               = row(&Op{Name: "Customers.List", Method: http.MethodGet, Path: "/customers", Key: "customers", Limit: MaxCustomers})
	CustomersLookup             = row(&Op{Name: "Customers.Lookup", Method: http.MethodGet, Path: "/customers/lookup"})

	DisputesCreate = row(&Op{Name: "Disputes.Create", Method: http.MethodPost, Path: "/collections/recovery/dispute", Body: BodyJSON, Key: "transaction", Retry: RetryKeyed})

	IdentityUser                 = row(&Op{Name: "Identity.User", Method: http.MethodGet, Path: "/transactions/{transactionId}/user", Key: "user", Expand: true, NotReady: true})
	IdentityDetail               = row(&Op{Name: "Identity.Detail", Method: http.MethodGet, Path: "/transactions/{transactionId}/user/detail", Key: "detail", Expand: true, NotReady: true})
	IdentityCustomerVerification = row(&Op{Name: "Identity.CustomerVerification", Method: http.MethodGet, Path: "/transactions/{transactionId}/payment/customer/verify", Key: "matches", Limit: MaxCustomerMatches})
	// Register and Void: the same feedback, two statuses.
	IdentityFeedback = row(&Op{Name: "Identity.Register and Identity.Void", Method: http.MethodPost, Path: "/transactions/{transactionId}/feedback", Body: BodyJSON, Retry: RetryUnlessSent})

	PaymentProvidersList = row(&Op{Name: "PaymentProviders.List", Method: http.MethodGet, Path: "/paymentProviders", Key: "paymentProviders"})

	PaymentsGet  = row(&Op{Name: "Payments.Get", Method: http.MethodGet, Path: "/payments/{paymentId}", Key: "payment"})
	PaymentsList = row(&Op{Name: "Payments.List", Method: http.MethodGet, Path: "/payments", Key: "payments"})

	TransactionsGet          = row(&Op{Name: "Transactions.Get", Method: http.MethodGet, Path: "/transactions/{transactionId}", Key: "transaction"})
	TransactionsList         = row(&Op{Name: "Transactions.List", Method: http.MethodGet, Path: "/transactions", Key: "transactions"})
	TransactionsEstablish    = row(&Op{Name: "Transactions.Establish", Method: http.MethodPost, Path: "/establish", Body: BodyJSON, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsPreauthorize = row(&Op{Name: "Transactions.Preauthorize", Method: http.MethodPost, Path: "/transactions/{transactionId}/capture/preAuth", Body: BodyJSON, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsCapture      = row(&Op{Name: "Transactions.Capture", Method: http.MethodPost, Path: "/transactions/{transactionId}/capture", Body: BodyForm, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsDeposit      = row(&Op{Name: "Transactions.Deposit", Method: http.MethodPost, Path: "/transactions/{transactionId}/deposit", Body: BodyForm, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsRefund       = row(&Op{Name: "Transactions.Refund", Method: http.MethodPost, Path: "/transactions/{transactionId}/refund", Body: BodyJSON, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsReclaim      = row(&Op{Name: "Transactions.Reclaim", Method: http.MethodPost, Path: "/transactions/{transactionId}/reclaim", Body: BodyJSON, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsCancel       = row(&Op{Name: "Transactions.Cancel", Method: http.MethodPost, Path: "/transactions/{transactionId}/cancel", Body: BodyJSON, Key: "transaction", Retry: RetryUnlessSent})
	TransactionsRefresh      = row(&Op{Name: "Transactions.Refresh", Method: http.MethodPost, Path: "/transactions/{transactionId}/refresh", Body: BodyJSON, Key: "refresh", Retry: RetryUnlessSent})
)

// Bounds of the lists the service returns whole, in one response, with no
// count asked: the OpenAPI gives no maxItems, so each is the most its list
// can legitimately hold, with room to spare. The accounts a user selected
// in one authorization and the attributes compared for one customer
// verification are a handful; 1,000 of either is already absurd. A
// merchant's customers may be many, but a decoded item costs about 1.4 KiB
// of Go structure even when its JSON is an empty object (measured through
// Customers.List: the struct, and the slice grown by doubling), so an
// unbounded count of three-byte "{}" items turns the 8 MiB body cap into
// ~3 GB. 20,000 customers cost about 26 MiB of such structure, under 4
// times the body cap (TestUnpagedListBoundedBeforeDecoding), and a list
// that long is already 4 to 8 MiB of real records (200 to 400 bytes each:
// ids, name, email, merchant id, timestamps), near the cap itself. A
// merchant with more customers reads them by externalId or customerId.
const (
	MaxSelectedAccounts = 1_000
	MaxCustomerMatches  = 1_000
	MaxCountries        = 1_000 // ISO 3166 has 249
	MaxCustomers        = 20_000
)
