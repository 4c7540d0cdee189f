package readme

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// that does not compile, or fails against the sandbox, fails this test.
func TestReadmeSnippets(t *testing.T) {
	t.Parallel() // its go commands beside the other test's
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	var mainFile string
	var top, calls, funcs strings.Builder
	for i, sn := range readmeSnippets(t) {
		switch {
		case strings.HasPrefix(sn.code, "package main"):
			require.Empty(t, mainFile, "one full program")
			mainFile = sn.code
			calls.WriteString(fmt.Sprintf("\tt.Run(\"%s (main)\", func(t *testing.T) { s.env(t); main() })\n", sn.where()))
		case strings.HasPrefix(sn.code, "func Test"):
			top.WriteString(fmt.Sprintf("// %s\n%s\n", sn.where(), sn.code))
		default:
			setup, ok := "", false
			for key, s := range setups {
				if strings.Contains(sn.code, key) {
					setup, ok = s, true
				}
			}
			require.True(t, ok, "%s: a fragment without a set-up in setups:\n%s", sn.where(), sn.code)
			body := topFunc.ReplaceAllStringFunc(sn.code, func(f string) string {
				top.WriteString(fmt.Sprintf("// %s\n%s\n", sn.where(), f))
				return ""
			})
			var uses []string
			for _, m := range declared.FindAllStringSubmatch(body, -1) {
				for _, name := range strings.Split(m[1], ",") {
					if name = strings.TrimSpace(name); name != "_" && name != "err" {
						uses = append(uses, name)
					}
				}
			}
			name := fmt.Sprintf("snippet%d", i)
			funcs.WriteString(fmt.Sprintf("// %s\nfunc %s(t *testing.T, s *setup) error {\n\tctx, c := context.Background(), s.c\n\t_, _ = ctx, c\n", sn.where(), name))
			if setup != "" {
				funcs.WriteString("\t" + setup + "\n")
			}
			funcs.WriteString("\tvar err error\n\t_ = err\n\t{\n" + body + "\n")
			for _, u := range uses {
				funcs.WriteString("\t_ = " + u + "\n")
			}
			if declared.MatchString(body) || strings.Contains(body, "err =") {
				funcs.WriteString("\tif err != nil {\n\t\treturn err\n\t}\n")
			}
			funcs.WriteString("\t}\n\treturn nil\n}\n\n")
			calls.WriteString(fmt.Sprintf("\tt.Run(\"%s\", func(t *testing.T) {\n\t\tif err := %s(t, s); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t})\n", sn.where(), name))
		}
	}
	require.NotEmpty(t, mainFile)
	test := strings.Replace(harness, "//TOP", top.String(), 1)
	test = strings.Replace(test, "//FUNCS", funcs.String(), 1)
	test = strings.Replace(test, "//CALLS", calls.String(), 1)
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	for name, content := range map[string]string{
		"go.mod": "module readmesnippets\n\ngo 1.23\n\nrequire github.com/bankpay/bankpay-go v0.0.0\n\nreplace github.com/bankpay/bankpay-go => " + root + "\n",
		"go.sum": string(goSum), "main.go": mainFile, "snippets_test.go": test,
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
