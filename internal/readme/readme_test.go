package readme

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// snippet is one ```go block of README.md or docs/guide.md.
type snippet struct {
	line int    // of its first line of code
	file string // "README" or "docs/guide.md"
	code string
}

// where names the snippet's first line of code, as "README line N".
func (sn snippet) where() string { return fmt.Sprintf("%s line %d", sn.file, sn.line) }

// snippetFiles hold the Go blocks the test runs: the README and the guide
// its service sections moved to.
var snippetFiles = []struct{ name, path string }{{"README", "../../README.md"}, {"docs/guide.md", "../../docs/guide.md"}}

// readmeSnippets extracts the Go blocks of the README and the guide.
func readmeSnippets(t *testing.T) []snippet {
	var out []snippet
	for _, f := range snippetFiles {
		raw, err := os.ReadFile(f.path)
		require.NoError(t, err)
		var cur *snippet
		n := len(out)
		for i, l := range strings.Split(string(raw), "\n") {
			switch {
			case cur == nil && l == "```go":
				cur = &snippet{line: i + 2, file: f.name}
			case cur != nil && l == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.code += l + "\n"
			}
		}
		require.Greater(t, len(out), n, "no Go block in %s", f.name)
	}
	return out
}

// setups are what the README's fragments assume exists, by a line that
// identifies the fragment: the test fails on a fragment it does not know,
// so a new snippet gets its set-up here.
var setups = map[string]string{
	"t, err := c.Transactions.Get(ctx, transactionID)":           "transactionID := s.deferred(t); splitToken := s.splitToken(t, transactionID)",
	"rf, err := c.Transactions.Refund(ctx, captureID":            "captureID, depositID := s.completed(t); pendingID := s.pending(t)",
	"d := &models.EstablishData{":                                "",
	"bal, err := c.Accounts.Balance(ctx, retrievalID)":           "retrievalID := s.retrieval(t)",
	"u, err := c.Identity.User(ctx, id)":                         "id := s.identityReady(t)",
	"tier := 2":                                                  "",
	"cust, err := c.Customers.Create(ctx":                        "",
	"h := bankpay.NewWebhookHandler(creds":                       "creds, mux := s.creds, http.NewServeMux()",
	"dev := bankpay.NewWebhookHandler(creds, handle":             "creds, base, handle := s.creds, s.srv.URL, func(context.Context, *bankpay.Event) error { return nil }",
	"dep, err := c.Transactions.Deposit(ctx, id, p)\nvar apiErr": "id, p := s.disbursement(t), s.deposit()",
	"c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(base), bankpay.WithRetryNonIdempotent())": "creds, base, id, p := s.creds, s.srv.URL, s.disbursement(t), s.deposit()",
	"c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(base), bankpay.WithTransport(":            "creds, base, id, p, reqID := s.creds, s.srv.URL, s.disbursement(t), s.deposit(), \"req-1\"",
	"for txn, err := range c.Transactions.List(ctx":                                                   "id, p := s.disbursement(t), s.deposit(); if _, err := c.Transactions.Deposit(ctx, id, p); err != nil { return err }; ref := p.MerchantReference",
	"// the authorization Deposit was called with":                                                    "id, p := s.disbursement(t), s.deposit()",
}

var (
	topFunc  = regexp.MustCompile(`(?m)^func [\s\S]*?\n}\n`)
	declared = regexp.MustCompile(`(?m)^\s*([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*:=`)
)

// TestReadmeSnippets writes every README snippet into a program of its own
// module (the SDK replaced by this checkout) and runs it with go test: the
// full program's main against the sandbox, each fragment as a function with
// the variables it assumes, and each test function as a test. A snippet
// that does not compile, or fails against the sandbox, fails this test; so
// does any error a snippet's call returns into err that its code does not
// check itself (errChecked), and a fragment whose err is not nil at its end.
func TestReadmeSnippets(t *testing.T) {
	t.Parallel() // its go commands beside the other test's
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	var p program
	for i, sn := range readmeSnippets(t) {
		p.add(t, i, sn)
	}
	require.NotEmpty(t, p.mainFile)
	test := strings.Replace(harness, "//TOP", p.top.String(), 1)
	test = strings.Replace(test, "//FUNCS", p.funcs.String(), 1)
	test = strings.Replace(test, "//CALLS", p.calls.String(), 1)
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	for name, content := range map[string]string{
		"go.mod": "module readmesnippets\n\ngo 1.23\n\nrequire github.com/bankpay/bankpay-go v0.0.0\n\nreplace github.com/bankpay/bankpay-go => " + root + "\n",
		"go.sum": string(goSum), "main.go": p.mainFile, "snippets_test.go": test,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	// -mod=mod: go test adds to go.mod the requirements the program's
	// imports need, where a go mod tidy before it was a go command of its
	// own (a quarter of a second) that also read the modules of the tests
	// of the SDK's dependencies. -s -w: no symbol table or DWARF, a cheaper
	// link of the same program.
	args := []string{"test", "-mod=mod", "-count=1", "-v", "-ldflags=-s -w"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	// A race-enabled test binary sleeps 1 s at exit unless GORACE says not.
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if err != nil {
		t.Logf("generated test:\n%s", numbered(test))
	}
	require.NoError(t, err, "the README snippets:\n%s", buf.String())
	t.Log(buf.String())
}

// program is the generated program: main.go (the full program), and the
// parts of the test file (harness) that the snippets make.
type program struct {
	mainFile          string
	top, funcs, calls strings.Builder
}

// add writes snippet i into the program, with its errors checked.
func (p *program) add(t *testing.T, i int, sn snippet) {
	switch {
	case strings.HasPrefix(sn.code, "package main"):
		require.Empty(t, p.mainFile, "one full program")
		code, err := errChecked(sn, "", sn.code, "")
		require.NoError(t, err)
		p.mainFile = code
		fmt.Fprintf(&p.calls, "\tt.Run(\"%s (main)\", func(t *testing.T) { s.env(t); main() })\n", sn.where())
	case strings.HasPrefix(sn.code, "func Test"):
		code, err := errChecked(sn, "package main;", sn.code, "")
		require.NoError(t, err)
		fmt.Fprintf(&p.top, "// %s\n%s\n", sn.where(), code)
	default:
		p.fragment(t, i, sn)
	}
}

// fragment writes a fragment as a function of the test, with its
// functions at the top level.
func (p *program) fragment(t *testing.T, i int, sn snippet) {
	setup, ok := "", false
	for key, s := range setups {
		if strings.Contains(sn.code, key) {
			setup, ok = s, true
		}
	}
	require.True(t, ok, "%s: a fragment without a set-up in setups:\n%s", sn.where(), sn.code)
	body, fns := splitFuncs(sn)
	for _, f := range fns {
		code, err := errChecked(f, "package main;", f.code, "")
		require.NoError(t, err)
		fmt.Fprintf(&p.top, "// %s\n%s\n", f.where(), code)
	}
	var uses []string
	for _, m := range declared.FindAllStringSubmatch(body, -1) {
		for _, name := range strings.Split(m[1], ",") {
			if name = strings.TrimSpace(name); name != "_" && name != "err" {
				uses = append(uses, name)
			}
		}
	}
	checked, err := errChecked(sn, "package main; func _() {", body, "\n}")
	require.NoError(t, err)
	name := fmt.Sprintf("snippet%d", i)
	fmt.Fprintf(&p.funcs, "// %s\nfunc %s(t *testing.T, s *setup) error {\n\tctx, c := context.Background(), s.c\n\t_, _ = ctx, c\n", sn.where(), name)
	if setup != "" {
		p.funcs.WriteString("\t" + setup + "\n")
	}
	p.funcs.WriteString("\tvar err error\n\t_ = err\n\t{\n" + checked + "\n")
	for _, u := range uses {
		p.funcs.WriteString("\t_ = " + u + "\n")
	}
	if declared.MatchString(body) || strings.Contains(body, "err =") {
		fmt.Fprintf(&p.funcs, "\tif err != nil {\n\t\treturn fmt.Errorf(%q, err)\n\t}\n", sn.where()+", at its end: %w")
	}
	p.funcs.WriteString("\t}\n\treturn nil\n}\n\n")
	fmt.Fprintf(&p.calls, "\tt.Run(\"%s\", func(t *testing.T) {\n\t\tif err := %s(t, s); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t})\n", sn.where(), name)
}

// splitFuncs is a fragment's statements, its functions (top level in Go)
// replaced by as many empty lines, and those functions, each with the
// line it starts at: line numbers in both are the snippet's.
func splitFuncs(sn snippet) (body string, fns []snippet) {
	last := 0
	for _, m := range topFunc.FindAllStringIndex(sn.code, -1) {
		f := sn.code[m[0]:m[1]]
		body += sn.code[last:m[0]] + strings.Repeat("\n", strings.Count(f, "\n"))
		fns = append(fns, snippet{line: sn.line + strings.Count(sn.code[:m[0]], "\n"), file: sn.file, code: f})
		last = m[1]
	}
	return body + sn.code[last:], fns
}

// errChecked returns src, Go code of snippet sn (its first line is sn's),
// with a check after every assignment to err (a call's error, in the
// snippets) whose value the code does not read itself in the statement
// after it: the next one that is not a declaration without values, or for a
// range clause the first of its body. An if, switch or for that reads err in
// its header, a return or call that passes err on, count as reading it; a
// statement at the end of its block does not read it, whatever follows the
// block. So a snippet that shows an error path (switch { case errors.Is(err,
// …) }) keeps it, and one that lists calls one after the other has each
// call's error checked. The check returns the error, naming the line of the
// assignment, in a function named _ (the fragment's own statements), and
// calls failed elsewhere (a function or function literal of the snippet,
// which cannot return it to the test). An assignment it cannot follow by a
// check (an if or switch header that does not read the err it sets; a for
// loop's) is an error. src is parsed as lead+src+tail: lead, which has no
// new line, and tail make it a Go file.
func errChecked(sn snippet, lead, src, tail string) (string, error) {
	c := &errChecker{fset: token.NewFileSet(), sn: sn, lead: len(lead), pending: map[ast.Node]bool{}, inserts: map[int]string{}}
	f, err := parser.ParseFile(c.fset, "", lead+src+tail, 0)
	var list scanner.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			c.fail(e.Pos.Line, e.Msg)
		}
		return "", errors.Join(c.errs...)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if assignsErr(n) {
			c.pending[n] = true
		}
		return true
	})
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			c.function(fd.Body, fd.Name.Name == "_")
		}
	}
	for _, line := range c.pendingLines() {
		c.fail(line, "the test cannot check the err this sets: assign it in a statement of its own")
	}
	if len(c.errs) > 0 {
		return "", errors.Join(c.errs...)
	}
	at := make([]int, 0, len(c.inserts))
	for off := range c.inserts {
		at = append(at, off)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(at)))
	for _, off := range at {
		src = src[:off] + c.inserts[off] + src[off:]
	}
	return src, nil
}

// errChecker finds where errChecked inserts its checks.
type errChecker struct {
	fset    *token.FileSet
	sn      snippet
	lead    int               // bytes parsed before the source
	pending map[ast.Node]bool // assignments to err not met yet
	inserts map[int]string    // offset in the source: the check there
	errs    []error
}

// pendingLines are the lines of the assignments to err not met, in order.
func (c *errChecker) pendingLines() []int {
	var lines []int
	for n := range c.pending {
		lines = append(lines, c.fset.Position(n.Pos()).Line)
	}
	sort.Ints(lines)
	return lines
}

// function checks the statement lists of body, and of the function
// literals in it; ret: the checks return the error.
func (c *errChecker) function(body *ast.BlockStmt, ret bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			c.function(n.Body, false)
			return false
		case *ast.BlockStmt:
			c.list(n.List, ret)
		case *ast.CaseClause:
			c.list(n.Body, ret)
		case *ast.CommClause:
			c.list(n.Body, ret)
		case *ast.RangeStmt:
			if c.met(n) && !readsErr(next(n.Body.List)) {
				c.check(n.Body.Lbrace+1, n, ret, " ", ";")
			}
		case *ast.IfStmt:
			c.header(n.Init, n.Cond)
		case *ast.SwitchStmt:
			c.header(n.Init, append(caseExprs(n.Body), n.Tag)...)
		case *ast.TypeSwitchStmt:
			c.header(n.Init, n.Assign)
		}
		return true
	})
}

// list checks the assignments to err among stmts (a range clause's err
// is its body's: function checks it).
func (c *errChecker) list(stmts []ast.Stmt, ret bool) {
	for i, s := range stmts {
		if _, ok := s.(*ast.RangeStmt); ok {
			continue
		}
		if c.met(s) && !readsErr(next(stmts[i+1:])) {
			c.check(s.End(), s, ret, "; ", "")
		}
	}
}

// header: an if or switch whose init sets err must read it in cond.
func (c *errChecker) header(init ast.Stmt, cond ...ast.Node) {
	if init != nil && c.met(init) && !mentionsErr(cond...) {
		c.fail(c.fset.Position(init.Pos()).Line, "an if or switch that sets err and does not read it")
	}
}

// met reports whether n assigns err, and marks it met.
func (c *errChecker) met(n ast.Node) bool {
	delete(c.pending, n)
	return assignsErr(n)
}

// check inserts at pos a check of the err that assignment n set.
func (c *errChecker) check(pos token.Pos, n ast.Node, ret bool, pre, post string) {
	where := c.where(c.fset.Position(n.Pos()).Line)
	text := fmt.Sprintf("failed(%q, err)", where)
	if ret {
		text = fmt.Sprintf("return fmt.Errorf(%q, err)", where+": %w")
	}
	c.inserts[c.fset.Position(pos).Offset-c.lead] = pre + "if err != nil { " + text + " }" + post
}

// where names line (of the parsed source) in the README or guide.
func (c *errChecker) where(line int) string {
	return snippet{file: c.sn.file, line: c.sn.line + line - 1}.where()
}

// fail records an error of the snippet at line of the parsed source.
func (c *errChecker) fail(line int, msg string) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", c.where(line), msg))
}

// assignsErr reports whether n sets a variable named err: an assignment,
// a range clause, or a var declaration with values.
func assignsErr(n ast.Node) bool {
	var names []ast.Expr
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE || n.Tok == token.ASSIGN {
			names = n.Lhs
		}
	case *ast.RangeStmt:
		names = []ast.Expr{n.Key, n.Value}
	case *ast.DeclStmt:
		for _, spec := range n.Decl.(*ast.GenDecl).Specs {
			if v, ok := spec.(*ast.ValueSpec); ok && len(v.Values) > 0 {
				for _, name := range v.Names {
					names = append(names, name)
				}
			}
		}
	}
	for _, e := range names {
		if id, ok := e.(*ast.Ident); ok && id.Name == "err" {
			return true
		}
	}
	return false
}

// next is the first of stmts that is not a declaration without values
// (var apiErr *bankpay.APIError before the switch that reads err), or nil.
func next(stmts []ast.Stmt) ast.Stmt {
	for _, s := range stmts {
		if d, ok := s.(*ast.DeclStmt); !ok || !inert(d) {
			return s
		}
	}
	return nil
}

// inert reports whether d declares no err and gives no values: it runs no
// call, and err after it is the one before it.
func inert(d *ast.DeclStmt) bool {
	for _, spec := range d.Decl.(*ast.GenDecl).Specs {
		v, ok := spec.(*ast.ValueSpec)
		if !ok {
			continue
		}
		if len(v.Values) > 0 {
			return false
		}
		for _, name := range v.Names {
			if name.Name == "err" {
				return false
			}
		}
	}
	return true
}

// readsErr reports whether s reads the err set just before it: in its
// header for an if, switch or for (after an init that sets err, the header
// reads the new one), in its values for an assignment, anywhere outside
// function literals for a simple statement; a block or select does not.
func readsErr(s ast.Stmt) bool {
	switch s := s.(type) {
	case nil, *ast.BlockStmt, *ast.SelectStmt:
		return false
	case *ast.LabeledStmt:
		return readsErr(s.Stmt)
	case *ast.AssignStmt:
		return mentionsErr(exprNodes(s.Rhs)...)
	case *ast.IfStmt:
		return headerReads(s.Init, s.Cond)
	case *ast.SwitchStmt:
		return headerReads(s.Init, append(caseExprs(s.Body), s.Tag)...)
	case *ast.TypeSwitchStmt:
		return headerReads(s.Init, s.Assign)
	case *ast.ForStmt:
		return headerReads(s.Init, s.Cond)
	case *ast.RangeStmt:
		return mentionsErr(s.X)
	}
	return mentionsErr(s)
}

// headerReads reports whether a header (init; cond) reads err.
func headerReads(init ast.Stmt, cond ...ast.Node) bool {
	switch {
	case init != nil && readsErr(init):
		return true
	case init != nil && assignsErr(init):
		return false
	}
	return mentionsErr(cond...)
}

// caseExprs are the expressions of a switch's case clauses.
func caseExprs(body *ast.BlockStmt) []ast.Node {
	var out []ast.Node
	for _, s := range body.List {
		out = append(out, exprNodes(s.(*ast.CaseClause).List)...)
	}
	return out
}

func exprNodes(es []ast.Expr) []ast.Node {
	out := make([]ast.Node, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// mentionsErr reports whether the identifier err occurs in nodes, outside
// function literals and selectors' names (x.err).
func mentionsErr(nodes ...ast.Node) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectorExpr:
				found = found || mentionsErr(n.X)
				return false
			case *ast.Ident:
				found = found || n.Name == "err"
			}
			return !found
		})
	}
	return found
}

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

// harness is the generated test file: the set-up the fragments assume, and
// stand-ins for the merchant's own functions they call.
const harness = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

var (
	_ = errors.Is
	_ = fmt.Sprint
	_ = log.Println
	_ = time.Second
)

// The merchant's own code the snippets call.
var creds bankpay.Credentials // set by TestReadme

// failed ends the run on an error that a function of a snippet did not
// check (errChecked): it cannot return it to the test.
func failed(where string, err error) { log.Fatalf("%s: %v", where, err) }

func orderOfThisSession(*http.Request) string              { return "order-42" }
func readIdentityLater(context.Context, string) error       { return nil }
func store(context.Context, string, models.TransactionStatus) error { return nil }

// otelhttp stands in for go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp
// (examples/otel uses the real one, in a module of its own).
var otelhttp = struct {
	NewTransport func(http.RoundTripper) http.RoundTripper
}{func(rt http.RoundTripper) http.RoundTripper { return rt }}

type setup struct {
	srv   *bankpaytest.Server
	c     *bankpay.Client
	creds bankpay.Credentials
	n     int
}

func (s *setup) ref(p string) string { s.n++; return fmt.Sprintf("%s-%d", p, s.n) }

func (s *setup) env(t *testing.T) {
	t.Setenv("BANKPAY_ACCESS_ID", s.creds.AccessID)
	t.Setenv("BANKPAY_ACCESS_KEY", s.creds.AccessKey.Reveal())
	t.Setenv("BANKPAY_MERCHANT_ID", s.creds.MerchantID)
	t.Setenv("BANKPAY_BASE_URL", s.srv.URL)
}

func (s *setup) authorize(t *testing.T, d models.EstablishData) string {
	d.ReturnURL, d.CancelURL = "https://shop.example/return", "https://shop.example/cancel"
	if err := s.c.SignEstablishData(&d); err != nil {
		t.Fatal(err)
	}
	_, txn, err := s.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return txn.TransactionID
}

func (s *setup) deferred(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, Amount: "500.00", MerchantReference: s.ref("deferred"),
		PaymentType: models.PaymentTypeDeferred, Description: "order",
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Address1: "1 Main St", City: "Austin",
			State: "TX", Zip: "73301", Country: "US"}}})
}

func (s *setup) retrieval(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, MerchantReference: s.ref("retrieval"),
		PaymentType: models.PaymentTypeRetrieval, Description: "data"})
}

func (s *setup) identity(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, Amount: "10.00", MerchantReference: s.ref("kyc"),
		PaymentType: models.PaymentTypeDeferred, Description: "kyc", KYCType: models.KYCTypeIdentity,
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Country: "US"}}})
}

// identityReady is identity with the identity data delivered (the sandbox's
// clock moved past the providers' checks).
func (s *setup) identityReady(t *testing.T) string {
	id := s.identity(t)
	s.srv.Advance(time.Minute)
	if err := s.srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

func (s *setup) disbursement(t *testing.T) string {
	auth, err := s.c.Transactions.Establish(context.Background(), &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: s.ref("disb"),
		Description: "payout", Account: &models.Account{AccountNumber: bankpaytest.AccountVerified,
			RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe", Type: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return auth.TransactionID
}

// splitToken is the split token of authorization id's Authorize event.
func (s *setup) splitToken(t *testing.T, id string) string {
	for _, e := range s.srv.EventsFor(id) {
		if e.EventType == models.EventAuthorize && e.Raw.Get("splitToken") != "" {
			return e.Raw.Get("splitToken")
		}
	}
	t.Fatalf("no split token for %s", id)
	return ""
}

// completed returns a capture and a deposit, both Completed.
func (s *setup) completed(t *testing.T) (captureID, depositID string) {
	ctx := context.Background()
	auth := s.deferred(t)
	cp, err := s.c.Transactions.Capture(ctx, auth, &bankpay.CaptureParams{MerchantReference: s.ref("cap"), Amount: "30.00", SplitToken: s.splitToken(t, auth)})
	if err != nil {
		t.Fatal(err)
	}
	dep, err := s.c.Transactions.Deposit(ctx, s.disbursement(t), s.deposit())
	if err != nil {
		t.Fatal(err)
	}
	s.srv.Advance(time.Minute)
	s.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	return cp.TransactionID, dep.TransactionID
}

// pending returns a deposit the network has not picked up yet.
func (s *setup) pending(t *testing.T) string {
	dep, err := s.c.Transactions.Deposit(context.Background(), s.disbursement(t), s.deposit())
	if err != nil {
		t.Fatal(err)
	}
	return dep.TransactionID
}

func (s *setup) deposit() *bankpay.DepositParams {
	return &bankpay.DepositParams{MerchantReference: s.ref("dep"), Amount: "10.00"}
}

//TOP

//FUNCS

func TestReadme(t *testing.T) {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	s := &setup{srv: srv, c: srv.Client(), creds: srv.Credentials()}
	creds = s.creds
//CALLS
}
`

// installSection is the README's Install section.
func installSection(t *testing.T) string {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	s := string(raw)
	start := strings.Index(s, "\n## Install\n")
	require.GreaterOrEqual(t, start, 0, "no Install section")
	end := strings.Index(s[start+1:], "\n## ")
	require.Greater(t, end, 0)
	return s[start : start+1+end]
}

// shBlock is the ```sh block of section that contains marker, one command a line.
func shBlock(t *testing.T, section, marker string) []string {
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		if strings.Contains(block[1], marker) {
			return strings.Split(strings.TrimSpace(block[1]), "\n")
		}
	}
	t.Fatalf("no sh block with %q in Install", marker)
	return nil
}

// TestReadmeInstallFromCheckout runs the Install section's two ways of
// depending on a checkout before the tag (replace; a workspace) in a new
// module beside this checkout, and compiles a program that imports the SDK
// and bankpaytest. Offline: the module cache serves the SDK's own
// dependencies.
//
// It compiles every package of the program (go list -export) and does not
// link it: how the recipe found the packages ends with their compilation,
// and a link of the same compiled packages is what TestReadmeSnippets's go
// test does, for a program that imports these two packages and more,
// through a replace of the same checkout with the same flags. A link costs
// about 0.8 s of CPU under -race; each of the two ways linked its own.
func TestReadmeInstallFromCheckout(t *testing.T) {
	t.Parallel() // its go commands beside the other test's
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	section := installSection(t)
	// A merchant's go mod tidy reads the module proxy; here the recipe runs
	// offline, from the module cache, which must hold what tidy reads.
	fetchGoSumModules(t, root)
	// One clone beside both shops: the build cache keys a package outside
	// the module cache by its directory, so a clone of its own for each
	// would compile the SDK twice.
	dir := t.TempDir()
	require.NoError(t, os.Symlink(root, filepath.Join(dir, "bankpay-go")))
	for name, marker := range map[string]string{"replace": "-replace=github.com/bankpay/bankpay-go=../bankpay-go", "workspace": "go work init"} {
		t.Run(name, func(t *testing.T) {
			shop := filepath.Join(dir, "shop-"+name)
			require.NoError(t, os.Mkdir(shop, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(shop, "go.mod"), []byte("module example.com/shop\n\ngo 1.23\n"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(shop, "main.go"), []byte(shopMain), 0o600))
			// Offline: no proxy and no checksum database (a merchant's
			// machine has both; the module cache has what is needed).
			env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=")
			if name == "replace" {
				env = append(env, "GOWORK=off")
			}
			for _, line := range shBlock(t, section, marker) {
				if strings.HasPrefix(line, "git clone") {
					continue // the symlink stands for the clone
				}
				cmd := exec.Command("sh", "-c", line)
				cmd.Dir, cmd.Env = shop, env
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s: %s", line, out)
			}
			// The recipe's ../bankpay-go finds every package the program
			// imports, and their dependencies.
			goIn(t, shop, env, "list", "-deps", ".")
			// Then the program compiles against the checkout, named by its own
			// directory: the build cache keys a package outside the module
			// cache by its directory, so through the symlink the SDK would
			// compile a second time, beside this test run's copy.
			if name == "replace" {
				goIn(t, shop, env, "mod", "edit", "-replace=github.com/bankpay/bankpay-go="+root)
			} else {
				goIn(t, shop, env, "work", "edit", "-dropuse=../bankpay-go", "-use="+root, "-replace=github.com/bankpay/bankpay-go@v0.3.0="+root)
			}
			// go list -export compiles the program and every package it
			// imports (a compile error fails it), without a link. With -race
			// when the tests run with it: the standard library and the SDK are
			// then already compiled that way (the build cache is shared),
			// where a plain build compiles them all a second time.
			args := []string{"list", "-export", "-deps"}
			if raceEnabled {
				args = append(args, "-race")
			}
			goIn(t, shop, env, append(args, ".")...)
		})
	}
}

// fetchGoSumModules puts in the module cache every module whose source the
// checkout's go.sum lists. go test fetched what builds and tests this
// module; go mod tidy also reads the modules imported by the tests of the
// SDK's dependencies (go-cmp, for go-querystring's). They are fetched as go
// test fetched the others (the module cache first, then GOPROXY), checked
// against the checkout's go.sum, from a copy of its go.mod and go.sum so
// that the checkout is left as it is.
func fetchGoSumModules(t *testing.T, root string) {
	dir := t.TempDir()
	var sum []byte
	for _, name := range []string{"go.mod", "go.sum"} {
		raw, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), raw, 0o600))
		sum = raw
	}
	args := []string{"mod", "download"}
	for _, line := range strings.Split(string(sum), "\n") {
		if f := strings.Fields(line); len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") {
			args = append(args, f[0]+"@"+f[1])
		}
	}
	goIn(t, dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"), args...)
}

// goIn runs the go command in dir with env and requires it to succeed.
func goIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
}

const shopMain = `package main

import (
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

func main() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	_, err := bankpay.NewClient(srv.Credentials(), bankpay.WithBaseURL(srv.URL))
	fmt.Println(err)
}
`

// TestReadmeInstallGoLines: the Install table gives each module's go line,
// and that line is the newest of its requirements' (those in the module
// cache): the lowest the module builds with.
func TestReadmeInstallGoLines(t *testing.T) {
	rows := regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| ([0-9.]+) \\|").FindAllStringSubmatch(installSection(t), -1)
	require.NotEmpty(t, rows)
	dirs := map[string]string{"github.com/bankpay/bankpay-go": ".", "…/dedup/pgdedup": "dedup/pgdedup",
		"…/dedup/redisdedup": "dedup/redisdedup", "…/dedup/riverinbox": "dedup/riverinbox", "…/examples/otel": "examples/otel"}
	cache := goEnv(t, "GOMODCACHE")
	for _, row := range rows {
		dir, ok := dirs[row[1]]
		require.True(t, ok, "a row for an unknown module %s", row[1])
		raw, err := os.ReadFile(filepath.Join("../..", dir, "go.mod"))
		require.NoError(t, err)
		goLine := goVersion(raw)
		assert.Equal(t, row[2], majorMinor(goLine), "%s: the README says go %s, its go.mod %s", row[1], row[2], goLine)
		newest := "1.0"
		for _, r := range requirements(raw) {
			dep, err := os.ReadFile(filepath.Join(cache, "cache", "download", escapePath(r[0]), "@v", r[1]+".mod"))
			if err != nil {
				continue // not downloaded (the core itself: untagged)
			}
			if v := goVersion(dep); v != "" && lessVersion(newest, v) {
				newest = v
			}
		}
		assert.Equal(t, majorMinor(newest), majorMinor(goLine), "%s: go %s, while its newest requirement needs %s", row[1], goLine, newest)
	}
}

// goVersion is a go.mod's go line.
func goVersion(gomod []byte) string {
	if m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(gomod); m != nil {
		return string(m[1])
	}
	return ""
}

// requirements are a go.mod's required module paths and versions.
func requirements(gomod []byte) [][2]string {
	var out [][2]string
	inBlock := false
	for _, l := range strings.Split(string(gomod), "\n") {
		l = strings.TrimSpace(strings.SplitN(l, "//", 2)[0])
		switch {
		case l == "require (":
			inBlock = true
			continue
		case inBlock && l == ")":
			inBlock = false
			continue
		case strings.HasPrefix(l, "require "):
			l = strings.TrimPrefix(l, "require ")
		case !inBlock:
			continue
		}
		if f := strings.Fields(l); len(f) == 2 {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

// escapePath is a module path as the module cache spells it.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteString("!" + string(r+'a'-'A'))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// majorMinor is "1.25" of "1.25.0".
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// lessVersion compares two Go versions by their numbers.
func lessVersion(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// mdLink is a Markdown link or image target: ](target) or ](target#anchor).
var mdLink = regexp.MustCompile(`\]\(([^)\s#]+)(?:#[^)]*)?\)`)

// TestDocLinksResolve: every relative link and image of the README and of
// docs/*.md names a file that exists, read from the directory of the file
// that links it (docs/guide.md's images are img/…, not docs/img/…).
func TestDocLinksResolve(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	files = append(files, "../../README.md")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(raw), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			_, err := os.Stat(filepath.Join(filepath.Dir(f), target))
			assert.NoError(t, err, "%s links %s", strings.TrimPrefix(f, "../../"), target)
		}
	}
}

// TestErrChecked: errChecked checks each err a snippet's code leaves
// unread, keeps the error paths a snippet shows, and refuses an err it
// cannot check.
func TestErrChecked(t *testing.T) {
	ret := func(line int) string {
		return fmt.Sprintf("; if err != nil { return fmt.Errorf(\"README line %d: %%w\", err) }", line)
	}
	fragment, file := "package main; func _() {", "package main;"
	for _, tc := range []struct{ name, lead, src, want, err string }{
		{name: "calls in a row", lead: fragment,
			src:  "a, err := f()\nb, err := g(a) // b\n_ = b\nerr = h()\n",
			want: "a, err := f()" + ret(10) + "\nb, err := g(a)" + ret(11) + " // b\n_ = b\nerr = h()" + ret(13) + "\n"},
		{name: "an error path", lead: fragment,
			src:  "v, err := f()\nvar e *E\nswitch {\ncase errors.As(err, &e):\n\tv, err = g()\n}\n",
			want: "v, err := f()\nvar e *E\nswitch {\ncase errors.As(err, &e):\n\tv, err = g()" + ret(14) + "\n}\n"},
		{name: "checked or passed on", lead: fragment,
			src:  "x, err := f()\nif err != nil {\n\treturn err\n}\ny, err := g(x)\ncheck(err)\nif _, err := h(); err == nil {\n}\n",
			want: "x, err := f()\nif err != nil {\n\treturn err\n}\ny, err := g(x)\ncheck(err)\nif _, err := h(); err == nil {\n}\n"},
		{name: "an if reads its own err", lead: fragment,
			src:  "a, err := f()\nif _, err := g(); err != nil {\n}\n",
			want: "a, err := f()" + ret(10) + "\nif _, err := g(); err != nil {\n}\n"},
		{name: "a range clause", lead: fragment,
			src:  "for v, err := range f() {\n\tuse(v)\n}\n",
			want: "for v, err := range f() { if err != nil { return fmt.Errorf(\"README line 10: %w\", err) };\n\tuse(v)\n}\n"},
		{name: "in a function", lead: file,
			src:  "func h() error {\n\t_, err := f()\n\tg(func() { err := k(); use(err) })\n\treturn nil\n}\n",
			want: "func h() error {\n\t_, err := f(); if err != nil { failed(\"README line 11\", err) }\n\tg(func() { err := k(); use(err) })\n\treturn nil\n}\n"},
		{name: "an if that reads another", lead: fragment, src: "if _, err := f(); ok {\n}\n",
			err: "README line 10: an if or switch that sets err and does not read it"},
		{name: "a for header", lead: fragment, src: "x := 1\nfor err := f(); err != nil; err = f() {\n}\n",
			err: "README line 11: the test cannot check the err this sets: assign it in a statement of its own"},
		{name: "no Go", lead: fragment, src: "x := 1\ny := )\n", err: "README line 11: expected operand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tail := ""
			if tc.lead == fragment {
				tail = "\n}"
			}
			got, err := errChecked(snippet{file: "README", line: 10}, tc.lead, tc.src, tail)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
