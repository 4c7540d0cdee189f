// Command bankpay is the operations tool of the bankpay SDK: the tasks a
// merchant's engineers otherwise script by hand, on the same SDK.
//
//	bankpay [-json] transactions get ID
//	bankpay [-json] transactions find -original ID -ref REF -type deposit|capture|refund|reclaim|preauthorize
//	bankpay [-json] transactions authorization -ref REF
//	bankpay [-json] transactions list [-ref REF] [-original ID] [-since TIME] [-status S,…] [-type T,…] [-limit N]
//	bankpay [-json] refund [-ref REF] [-amount N.NN] TRANSACTION_ID
//	bankpay [-json] deposit -ref REF [-amount N.NN] [-instant] AUTHORIZATION_ID
//	bankpay [-json] capture -ref REF -amount N.NN -split-token TOKEN AUTHORIZATION_ID
//	bankpay [-json] reclaim [-ref REF] -amount N.NN DEPOSIT_ID
//	bankpay [-json] cancel [-ref REF] [-message TEXT] TRANSACTION_ID
//	bankpay [-json] payments get PAYMENT_ID
//	bankpay sign-establish FILE.json          (- reads standard input)
//	bankpay verify-redirect URL
//	bankpay verify-notification -body FILE -authorization HEADER
//	bankpay sandbox [bankpay-sandbox flags]
//	bankpay listen -forward-to URL [-type T,…] [-retries 5] [-retry-interval 1s]   (sandbox only)
//	bankpay [-json] trigger EVENT [-transaction ID]                                  (sandbox only)
//	bankpay [-json] events list [-transaction ID] [-type T,…] [-limit N]              (sandbox only)
//	bankpay [-json] events resend EVENT_ID [-to URL]                                (sandbox only)
//
// Credentials come from BANKPAY_ACCESS_ID, BANKPAY_ACCESS_KEY and
// BANKPAY_MERCHANT_ID, the API from BANKPAY_BASE_URL (the operator's sandbox
// when unset). -json prints JSON for scripts; the default is a readable
// table. Every command but sandbox and listen ends after -timeout (default 2m). Exit
// codes:
//
//	0  done
//	1  the service refused or failed the call (an API error), or the network failed before sending
//	2  usage: a bad flag, argument or input (nothing was sent)
//	3  a signature did not verify (verify-redirect, verify-notification)
//	4  not found: the service said so (404), or transactions find provably read every transaction
//	   made from -original and none has -ref: the call was not made; make it again with the same -ref
//	5  outcome unknown (bankpay.OutcomeUnknown): a money-moving request may have reached the service;
//	   do not pay again: look it up with the command printed (transactions find -original ID -ref REF
//	   -type TYPE) and make it again only on exit 4 (after cancel: transactions get ID; status Canceled:
//	   it was made, any other: cancel again)
//	6  already done: the service refused a repeat of a money-moving call (code 210); the transaction
//	   the first call made is printed
//	7  lookup incomplete: transactions find could not prove it read the whole list (a failed page,
//	   the timeout, a misbehaving server, an order that moved, an unreadable reference, an -original
//	   that could not be read or does not exist: check it); the transaction may exist: do not pay
//	   again, look again
//	8  no authorization has -ref (transactions authorization): says nothing of a deposit, capture,
//	   refund or reclaim, which transactions find looks up
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
)

// Exit codes.
const (
	exitOK         = 0
	exitFailed     = 1
	exitUsage      = 2
	exitBadSig     = 3
	exitNotFound   = 4
	exitUncertain  = 5
	exitDone       = 6
	exitIncomplete = 7
	exitNoAuth     = 8
)

// defaultTimeout is how long a command may take, unless -timeout says
// otherwise: a lookup that pages through a list, or a call to a server that
// never answers, ends with a clear error instead of hanging a script.
const defaultTimeout = 2 * time.Minute

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// env is what a command reads and writes: the process's, or a test's.
type env struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool
	clientOpts     []bankpay.Option // tests: an HTTP client of the sandbox
	ctlHTTP        httpDoer         // tests: the HTTP client of the sandbox's control endpoints
	badFlags       bool             // a subcommand's flags did not parse (exit 2)
}

// command is one subcommand: it parses its own flags from args.
type command struct {
	usage string
	run   func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]command{
	"transactions":        {"transactions get ID | find -original ID -ref REF -type TYPE | authorization -ref REF | list [-ref REF] [-original ID] [-since TIME] [-status S,…] [-type T,…] [-limit N]", runTransactions},
	"refund":              {"refund [-ref REF] [-amount N.NN] TRANSACTION_ID", runRefund},
	"deposit":             {"deposit -ref REF [-amount N.NN] [-instant] AUTHORIZATION_ID", runDeposit},
	"capture":             {"capture -ref REF -amount N.NN -split-token TOKEN AUTHORIZATION_ID", runCapture},
	"reclaim":             {"reclaim [-ref REF] -amount N.NN DEPOSIT_ID", runReclaim},
	"cancel":              {"cancel [-ref REF] [-message TEXT] TRANSACTION_ID", runCancel},
	"payments":            {"payments get PAYMENT_ID", runPayments},
	"sign-establish":      {"sign-establish FILE.json (- for standard input)", runSignEstablish},
	"verify-redirect":     {"verify-redirect URL", runVerifyRedirect},
	"verify-notification": {"verify-notification -body FILE -authorization HEADER", runVerifyNotification},
	"sandbox":             {"sandbox [-addr 127.0.0.1:8089] [bankpay-sandbox flags]", runSandbox},
	"listen":              {"listen -forward-to URL [-type T,…] [-retries 5] [-retry-interval 1s]   (sandbox only)", runListen},
	"trigger":             {"trigger EVENT [-transaction ID]   (sandbox only; EVENT: " + triggerEventNames + ")", runTrigger},
	"events":              {"events list [-transaction ID] [-type T,…] [-limit N] | resend EVENT_ID [-to URL]   (sandbox only)", runEvents},
}

// longRunning are the commands -timeout does not end: they run until
// interrupted.
var longRunning = map[string]bool{"sandbox": true, "listen": true}

// run runs one command line and returns the exit code.
func run(ctx context.Context, args []string, e *env) int {
	fs := flag.NewFlagSet("bankpay", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&e.json, "json", false, "print JSON")
	timeout := fs.Duration("timeout", defaultTimeout, "end the command after this long (0: no limit; sandbox and listen have none)")
	fs.Usage = func() { usage(e.stderr) }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() == 0 {
		usage(e.stderr)
		return exitUsage
	}
	cmd, ok := commands[fs.Arg(0)]
	if !ok {
		fmt.Fprintf(e.stderr, "bankpay: unknown command %q\n", fs.Arg(0))
		usage(e.stderr)
		return exitUsage
	}
	if *timeout < 0 {
		fmt.Fprintln(e.stderr, "bankpay: -timeout must not be negative")
		return exitUsage
	}
	if *timeout > 0 && !longRunning[fs.Arg(0)] {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	err := cmd.run(ctx, e, fs.Args()[1:])
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if e.badFlags {
		return exitUsage // the flag package's error, printed with the usage: a bad flag or value
	}
	if !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(e.stderr, "bankpay %s: %v\n", fs.Arg(0), err)
	}
	switch code {
	case exitUncertain:
		lookup := "bankpay transactions find -original ID -ref REF -type TYPE"
		then := "make the call again only if that exits 4 (not made), with the same -ref"
		if uo := (*unknownOutcome)(nil); errors.As(err, &uo) {
			lookup = uo.lookup
			if uo.then != "" {
				then = uo.then
			}
		}
		fmt.Fprintln(e.stderr, "bankpay: outcome unknown: the request may have reached the service; do not pay again: look it up with "+
			lookup+", and "+then)
	case exitIncomplete:
		fmt.Fprintln(e.stderr, "bankpay: the lookup could not prove it saw every transaction: the transaction may exist; do not pay again, look it up again")
	}
	return code
}

// usageError is a bad command line or input: nothing was sent.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitCode maps an error to the command's exit code.
func exitCode(err error) int {
	var ue *usageError
	var ve *bankpay.ValidationError
	var done *alreadyDone
	switch {
	case errors.As(err, &ue), errors.As(err, &ve), errors.Is(err, flag.ErrHelp):
		return exitUsage
	case errors.Is(err, bankpay.ErrInvalidSignature), errors.Is(err, bankpay.ErrReferenceMismatch):
		return exitBadSig
	case errors.As(err, &done):
		return exitDone
	case errors.Is(err, errNoAuthorization):
		return exitNoAuth
	case errors.Is(err, bankpay.ErrIncomplete):
		return exitIncomplete
	case errors.Is(err, bankpay.ErrNotFound):
		return exitNotFound
	case bankpay.OutcomeUnknown(err):
		return exitUncertain
	}
	return exitFailed
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: bankpay [-json] [-timeout 2m] COMMAND [ARGS]")
	for _, n := range names {
		fmt.Fprintln(w, "  bankpay "+commands[n].usage)
	}
	fmt.Fprintln(w, "credentials: BANKPAY_ACCESS_ID, BANKPAY_ACCESS_KEY, BANKPAY_MERCHANT_ID; API: BANKPAY_BASE_URL")
	fmt.Fprintln(w, "money commands (deposit, capture, refund, reclaim, cancel) need a reference: -ref, or one is made and")
	fmt.Fprintln(w, "  printed before anything is sent")
	fmt.Fprintln(w, "sandbox only: listen, trigger and events drive a bankpay sandbox (bankpay sandbox, cmd/bankpay-sandbox) through its")
	fmt.Fprintln(w, "  /sandbox control endpoints: BANKPAY_BASE_URL on a loopback address, or BANKPAY_SANDBOX=1 for one elsewhere (https only);")
	fmt.Fprintln(w, "  against the service they exit 2 and dial nothing. Endpoints: listen GET /sandbox/events?listen=&after=&wait=,")
	fmt.Fprintln(w, "  trigger POST /sandbox/trigger?event=, events list GET /sandbox/events, events resend POST /sandbox/events/{id}/resend")
	fmt.Fprintln(w, "exit codes: 0 done, 1 failed, 2 usage, 3 bad signature, 4 not found (find: every transaction made from")
	fmt.Fprintln(w, "  -original read, none has -ref: not made, make it again with the same -ref), 5 outcome unknown")
	fmt.Fprintln(w, "  (do not pay again: look it up with the command printed, transactions find -original ID -ref REF -type TYPE),")
	fmt.Fprintln(w, "  6 already done (code 210: the transaction made before is printed), 7 lookup incomplete (it may")
	fmt.Fprintln(w, "  exist: do not pay again, look again), 8 no authorization has -ref (transactions authorization)")
}

// credentials reads the merchant's credentials from the environment.
func (e *env) credentials() (bankpay.Credentials, error) {
	c := bankpay.Credentials{AccessID: e.getenv("BANKPAY_ACCESS_ID"), AccessKey: bankpay.NewSecret(e.getenv("BANKPAY_ACCESS_KEY")),
		MerchantID: e.getenv("BANKPAY_MERCHANT_ID")}
	var missing []string
	for name, v := range map[string]string{"BANKPAY_ACCESS_ID": c.AccessID, "BANKPAY_ACCESS_KEY": e.getenv("BANKPAY_ACCESS_KEY"), "BANKPAY_MERCHANT_ID": c.MerchantID} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return c, usagef("%s not set: export the merchant's credentials (and BANKPAY_BASE_URL), or run `bankpay sandbox` and export what it prints; nothing was sent", strings.Join(missing, ", "))
	}
	return c, nil
}

// client returns a client for the environment's credentials and base URL.
func (e *env) client() (*bankpay.Client, error) {
	creds, err := e.credentials()
	if err != nil {
		return nil, err
	}
	opts := e.clientOpts
	if base := e.getenv("BANKPAY_BASE_URL"); base != "" {
		opts = append([]bankpay.Option{bankpay.WithBaseURL(base)}, opts...)
	}
	return bankpay.NewClient(creds, opts...)
}

// clientFor parses a subcommand's flags from args, wants exactly one
// argument (an id; want says which in the usage error) and returns it with a
// client: the shared start of every command that acts on one transaction or
// payment.
func (e *env) clientFor(fs *flag.FlagSet, args []string, want string) (*bankpay.Client, string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	if fs.NArg() != 1 {
		return nil, "", usagef("want %s", want)
	}
	c, err := e.client()
	if err != nil {
		return nil, "", err
	}
	return c, fs.Arg(0), nil
}

// flags returns a flag set for a subcommand that also takes -json.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("bankpay "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&e.json, "json", e.json, "print JSON")
	// The flag package calls Usage on every error it returns (and on -h):
	// the command then exits 2.
	fs.Usage = func() {
		e.badFlags = true
		fmt.Fprintf(e.stderr, "usage of bankpay %s:\n", name)
		fs.PrintDefaults()
	}
	return fs
}
