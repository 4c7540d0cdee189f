package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AnswersPerMode is how many answers are generated per operation in each
// mode (required properties only, and all properties).
const AnswersPerMode = 20

var testCreds = bankpay.Credentials{AccessID: "contract-access", AccessKey: bankpay.NewSecret("contract-key-9QzT"), MerchantID: "1002463580"}

// seedOf gives each operation its own deterministic seeds.
func seedOf(op string, i int) int64 {
	h := fnv.New64a()
	h.Write([]byte(op))
	return int64(h.Sum64()>>1) + int64(i)
}

// recorder is a fake operator: it validates each request against the
// contract and answers with the body it is given.
type recorder struct {
	val    *Validators
	mu     sync.Mutex
	status int
	body   []byte
	// problems are the request's validation errors no allow-list row excuses.
	problems []string
	seen     map[string]bool
	requests int
	// sent is the method and path of the last request.
	sent string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.sent = req.Method + " " + strings.TrimPrefix(req.URL.Path, "/api/v1")
	opID, errs := r.val.Request(req)
	for _, d := range errs {
		if row := Excuse(InRequest, opID, d); row != nil {
			markUsed(row.ID)
			continue
		}
		p := fmt.Sprintf("%s %s (%s): %s", req.Method, req.URL.Path, opID, d)
		if !r.seen[p] {
			r.seen[p] = true
			r.problems = append(r.problems, p+" [body "+clip(string(body))+"]")
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body)
}

// part returns the part of the answer gen that result was decoded from: the
// array of a list answer for a slice or a Page, the object under a wrapper
// key the model has no field for.
func part(fieldMap *FieldMap, gen any, result any) (any, any) {
	rv := reflect.ValueOf(result)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() == reflect.Struct && strings.HasPrefix(rv.Type().Name(), "Page[") {
		rv = rv.FieldByName("Items")
		result = rv.Interface()
	}
	obj, ok := gen.(map[string]any)
	if !ok {
		return gen, result
	}
	switch rv.Kind() {
	case reflect.Slice:
		var arrays []string
		for k, v := range obj {
			if _, ok := v.([]any); ok {
				arrays = append(arrays, k)
			}
		}
		if len(arrays) == 1 {
			return obj[arrays[0]], result
		}
	case reflect.Struct:
		if len(obj) == 1 {
			for k, v := range obj {
				if _, _, mapped := fieldMap.Lookup(rv.Type(), k); !mapped {
					if _, isObj := v.(map[string]any); isObj {
						return v, result
					}
				}
			}
		}
	}
	return gen, result
}

type opFigures struct {
	generated, decoded, equal, compared, requests int
	wrapped                                       int // answers served in the spec's wrapped shape
	refused                                       int // answers refused by a "refused without" row
	unmodelled                                    map[string]bool
}

// specWrappers are the operations whose answer the spec wraps under one
// key where the OpenAPI's is bare (docs/wire.md, REST responses): the
// transaction answers under "transaction", the bank's and the identity
// user under "user". Establish is not one: the spec's answer there is a
// transaction, not the OpenAPI's establish data wrapped (its transaction
// shape is the other transaction answers').
var specWrappers = map[string]string{
	"transactions_get-transaction":                                 "transaction",
	"transactions_post-transactions-deposit":                       "transaction",
	"transactions_post-transactions-transactionId-capture":         "transaction",
	"transactions_post-transactions-transactionId-capture-preauth": "transaction",
	"transactions_post-transactions-cancel":                        "transaction",
	"transactions_post-transactions-refund":                        "transaction",
	"transactions_post-transactions-transactionId-reclaim":         "transaction",
	"disputeManagement_post-dispute-recovery":                      "transaction",
	"accountData_get-user":                                         "user",
	"identity_get-trustly-id-user-data":                            "user",
}

// fitIdentity makes a generated answer's transactions readable as the SDK
// requires of a transaction's identity (issue 25: "required means
// present"), with values the contract's schema allows (strings): an
// amount is a decimal ("12.34", the OpenAPI's words "2 decimal places"),
// never a word of the list, the answer of Get or Cancel is about the
// transaction asked (TxnID), that of a call making a transaction from
// another is made from the one asked (madeFromAsked), and that of
// Payments.Get or Customers.Get is about the payment or customer asked
// (PaymentID, CustomerID). The transactions are the objects with a
// transactionId: the answer itself, the one under "transaction" and the
// items under "transactions".
func fitIdentity(opID string, gen any, seed int64) {
	root, ok := gen.(map[string]any)
	if !ok {
		return
	}
	// The reads of one resource by its id: about the one asked.
	for _, r := range []struct{ op, key, field, id string }{
		{"payments_get-payments", "payment", "paymentId", PaymentID},
		{"customers_get-customers-customerId", "customer", "customerId", CustomerID},
	} {
		if opID != r.op {
			continue
		}
		for _, v := range []any{root, root[r.key]} {
			if p, ok := v.(map[string]any); ok && p[r.field] != nil {
				p[r.field] = r.id
			}
		}
	}
	txns := []any{root, root["transaction"]}
	if items, ok := root["transactions"].([]any); ok {
		txns = append(txns, items...)
	}
	for i, v := range txns {
		txn, ok := v.(map[string]any)
		if _, isTxn := txn["transactionId"]; !ok || !isTxn {
			continue // not a transaction
		}
		if a, ok := txn["amount"].(string); ok && !decimalAmount.MatchString(a) {
			txn["amount"] = fmt.Sprintf("%d.%02d", (seed>>8)%10000+int64(i), seed%100)
		}
		if opID == "transactions_get-transaction" || opID == "transactions_post-transactions-cancel" {
			txn["transactionId"] = TxnID
		}
		if from, ok := madeFromAsked[opID]; ok && txn["originalTransactionId"] != nil {
			txn["originalTransactionId"] = from // made from the transaction asked
		}
	}
}

// madeFromAsked are the operations whose answer is a transaction made from
// the one the call names (the SDK refuses one whose originalTransactionId
// names another), with the id their calls name.
var madeFromAsked = map[string]string{
	"transactions_post-transactions-deposit":                       AuthID,
	"transactions_post-transactions-transactionId-capture":         AuthID,
	"transactions_post-transactions-transactionId-capture-preauth": AuthID,
	"transactions_post-transactions-refund":                        TxnID,
	"transactions_post-transactions-transactionId-reclaim":         TxnID,
}

// decimalAmount is an amount the SDK reads as a transaction's.
var decimalAmount = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// TestOperationRows: the SDK's operation rows (internal/ops, which the SDK
// calls with and the sandbox routes) against the OpenAPI, which is
// independent of them: each row of an operation has the method and path
// of its operationId, and every row is in exactly one operation, so a
// typo in a row's method or path fails here.
func TestOperationRows(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	owner := map[*ops.Op]string{}
	for _, op := range Operations() {
		want := spec.Operations[op.ID]
		require.NotNil(t, want, "%s: not an operation of the OpenAPI", op.ID)
		assert.NotEmpty(t, op.Rows, "%s: no row of the SDK", op.ID)
		for _, row := range op.Rows {
			assert.Equal(t, want.Method+" "+want.Path, row.Method+" "+row.Path, "%s: the row of %s", op.ID, row.Name)
			assert.NotContains(t, owner, row, "%s: also the row of %s", row.Name, owner[row])
			owner[row] = op.ID
		}
	}
	for _, row := range ops.All() {
		assert.Contains(t, owner, row, "%s (%s %s): in no operation of the contract", row.Name, row.Method, row.Path)
	}
}

// sentByRow reports whether sent ("METHOD /path", below the base URL) is
// the method and path of one of rows, its {name} segments filled.
func sentByRow(rows []*ops.Op, sent string) bool {
	method, path, _ := strings.Cut(sent, " ")
	got := strings.Split(path, "/")
	for _, row := range rows {
		want := strings.Split(row.Path, "/")
		match := row.Method == method && len(want) == len(got)
		for i := 0; match && i < len(want); i++ {
			match = want[i] == got[i] || (strings.HasPrefix(want[i], "{") && got[i] != "")
		}
		if match {
			return true
		}
	}
	return false
}

func TestOperations(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	fieldMap, err := LoadFieldMap()
	require.NoError(t, err)
	cov := &MapCoverage{Used: map[string]bool{}}
	var roots []reflect.Type

	ops := Operations()
	var have []string
	for _, op := range ops {
		have = append(have, op.ID)
	}
	sort.Strings(have)
	require.Equal(t, spec.OperationIDs(), have, "every operation of the contract has its SDK calls, and only those")

	figures := map[string]*opFigures{}
	for _, op := range ops {
		t.Run(op.ID, func(t *testing.T) {
			status, schema := spec.Operations[op.ID].SuccessSchema()
			require.NotNil(t, schema, "success schema")
			rec := &recorder{val: val, status: status, seen: map[string]bool{}}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			f := &opFigures{unmodelled: map[string]bool{}}
			figures[op.ID] = f
			failures := map[string][]string{} // reason → answers
			nFailed := 0
			for i := 0; i < 2*AnswersPerMode; i++ {
				mode := Mode(i % 2)
				seed := seedOf(op.ID, i/2)
				gen, whole, err := Generate(schema, seed, mode)
				require.NoError(t, err)
				for _, id := range whole {
					markUsed(id)
				}
				fitIdentity(op.ID, gen, seed)
				// Half the answers of an operation the spec wraps come in
				// its shape ({"transaction":{…}}), compared by value too.
				served, label := any(gen), fmt.Sprint(mode)
				if w := specWrappers[op.ID]; w != "" && i%4 >= 2 {
					served, label = map[string]any{w: gen}, label+" "+ShapeWrapped
					f.wrapped++
				}
				body, err := json.Marshal(served)
				require.NoError(t, err)
				rec.mu.Lock()
				rec.body, rec.sent = body, ""
				rec.mu.Unlock()
				f.generated++
				call := op.Calls[i%len(op.Calls)]
				result, err := call(context.Background(), c)
				rec.mu.Lock()
				sent := rec.sent
				rec.mu.Unlock()
				assert.True(t, sentByRow(op.Rows, sent), "%q is not the method and path of a row of %s", sent, op.ID)
				if d := RefusedWithout(op.ID, gen); d != nil {
					// The SDK refuses it by design (the row's wire.md row).
					if !errors.Is(err, bankpay.ErrInvalidResponse) {
						nFailed++
						reason := "not refused with ErrInvalidResponse (" + d.ID + ")"
						failures[reason] = append(failures[reason], fmt.Sprintf("seed %d %v: %s (err %v)", seed, label, body, err))
						continue
					}
					markUsed(d.ID)
					f.refused++
					continue
				}
				if err != nil {
					reason := "fails to decode: " + err.Error()
					nFailed++
					failures[reason] = append(failures[reason], fmt.Sprintf("seed %d %v: %s", seed, label, body))
					continue
				}
				f.decoded++
				if result != nil && f.decoded == 1 {
					// The map against the extract: every property of the
					// answer's schema mapped or listed as unread.
					ps, pt := PartSchema(fieldMap, schema, reflect.TypeOf(result))
					roots = append(roots, pt)
					for _, p := range fieldMap.CheckSchema(ps, pt, "", cov) {
						t.Errorf("field map: %s", p)
					}
				}
				if result == nil {
					f.equal++
					continue
				}
				for _, d := range AllowList {
					if d.Where == InAnswer && d.Reshape != nil && slices.Contains(d.Ops, op.ID) && ApplyReshape(gen, d.Reshape) > 0 {
						markUsed(d.ID)
					}
				}
				g, r := part(fieldMap, gen, result)
				cmp := Compare(fieldMap, g, r)
				f.compared += cmp.Compared
				for k := range cmp.Unmapped {
					nFailed++
					reason := "a property neither in the field map nor in the unread list: " + k
					failures[reason] = append(failures[reason], fmt.Sprintf("seed %d %v", seed, label))
				}
				for k := range cmp.Unmodelled {
					f.unmodelled[k] = true
				}
				if len(cmp.Mismatches) > 0 {
					nFailed++
					for _, m := range cmp.Mismatches {
						reason := "decoded with a value changed: " + generalise(m[:strings.Index(m, ":")]) + m[strings.LastIndex(m, " ("):]
						failures[reason] = append(failures[reason], fmt.Sprintf("seed %d %v: %s", seed, label, m))
					}
					continue
				}
				f.equal++
			}
			rec.mu.Lock()
			f.requests = rec.requests
			problems := append([]string(nil), rec.problems...)
			rec.mu.Unlock()
			assert.Equal(t, f.generated, f.requests, "one request per answer")
			for _, p := range problems {
				t.Errorf("request not in the contract and not allow-listed: %s", p)
			}
			if nFailed > 0 {
				var b strings.Builder
				for reason, answers := range failures {
					fmt.Fprintf(&b, "\n  %d× %s\n     e.g. %s", len(answers), reason, clip(answers[0]))
				}
				t.Errorf("%d of %d answers failed:%s", nFailed, f.generated, b.String())
			}
		})
	}
	if len(figures) == len(ops) {
		markRan(InRequest, InAnswer)
	}
	// The map both ways: every Go field of every answer's type is mapped
	// (or off the wire), and every row is used by some operation's schema.
	for _, p := range fieldMap.CheckModels(roots...) {
		t.Errorf("field map: %s", p)
	}
	if !t.Failed() {
		for _, set := range []map[string]map[string]string{fieldMap.Fields, fieldMap.Unread} {
			for typ, props := range set {
				for prop := range props {
					if _, elsewhere := fieldMap.Elsewhere[typ][prop]; !cov.Used[typ+" "+prop] && !elsewhere && !reshapeTarget(op0Reshapes(), typ, prop) {
						t.Errorf("field map: row %s %s names a property no operation's schema has (stale)", typ, prop)
					}
				}
			}
		}
	}
	var lines []string
	total := opFigures{}
	for _, op := range ops {
		f := figures[op.ID]
		if f == nil {
			continue
		}
		lines = append(lines, fmt.Sprintf("%-62s generated %3d (wrapped %2d) decoded %3d equal %3d refused %2d values compared %5d requests %3d unmodelled fields %d",
			op.ID, f.generated, f.wrapped, f.decoded, f.equal, f.refused, f.compared, f.requests, len(f.unmodelled)))
		assert.Positive(t, f.decoded, "%s: no generated answer decoded", op.ID)
		if specWrappers[op.ID] != "" {
			assert.Positive(t, f.wrapped, "%s: no answer in the spec's wrapped shape", op.ID)
		}
		total.generated += f.generated
		total.decoded += f.decoded
		total.equal += f.equal
		total.compared += f.compared
		total.requests += f.requests
	}
	t.Logf("answers per operation:\n%s\ntotal: generated %d, decoded %d, equal %d, values compared %d, requests validated %d",
		strings.Join(lines, "\n"), total.generated, total.decoded, total.equal, total.compared, total.requests)
}

// errorAnswer is one non-2xx answer the OpenAPI declares.
type errorAnswer struct {
	op     string
	status int
}

// declaredErrors returns every non-2xx answer with a JSON schema the
// OpenAPI declares, sorted.
func declaredErrors(spec *Spec) []errorAnswer {
	var out []errorAnswer
	for id, op := range spec.Operations {
		for code := range op.Operation.Responses.Codes.FromOldest() {
			status, err := strconv.Atoi(code)
			if err != nil || status < 300 || op.SchemaFor(status) == nil || len(SchemaProperties(op.SchemaFor(status))) == 0 {
				continue
			}
			out = append(out, errorAnswer{id, status})
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// wantError is the code and message the SDK must read from an error body:
// the first item of {"errors":[…]}, or the flat BaseException, or
// {"message":…} (code 0).
func wantError(body map[string]any) (code int, message string, ok bool) {
	item := body
	if list, isList := body["errors"].([]any); isList {
		if len(list) == 0 {
			return 0, "", true
		}
		if item, ok = list[0].(map[string]any); !ok {
			return 0, "", false
		}
	} else if _, has := body["errorsList"]; has {
		return 0, "", false // a lookup answer: not an error shape the SDK reads
	}
	if c, has := item["code"]; has && c != nil {
		n, err := strconv.ParseFloat(scalarText(c), 64)
		if err != nil {
			return 0, "", false
		}
		code = int(n)
	}
	message, _ = item["message"].(string)
	return code, strings.TrimSpace(message), true
}

var longDigits = regexp.MustCompile(`[0-9]{5}`)

// TestErrorAnswers generates every error answer the OpenAPI declares for
// its operation and checks that the SDK's call returns an *APIError with
// the status, code and message of the body.
func TestErrorAnswers(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	calls := map[string]Call{}
	for _, op := range Operations() {
		calls[op.ID] = op.Calls[0]
	}
	declared := declaredErrors(spec)
	require.GreaterOrEqual(t, len(declared), 17, "the OpenAPI's declared error answers")
	shapes := map[string]int{}
	for _, ea := range declared {
		t.Run(fmt.Sprintf("%s %d", ea.op, ea.status), func(t *testing.T) {
			rec := &recorder{val: val, status: ea.status, seen: map[string]bool{}}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			schema := spec.Operations[ea.op].SchemaFor(ea.status)
			for i := 0; i < 2*AnswersPerMode/4; i++ {
				gen, whole, err := Generate(schema, seedOf(fmt.Sprintf("%s %d", ea.op, ea.status), i), Mode(i%2))
				require.NoError(t, err)
				for _, id := range whole {
					markUsed(id)
				}
				body, err := json.Marshal(gen)
				require.NoError(t, err)
				rec.mu.Lock()
				rec.body = body
				rec.mu.Unlock()
				_, err = calls[ea.op](context.Background(), c)
				var apiErr *bankpay.APIError
				if !assert.True(t, errors.As(err, &apiErr), "body %s: want an *APIError, got %v", body, err) {
					continue
				}
				assert.Equal(t, ea.status, apiErr.StatusCode, "body %s", body)
				obj, _ := gen.(map[string]any)
				code, message, ok := wantError(obj)
				if !ok {
					shapes["not an error shape"]++
					continue
				}
				switch {
				case obj["errors"] != nil:
					shapes["errors"]++
				case obj["code"] != nil || obj["domain"] != nil:
					shapes["BaseException"]++
				default:
					shapes["message"]++
				}
				assert.Equal(t, code, apiErr.Code, "body %s: code", body)
				if longDigits.MatchString(message) {
					assert.Contains(t, apiErr.Message, "[redacted]", "body %s: a digit run is masked", body)
				} else {
					assert.Equal(t, message, apiErr.Message, "body %s: message", body)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, p := range rec.problems {
				t.Errorf("request not in the contract and not allow-listed: %s", p)
			}
		})
	}
	t.Logf("%d declared error answers; bodies by shape: %v", len(declared), shapes)
}

// PagesPerList is how many generated non-empty pages an iterator reads
// before the empty page that ends its list.
const PagesPerList = 3

// pager is a fake operator serving a finite list: each request is
// validated against the contract, and answered with the next page of
// pages (the last one empty); a request after it is a failure.
type pager struct {
	val *Validators
	// single answers a read of one transaction (GET /transactions/{id}:
	// the lookup reads its original first), when not nil.
	single   []byte
	mu       sync.Mutex
	pages    [][]byte
	starts   []string // the startIndex of each request
	problems []string
}

func (p *pager) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	opID, errs := p.val.Request(req)
	for _, d := range errs {
		if row := Excuse(InRequest, opID, d); row != nil {
			markUsed(row.ID)
			continue
		}
		p.problems = append(p.problems, fmt.Sprintf("%s %s (%s): %s", req.Method, req.URL, opID, d))
	}
	if p.single != nil && strings.HasPrefix(req.URL.Path, "/api/v1/transactions/") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(p.single)
		return
	}
	n := len(p.starts)
	p.starts = append(p.starts, req.URL.Query().Get("startIndex"))
	if n >= len(p.pages) {
		p.problems = append(p.problems, fmt.Sprintf("request %d after the empty page: %s", n+1, req.URL))
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(p.pages[n])
}

// listPages generates PagesPerList answers of operation op, each with a
// non-empty array under its one array property (returned as key), and
// their items in order; prep, when not nil, may change each item (its
// index in the whole list given) before the answer is encoded.
func listPages(t *testing.T, spec *Spec, op string, prep func(i int, item map[string]any)) (key string, pages []map[string]any, items []any) {
	t.Helper()
	_, schema := spec.Operations[op].SuccessSchema()
	require.NotNil(t, schema, "%s: success schema", op)
	for seed := seedOf("iterate "+op, 0); len(pages) < PagesPerList; seed++ {
		gen, whole, err := Generate(schema, seed, Mode(len(pages)%2))
		require.NoError(t, err)
		fitIdentity(op, gen, seed)
		for _, id := range whole {
			markUsed(id)
		}
		obj, ok := gen.(map[string]any)
		require.True(t, ok, "%s: an object", op)
		var arrays []string
		for k, v := range obj {
			if _, ok := v.([]any); ok {
				arrays = append(arrays, k)
			}
		}
		require.Len(t, arrays, 1, "%s: one array property", op)
		key = arrays[0]
		arr := obj[key].([]any)
		if len(arr) == 0 || seed > seedOf("iterate "+op, 0)+100 {
			require.NotEmpty(t, arr, "%s: a non-empty page within 100 seeds", op)
			continue
		}
		for _, it := range arr {
			if m, ok := it.(map[string]any); ok && prep != nil {
				prep(len(items), m)
			}
			items = append(items, it)
		}
		pages = append(pages, obj)
	}
	return key, pages, items
}

// servePages starts a pager over pages and, last, an empty page, and a
// client of it.
func servePages(t *testing.T, val *Validators, key string, pages []map[string]any) (*pager, *bankpay.Client) {
	t.Helper()
	p := &pager{val: val}
	for _, pg := range pages {
		b, err := json.Marshal(pg)
		require.NoError(t, err)
		p.pages = append(p.pages, b)
	}
	empty := map[string]any{}
	for k, v := range pages[len(pages)-1] {
		empty[k] = v
	}
	empty[key] = []any{}
	b, err := json.Marshal(empty)
	require.NoError(t, err)
	p.pages = append(p.pages, b)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
	require.NoError(t, err)
	return p, c
}

// collect reads an iterator whole.
func collect[T any](t *testing.T, seq func(func(*T, error) bool)) []*T {
	t.Helper()
	var out []*T
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// TestIterators drives Transactions.List, Payments.List and
// PaymentProviders.List over a finite list of generated pages ending with
// an empty one: every request validated, the offsets asked those of the
// items read, every item compared by value through the field map, and no
// request after the empty page.
func TestIterators(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	fieldMap, err := LoadFieldMap()
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		op   string
		read func(c *bankpay.Client) []any
		page func(c *bankpay.Client) (start, perPage int, err error) // ListPage at startIndex 7
	}{
		{"transactions_list-transactions", func(c *bankpay.Client) []any {
			return anys(collect(t, c.Transactions.List(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 100}})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{StartIndex: 7, Count: 100}})
			return pageMeta(pg, err)
		}},
		{"payments_list-payments", func(c *bankpay.Client) []any {
			return anys(collect(t, c.Payments.List(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{Count: 100}})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.Payments.ListPage(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{StartIndex: 7, Count: 100}})
			return pageMeta(pg, err)
		}},
		{"paymentProviders_get-paymentProviders", func(c *bankpay.Client) []any {
			return anys(collect(t, c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Count: 100})))
		}, func(c *bankpay.Client) (int, int, error) {
			pg, err := c.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{StartIndex: 7, Count: 100})
			return pageMeta(pg, err)
		}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			key, pages, items := listPages(t, spec, tc.op, nil)
			p, c := servePages(t, val, key, pages)
			got := tc.read(c)
			p.mu.Lock()
			defer p.mu.Unlock()
			assert.Empty(t, p.problems)
			want, start := []string{}, 0
			for _, pg := range pages {
				want = append(want, strconv.Itoa(start))
				start += len(pg[key].([]any))
			}
			want = append(want, strconv.Itoa(start))
			assert.Equal(t, want, p.starts, "the offsets asked: those of the items read, up to the empty page")
			require.Len(t, got, len(items), "every item of every page, once")
			compared := 0
			for i := range items {
				cmp := Compare(fieldMap, items[i], got[i])
				assert.Empty(t, cmp.Mismatches, "item %d", i)
				assert.Empty(t, cmp.Unmapped, "item %d", i)
				compared += cmp.Compared
			}
			assert.Positive(t, compared, "values compared")

			// The page metadata, by value: startIndex and itemsPerPage as
			// the answer gives them (the offset asked, and 0, when it
			// gives none).
			for i, pg := range pages {
				_, c := servePages(t, val, key, pages[i:i+1])
				start, per, err := tc.page(c)
				require.NoError(t, err)
				wantStart, wantPer := 7, 0
				if v, ok := pg["startIndex"]; ok {
					wantStart = wholeOf(t, v)
				}
				if v, ok := pg["itemsPerPage"]; ok {
					wantPer = wholeOf(t, v)
				}
				assert.Equal(t, wantStart, start, "page %d startIndex (sent %v)", i, pg["startIndex"])
				assert.Equal(t, wantPer, per, "page %d itemsPerPage (sent %v)", i, pg["itemsPerPage"])
			}
			t.Logf("%d pages, %d items, %d values compared", len(pages), len(items), compared)
		})
	}
}

// wholeOf is a generated whole number (json.Number, float64, "3.0").
func wholeOf(t *testing.T, v any) int {
	t.Helper()
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	require.NoError(t, err)
	return int(f)
}

// pageMeta is a page's StartIndex and ItemsPerPage.
func pageMeta[T any](pg *bankpay.Page[T], err error) (int, int, error) {
	if err != nil {
		return 0, 0, err
	}
	return pg.StartIndex, pg.ItemsPerPage, nil
}

// anys is a slice of pointers as []any.
func anys[T any](in []*T) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}

// TestFind drives FindAuthorization and FindByMerchantReference over a
// finite list of generated transaction pages, one item (the second) made
// the one sought: every transaction gets a distinct id and a reference
// other than the one sought. The transaction found must be that
// item, compared by value through the field map.
func TestFind(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	fieldMap, err := LoadFieldMap()
	require.NoError(t, err)
	const op, ref, original = "transactions_list-transactions", "sought-ref-1", "100000000000777"
	for _, tc := range []struct {
		name string
		mark func(item map[string]any) // makes item the one sought
		find func(c *bankpay.Client) (*models.Transaction, error)
	}{
		{"FindAuthorization", func(item map[string]any) { delete(item, "originalTransactionId") },
			func(c *bankpay.Client) (*models.Transaction, error) {
				found, ok, err := c.Transactions.FindAuthorization(context.Background(), ref)
				if err == nil && !ok {
					err = fmt.Errorf("not found")
				}
				return found, err
			}},
		{"FindByMerchantReference", func(item map[string]any) {
			item["originalTransactionId"] = original
			item["transactionType"] = "6" // a deposit, the Type sought
		},
			func(c *bankpay.Client) (*models.Transaction, error) {
				return c.Transactions.FindByMerchantReference(context.Background(),
					&bankpay.FindParams{MerchantReference: ref, OriginalTransactionID: original, Type: models.TypeDeposit})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sought := -1
			key, pages, items := listPages(t, spec, op, func(i int, item map[string]any) {
				item["transactionId"] = strconv.Itoa(200000000000000 + i)
				item["merchantReference"] = "other-" + strconv.Itoa(i)
				if i > 0 && sought < 0 {
					sought = i
					item["merchantReference"] = ref
					tc.mark(item)
				} else if tc.name == "FindByMerchantReference" {
					item["originalTransactionId"] = original
				}
			})
			require.GreaterOrEqual(t, sought, 0)
			p, c := servePages(t, val, key, pages)
			// The original, an authorization, which the lookup reads first.
			p.single = []byte(`{"transactionId":"` + original + `","transactionType":"1","status":"2","amount":"10.00","currency":"USD"}`)
			found, err := tc.find(c)
			require.NoError(t, err)
			p.mu.Lock()
			assert.Empty(t, p.problems)
			p.mu.Unlock()
			cmp := Compare(fieldMap, items[sought], found)
			assert.Positive(t, cmp.Compared, "values compared")
			assert.Empty(t, cmp.Mismatches)
			assert.Empty(t, cmp.Unmapped)
			assert.Equal(t, ref, found.MerchantReference)
		})
	}
}

// requestCase is one SDK call with every field given a value of its own,
// and the request it must send, written by hand from the OpenAPI's (or the
// spec's) property names: never derived from the SDK's tags. A property
// renamed, swapped, dropped or added fails.
type requestCase struct {
	name string
	call func(ctx context.Context, c *bankpay.Client) error
	// want is every body field (nested objects dotted, numbers as written)
	// or, for a GET, every query parameter.
	want map[string]string
	// query, for a call with a body, is its exact query (nil: none).
	query map[string]string
}

func requestCases() []requestCase {
	return []requestCase{
		{"establish", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Establish(ctx, &models.EstablishData{Currency: models.USD, Amount: "25.00", MerchantReference: "mref-1",
				Description: "desc-1", PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://r.example/ok", CancelURL: "https://r.example/no",
				NotificationURL: "https://r.example/hook", KYCType: 1, DisplayAmount: "24.00",
				Customer: &models.Customer{ExternalID: "ext-1", Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
					Address: &models.Address{Address1: "1 Main St", Address2: "Apt 2", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}},
			})
			return err
		}, map[string]string{"accessId": "contract-access", "merchantId": "1002463580", "currency": "USD", "amount": "25.00",
			"merchantReference": "mref-1", "description": "desc-1", "paymentType": "Deferred", "returnUrl": "https://r.example/ok",
			"cancelUrl": "https://r.example/no", "notificationUrl": "https://r.example/hook", "kycType": "1", "displayAmount": "24.00",
			"customer.externalId": "ext-1", "customer.name": "Ada Lovelace", "customer.email": "ada@example.com", "customer.phone": "+12025550143",
			"customer.address.address1": "1 Main St", "customer.address.address2": "Apt 2", "customer.address.city": "Springfield",
			"customer.address.state": "IL", "customer.address.zip": "62701", "customer.address.country": "US", "requestSignature": "*"},
			map[string]string{"createTransaction": "true"}},
		{"deposit", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Deposit(ctx, AuthID, &bankpay.DepositParams{MerchantReference: "dep-9", Amount: "10.00",
				InstantPayoutRequest: true, ExternalTier: "gold"})
			return err
		}, map[string]string{"merchantReference": "dep-9", "amount": "10.00", "instantPayoutRequest": "true", "externalTier": "gold"}, nil},
		{"capture", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Capture(ctx, AuthID, &bankpay.CaptureParams{MerchantReference: "cap-9", Amount: "5.00",
				SplitToken: "Ab+cD/eF=", InteractionID: "int-9",
				Beneficiary: &models.Beneficiary{Name: "Bea Neff", Address: &models.Address{City: "Lyon", Country: "FR"}}})
			return err
		}, map[string]string{"merchantReference": "cap-9", "amount": "5.00", "splitToken": "Ab+cD/eF=", "interactionId": "int-9",
			"beneficiary.name": "Bea Neff", "beneficiary.address.city": "Lyon", "beneficiary.address.country": "FR"}, nil},
		{"preauthorize", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Preauthorize(ctx, AuthID, &bankpay.PreauthorizeParams{MerchantReference: "pa-9", Amount: "99.00", Period: 4,
				SplitToken: "Ab+cD/eF=", ExternalTier: "gold", WithdrawalMethod: "Cash", InteractionID: "int-8"})
			return err
		}, map[string]string{"merchantReference": "pa-9", "amount": "99.00", "period": "4", "splitToken": "Ab+cD/eF=", "externalTier": "gold",
			"metadata.remittance.withdrawalMethod": "Cash", "interactionId": "int-8"}, nil},
		{"refund", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.Refund(ctx, TxnID, &bankpay.RefundParams{MerchantReference: "rf-9", Amount: "40.00"})
			return err
		}, map[string]string{"merchantReference": "rf-9", "amount": "40.00"}, nil},
		{"customer create", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Ada Lovelace", ExternalID: "ext-2", Email: "ada@example.com",
				Phone: "+12025550143", Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}})
			return err
		}, map[string]string{"name": "Ada Lovelace", "externalId": "ext-2", "email": "ada@example.com", "phone": "+12025550143",
			"address.address1": "1 Main St", "address.city": "Springfield", "address.state": "IL", "address.zip": "62701", "address.country": "US",
			"merchantId": "1002463580"}, nil},
		{"transactions list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{MerchantReference: "ord-1", PaymentID: PaymentID,
				CustomerExternalID: ExternalID, OriginalTransactionID: AuthID, ListRange: bankpay.ListRange{StartIndex: 10, Count: 5}})
			return err
		}, map[string]string{"payment.merchantReference": "ord-1", "payment.paymentId": PaymentID, "payment.customer.externalId": ExternalID,
			"originalTransactionId": AuthID, "startIndex": "10", "count": "5"}, nil},
		{"payments list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Payments.ListPage(ctx, &bankpay.PaymentListParams{MerchantReference: "ord-2", CustomerID: CustomerID,
				AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized}, ListRange: bankpay.ListRange{Count: 7}})
			return err
		}, map[string]string{"merchantReference": "ord-2", "customer.customerId": CustomerID, "authorization.status": "2", "count": "7", "startIndex": "0"}, nil},
		// The codes the spec gives and the schema does not pin: Registered is
		// status 4, subStatus 559; Void status 13, subStatus 558; in the
		// spec's {"feedback":{…}} and flat beside it (the OpenAPI's).
		{"identity register", func(ctx context.Context, c *bankpay.Client) error {
			return c.Identity.Register(ctx, TxnID, "member 42")
		}, map[string]string{"status": "4", "subStatus": "559", "description": "member 42",
			"feedback.status": "4", "feedback.subStatus": "559", "feedback.description": "member 42"}, nil},
		{"identity void", func(ctx context.Context, c *bankpay.Client) error {
			return c.Identity.Void(ctx, TxnID, "user left")
		}, map[string]string{"status": "13", "subStatus": "558", "description": "user left",
			"feedback.status": "13", "feedback.subStatus": "558", "feedback.description": "user left"}, nil},
		// verifyAccount only when asked.
		{"tokenize", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000009", RoutingNumber: "124003116"})
			return err
		}, map[string]string{"merchantId": "1002463580", "account.accountNumber": "1000000009", "account.routingNumber": "124003116"}, nil},
		{"tokenize verified", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000009", RoutingNumber: "124003116", VerifyAccount: true})
			return err
		}, map[string]string{"merchantId": "1002463580", "account.accountNumber": "1000000009", "account.routingNumber": "124003116"},
			map[string]string{"verifyAccount": "true"}},
		{"customers list", func(ctx context.Context, c *bankpay.Client) error {
			_, err := c.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: ExternalID})
			return err
		}, map[string]string{"externalId": ExternalID}, nil},
	}
}

// sentFields reads a request's body (JSON, nested objects dotted; or a
// form) or, without one, its query.
func sentFields(t *testing.T, req *http.Request, body []byte) url.Values {
	t.Helper()
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		require.NoError(t, d.Decode(&obj))
		return Flatten(obj)
	case "application/x-www-form-urlencoded":
		v, err := url.ParseQuery(string(body))
		require.NoError(t, err)
		return v
	}
	return req.URL.Query()
}

// TestRequestValues checks each request field by field against the
// hand-written expectation.
func TestRequestValues(t *testing.T) {
	for _, rc := range requestCases() {
		t.Run(rc.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				got    url.Values
				query  url.Values
				method string
				seen   int
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = sentFields(t, r, body)
				query, method = r.URL.Query(), r.Method
				seen++
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			}))
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			_ = rc.call(context.Background(), c) // the answer {} may not decode: the request is what is checked
			mu.Lock()
			defer mu.Unlock()
			require.Equal(t, 1, seen, "one request")
			for k, want := range rc.want {
				if want == "*" {
					assert.NotEmpty(t, got.Get(k), "%s: sent", k)
					continue
				}
				assert.Equal(t, want, got.Get(k), "field %s", k)
			}
			for k := range got {
				_, expected := rc.want[k]
				assert.True(t, expected, "field %s=%q sent, not expected", k, got.Get(k))
			}
			if rc.query != nil || len(query) > 0 && len(rc.want) > 0 && method != http.MethodGet {
				want := url.Values{}
				for k, v := range rc.query {
					want.Set(k, v)
				}
				assert.Equal(t, want, query, "the query")
			}
		})
	}
}
