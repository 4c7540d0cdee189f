package bankpay

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/sign"
)

// Option configures a Client (NewClient), one call (the last arguments of
// every service method; a call's options apply over the client's) or a
// redirect check (VerifyRedirect); the webhook handler takes
// WebhookOptions, and an Option given to it does not compile. Each With…
// says what it configures; given to anything else it is a
// *ValidationError naming "opts" and nothing is sent.
type Option func(*config)

// target is what an Option configures.
type target uint8

const (
	forClient   target = 1 << iota // NewClient
	forCall                        // one service method call
	forHandler                     // NewWebhookHandler
	forRedirect                    // VerifyRedirect, VerifyRedirectRequest

	forAPI = forClient | forCall
)

// String names what t configures.
func (t target) String() string {
	switch t {
	case forClient:
		return "a Client"
	case forCall:
		return "a call"
	case forHandler:
		return "the webhook handler"
	case forRedirect:
		return "a redirect check"
	}
	return "this"
}

// option returns the Option named name that runs set when it is given to
// one of the targets in t, and fails the config otherwise.
func option(name string, t target, set func(*config)) Option {
	return func(cfg *config) {
		if cfg.target&t == 0 {
			cfg.fail(invalid("opts", name+" does not configure "+cfg.target.String()))
			return
		}
		set(cfg)
	}
}

// config is the settings of a client, and, copied and changed by a call's
// options, of that call.
type config struct {
	baseURL            string   // no trailing slash
	base               *url.URL // baseURL parsed, read only (nil: each call's URL is parsed)
	httpClient         *http.Client
	logger             *slog.Logger
	userAgent          string
	maxRetries         int
	retryWaitMin       time.Duration
	retryWaitMax       time.Duration
	maxRetryAfter      time.Duration
	maxResponseBytes   int64
	retryNonIdempotent bool
	signAlg            sign.Algorithm
	wrapTransport      func(http.RoundTripper) http.RoundTripper
	header             http.Header     // extra request headers (WithHeader)
	timeout            time.Duration   // bounds a whole call (WithTimeout)
	responseInto       **http.Response // WithResponseInto
	expand             []string        // WithExpand: fields of one call's response to expand

	// waitScale is a test hook: the fake clock of the retry layer, given
	// each computed wait and returning the one slept (nil: as computed).
	// Set only by tests (c.cfg.waitScale).
	waitScale func(time.Duration) time.Duration
	// bodyEncoded is a test hook: each JSON body's params and bytes
	// (pipeline.Config.BodyEncoded). Set only by tests.
	bodyEncoded func(op *ops.Op, params any, body []byte)

	// The webhook handler's settings (NewWebhookHandler).
	dedup            Deduplicator
	maxEventBytes    int64
	eventReadTimeout time.Duration
	maxEventAge      time.Duration
	hookNow          func() time.Time

	redirect redirectConfig // VerifyRedirect's settings

	target target // what the options configure
	err    error  // the first invalid option
}

// Defaults of a new Client.
const (
	defaultMaxRetries       = 3
	defaultTimeout          = 30 * time.Second
	defaultRetryWaitMin     = 250 * time.Millisecond
	defaultRetryWaitMax     = 5 * time.Second
	defaultMaxRetryAfter    = 30 * time.Second
	defaultMaxResponseBytes = 8 << 20
)

func defaultConfig() config {
	cfg := config{
		userAgent:        "bankpay-go/" + version,
		maxRetries:       defaultMaxRetries,
		retryWaitMin:     defaultRetryWaitMin,
		retryWaitMax:     defaultRetryWaitMax,
		maxRetryAfter:    defaultMaxRetryAfter,
		maxResponseBytes: defaultMaxResponseBytes,
	}
	cfg.setBaseURL(SandboxBaseURL)
	return cfg
}

// setBaseURL sets the base URL (no trailing slash) and its parsed form.
func (cfg *config) setBaseURL(raw string) {
	cfg.baseURL, cfg.base = raw, nil
	if u, err := url.Parse(raw); err == nil {
		cfg.base = u
	}
}

// apply applies opts to cfg and returns the first invalid option's error.
func (cfg *config) apply(opts []Option) error {
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	return cfg.err
}

func (cfg *config) fail(err error) {
	if cfg.err == nil {
		cfg.err = err
	}
}

// redirectConfig is VerifyRedirect's part of the config.
type redirectConfig struct {
	queryOnly bool
	require   *sign.Algorithm
	expectRef *string
}

// Base URLs of the service. The sandbox is the default.
const (
	SandboxBaseURL    = "https://sandbox.trustly.one/api/v1"
	ProductionBaseURL = "https://trustly.one/api/v1"
)

// version is the SDK version sent in the User-Agent ("bankpay-go/" +
// version): the current version of CHANGELOG.md, the one the store and
// example modules require (TestVersionIsChangelogs).
const version = "0.3.0"
