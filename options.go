package bankpay

import (
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// WithBaseURL sets the API base URL, ending in /api/v1 (SandboxBaseURL by
// default; ProductionBaseURL for live money). It must be https, or http on
// a loopback address (a local sandbox).
func WithBaseURL(raw string) Option {
	return option("WithBaseURL", forAPI, func(cfg *config) {
		u, err := url.Parse(raw)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
			cfg.fail(invalid("baseURL", "must be an absolute http(s) URL"))
		case u.Scheme == "http" && !isLoopback(u.Hostname()):
			cfg.fail(invalid("baseURL", "plain http is allowed only on a loopback address; use https"))
		case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
			// An empty query ("…/api/v1?") too: each call's path would
			// follow the '?', sending it to the base path itself.
			cfg.fail(invalid("baseURL", "must not carry user info, a query or a fragment"))
		default:
			cfg.setBaseURL(strings.TrimRight(u.String(), "/"))
		}
	})
}

// WithHTTPClient sets the HTTP client calls are sent through (its
// Transport, Timeout, Jar and redirect policy as they are when NewClient
// runs; hc is not modified). Its Timeout bounds each attempt. Redirects are
// followed for reads on the same scheme and host only. Client only.
//
// The SDK's send guard (see WithTransport) sits directly above hc's
// Transport, so it cannot stop a Transport that sends a request again by
// itself: give retrying middleware to WithTransport instead. A Transport
// that is go-retryablehttp's RoundTripper (retryablehttp.Client's
// StandardClient) is refused with a *ValidationError on httpClient.
func WithHTTPClient(hc *http.Client) Option {
	return option("WithHTTPClient", forClient, func(cfg *config) {
		if hc == nil {
			cfg.fail(invalid("httpClient", "must not be nil"))
			return
		}
		if _, ok := hc.Transport.(*retryablehttp.RoundTripper); ok {
			cfg.fail(invalid("httpClient", "its Transport retries below the SDK's retry rule and could send a payment twice; "+
				"give go-retryablehttp's RoundTripper to WithTransport instead"))
			return
		}
		cfg.httpClient = hc
	})
}

// WithLogger logs each attempt, retry and outcome at debug level and
// failures at warn level: method, path, status, attempts and duration, never
// credentials or bodies. The default logs nothing. Given to
// NewWebhookHandler, it logs rejected requests and stale events (warn),
// callback errors (error) and duplicates (info); without it the handler
// logs each refused notification (400, 401, 408, 409, 413, 500) as one
// line to slog.Default() at warn level with the reason, never the body,
// the key or personal data, and nothing for one it accepts.
//
// Its result is both an Option and a WebhookOption (a function type of
// neither name, assignable to each).
func WithLogger(l *slog.Logger) func(*config) {
	return option("WithLogger", forAPI|forHandler, func(cfg *config) { cfg.logger = l })
}

// WithMaxRetries sets how many times a retryable call is retried (3 by
// default; 0 disables retries).
func WithMaxRetries(n int) Option {
	return option("WithMaxRetries", forAPI, func(cfg *config) {
		if n < 0 {
			cfg.fail(invalid("maxRetries", "must not be negative"))
			return
		}
		cfg.maxRetries = n
	})
}

// WithRetryBackoff sets the bounds of the jittered exponential backoff
// between retries (250ms and 5s by default).
func WithRetryBackoff(minWait, maxWait time.Duration) Option {
	return option("WithRetryBackoff", forAPI, func(cfg *config) {
		if minWait < 0 || maxWait < minWait {
			cfg.fail(invalid("retryBackoff", "needs 0 <= min <= max"))
			return
		}
		cfg.retryWaitMin, cfg.retryWaitMax = minWait, maxWait
	})
}

// withMaxRetryAfter caps the server's Retry-After (30s by default): a
// response asking for a longer wait is not retried, and its *APIError
// carries RetryAfter. Tests only: a caller bounds the whole call with a
// context deadline or WithTimeout instead.
func withMaxRetryAfter(d time.Duration) Option {
	return option("withMaxRetryAfter", forAPI, func(cfg *config) {
		if d < 0 {
			cfg.fail(invalid("maxRetryAfter", "must not be negative"))
			return
		}
		cfg.maxRetryAfter = d
	})
}

// withMaxResponseBytes caps the size of a response the client reads (8 MiB
// by default); a larger one is a *ResponseError. Tests only.
func withMaxResponseBytes(n int64) Option {
	return option("withMaxResponseBytes", forAPI, func(cfg *config) {
		if n <= 0 {
			cfg.fail(invalid("maxResponseBytes", "must be positive"))
			return
		}
		cfg.maxResponseBytes = n
	})
}

// WithRetryNonIdempotent lets state-changing calls that carry a
// merchantReference (establish, deposit, capture, preauthorization, and
// refund, reclaim or cancel when given one) be retried like reads. Use it
// only where the account treats merchantReference as an idempotency key: a
// repeat then fails with ErrDuplicate instead of paying twice (see the
// Retries section of the package documentation).
//
// It is ignored for a call that carries no merchantReference (a Refund or
// Reclaim without one, customer updates, feedback, tokenize, account
// verify, refresh): there is nothing the service could recognize a repeat
// by, so such a call is sent as without the option, and retried only when
// it provably never left. It is ignored, not refused, so that a client-wide
// opt-in does not fail the calls that cannot carry a key.
//
// Only the SDK's own retry rule sends a call again: a middleware given to
// WithTransport that retries is refused a second send of one attempt of a
// state-changing call ("second send of one attempt refused").
func WithRetryNonIdempotent() Option {
	return option("WithRetryNonIdempotent", forAPI, func(cfg *config) { cfg.retryNonIdempotent = true })
}

// WithTransport wraps the SDK's HTTP transport (or WithHTTPClient's) with
// wrap, for tracing or metrics middleware such as otelhttp.NewTransport; the
// SDK's timeout, redirect rule and connection pool stay. wrap sees each
// attempt, retries included. Client only.
//
// Below wrap sits the SDK's guard: each attempt of a state-changing call
// without an Idempotency-Key reaches the network at most once, whatever
// wrap does. A retrying middleware (go-retryablehttp's RoundTripper, a
// buffering retry) is refused a second send ("second send of one attempt refused"; a send
// that provably never left, as a refused dial, may be tried again), and the
// call's *NetworkError says Sent when the first send may have gone out. The
// guard also sets the Authorization header, so wrap never sees the
// credentials. wrap must send through the transport it is given (a request
// sent another way carries no credentials) and keep the request's context
// (req.WithContext of a context derived from it): a state-changing request
// that lost it is refused. The
// guard sits below wrap and above WithHTTPClient's Transport: put
// middleware here, not inside that Transport, where the SDK cannot see
// what it sends.
func WithTransport(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return option("WithTransport", forClient, func(cfg *config) {
		if wrap == nil {
			cfg.fail(invalid("transport", "must not be nil"))
			return
		}
		cfg.wrapTransport = wrap
	})
}

// reservedHeaders are set by the SDK and cannot be replaced by WithHeader
// (an Idempotency-Key is DisputeParams.IdempotencyKey: a header option would
// be silently replaced by the call's own key). User-Agent is not one of
// them: WithHeader puts its value before the SDK's product token.
var reservedHeaders = map[string]bool{"Authorization": true, "Content-Type": true, "Content-Length": true, "Host": true,
	"Accept": true, "Idempotency-Key": true}

// connectionHeaders are the connection-specific headers net/http's HTTP/2
// transport refuses to send (after it has a connection, so that the send
// would read as one that may have left).
var connectionHeaders = map[string]bool{"Connection": true, "Upgrade": true, "Transfer-Encoding": true}

// WithHeader adds a header to every request of a client, or of one call
// (a request id, a tracing header). The SDK's own headers (Authorization,
// Content-Type, Accept, Host) cannot be replaced, nor the
// connection-specific Connection, Upgrade and Transfer-Encoding. The name must
// be an HTTP token (letters, digits and !#$%&'*+-.^_`|~) and the value must
// hold no control character but a tab (no NUL, ESC, DEL, CR or LF): any
// other is a *ValidationError on header, and nothing is sent, as net/http
// would refuse to write the request.
//
// User-Agent is the exception: its value goes before the User-Agent sent
// (the SDK's own "bankpay-go/x.y.z", or the client's when given to a call),
// so WithHeader("User-Agent", "shop/2.1") sends "shop/2.1 bankpay-go/x.y.z";
// each further one goes before the previous ones. A control character in it
// is a *ValidationError on userAgent.
func WithHeader(key, value string) Option {
	return option("WithHeader", forAPI, func(cfg *config) {
		k := http.CanonicalHeaderKey(key)
		switch {
		case !validHeaderName(key):
			cfg.fail(invalid("header", "the name must be an HTTP token"))
		case k == "User-Agent" && !validHeaderValue(value):
			cfg.fail(invalid("userAgent", "must not contain control characters"))
		case k == "User-Agent":
			cfg.userAgent = strings.TrimSpace(value + " " + cfg.userAgent)
		case !validHeaderValue(value):
			cfg.fail(invalid("header", "the value of "+k+" must not contain control characters"))
		case reservedHeaders[k]:
			cfg.fail(invalid("header", k+" is set by the SDK"))
		case connectionHeaders[k]:
			cfg.fail(invalid("header", k+" is connection-specific: HTTP/2 refuses to send it"))
		default:
			h := cfg.header.Clone() // a call's options never change the client's map
			if h == nil {
				h = http.Header{}
			}
			h.Add(k, value)
			cfg.header = h
		}
	})
}

// validHeaderName reports whether name is a token (RFC 9110 §5.1).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v is a field value net/http writes: no
// control character but a horizontal tab (RFC 9110 §5.5).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// WithTimeout bounds a whole call, every attempt and wait included (the
// context's deadline still applies); 0 means no bound beyond the context's.
func WithTimeout(d time.Duration) Option {
	return option("WithTimeout", forAPI, func(cfg *config) {
		if d < 0 {
			cfg.fail(invalid("timeout", "must not be negative"))
			return
		}
		cfg.timeout = d
	})
}

// WithResponseInto sets *dst to the last HTTP response of a call (its
// status and headers; the body is already read and closed), whatever the
// outcome, or leaves it nil when there was none. For one call.
func WithResponseInto(dst **http.Response) Option {
	return option("WithResponseInto", forCall, func(cfg *config) {
		if dst == nil {
			cfg.fail(invalid("responseInto", "must not be nil"))
			return
		}
		cfg.responseInto = dst
	})
}

// WithExpand asks one call for more detail in its response, sent as one
// expand query parameter per field. It is taken by Accounts.User
// (customer.segmentedName, names, contact,
// account.paymentProvider.routinginfo, account.paymentProvider.address),
// Identity.User (segmentedName), Identity.Detail (verification) and
// Accounts.Verify (account.paymentProvider); any other call refuses it with a
// *ValidationError on expand, and nothing is sent. A field is letters,
// digits, '.' and '_'. Call only.
func WithExpand(fields ...string) Option {
	return option("WithExpand", forCall, func(cfg *config) {
		for _, f := range fields {
			if f == "" || strings.ContainsFunc(f, func(r rune) bool {
				return !(r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
			}) {
				cfg.fail(invalid("expand", "each field must be letters, digits, '.' or '_'"))
				return
			}
		}
		cfg.expand = append(cfg.expand[:len(cfg.expand):len(cfg.expand)], fields...)
	})
}

// isLoopback reports whether host is localhost or a loopback address: the
// only hosts WithBaseURL accepts over plain http.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
