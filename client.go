package bankpay

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// Client calls the service. Create it with NewClient; it is safe for
// concurrent use. Its credentials are behind a pointer: printing a Client
// shows no secret.
type Client struct {
	// Services, one per resource.
	Transactions *TransactionsService
	Accounts     *AccountsService
	Customers    *CustomersService
	Identity     *IdentityService
	Payments     *PaymentsService
	// Reference data and disputes.
	Countries        *CountriesService
	PaymentProviders *PaymentProvidersService
	Disputes         *DisputesService

	*caller // a pointer, so that %v of a Client shows no key
}

// NewClient returns a Client for the merchant's credentials. Empty
// credentials or an invalid option are a *ValidationError.
func NewClient(creds Credentials, opts ...Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	cfg := defaultConfig()
	cfg.target = forClient
	if err := cfg.apply(opts); err != nil {
		return nil, err
	}
	hc := cfg.httpClient
	if hc == nil {
		hc = cleanhttp.DefaultPooledClient()
		hc.Timeout = defaultTimeout
		// The API responds every call itself: a 3xx is an *APIError.
		hc.CheckRedirect = refuseRedirect
		// One host, many goroutines: keep as many idle connections to it
		// as the pool holds, not cleanhttp's GOMAXPROCS+1.
		if tr, ok := hc.Transport.(*http.Transport); ok {
			tr.MaxIdleConnsPerHost = tr.MaxIdleConns
		}
	}
	c := &Client{caller: &caller{cfg: cfg, secrets: newSecrets(creds), macs: &sign.MACCache{}}}
	c.hc = layeredClient(hc, cfg.wrapTransport, c.secrets)
	s := &service{client: c.caller}
	c.Transactions = (*TransactionsService)(s)
	c.Accounts = (*AccountsService)(s)
	c.Customers = (*CustomersService)(s)
	c.Identity = (*IdentityService)(s)
	c.Countries = (*CountriesService)(s)
	c.PaymentProviders = (*PaymentProvidersService)(s)
	c.Disputes = (*DisputesService)(s)
	c.Payments = (*PaymentsService)(s)
	return c, nil
}

// SignEstablishData fills d's AccessID and MerchantID from the client's
// credentials and sets RequestSignature (HMAC-SHA1 by default, see
// WithHMACSHA512) over d's signed fields. The JSON of d is then what
// the front-end SDKs take (FlattenEstablishData: the mobile SDKs' flat
// form). Call it on the server only. Invalid data is a *ValidationError
// naming the field, and d is left unchanged; a signed value may not contain
// '&' or ';' followed later by '=' (see the Security section).
//
// For example, accessId A48B73F694C4C8EE6306, merchantId 110005514, access
// key "my-access-key" and the establish data of ExampleClient_SignEstablishData
// have the canonical string (signed fields in the service's order, nested
// keys dotted, values not URL-encoded, empty values left out; the URLs,
// metadata, kycType, beneficiary and deviceType are never signed)
//
//	accessId=A48B73F694C4C8EE6306&merchantId=110005514&description=Order 42&currency=USD&amount=10.00&merchantReference=ref-42&paymentType=Deferred&customer.name=Jane Doe&customer.address.city=Austin&customer.address.country=US
//
// and the requestSignature
//
//	bKKk8jN+SU93sX+ckaBV2kjzKZU=
//
// or, with WithHMACSHA512(),
//
//	HmacSHA512:EcJv3My02jKhVTn5udCQF2rS15A3SmrdcOUSvjeHQ0BQxxOjZWlHLLSTJjw0DYc1qKWAdzsxPMJAZZXxmISRnQ==
func (c *Client) SignEstablishData(d *models.EstablishData) error {
	return c.signEstablishData(d)
}

// Format prints the client as its base URL and accessId, with every verb,
// so that no verb shows its key. (A Client value, which has no Format,
// prints its fields: its credentials are behind a pointer, printed as an
// address.)
func (c *Client) Format(f fmt.State, _ rune) {
	if c == nil {
		_, _ = f.Write([]byte("<nil>"))
		return
	}
	var id string
	if c.secrets != nil {
		id = c.secrets.creds.AccessID
	}
	_, _ = fmt.Fprintf(f, "bankpay.Client{BaseURL:%s AccessID:%s}", c.cfg.baseURL, id)
}

// layeredClient returns a copy of hc (same Timeout, Jar, redirect policy
// limited by redirectPolicy; hc is not modified) whose transport is, from
// the outside in: keepAliveTransport, wrap's middleware (WithTransport),
// guardTransport (which sets the Authorization header of sec), and hc's
// own transport.
//
// keepAliveTransport keeps connections alive across failures:
// go-retryablehttp drains only 4 KiB of a response it retries and closes
// the idle connections of the whole pool when a call fails, taking those of
// every other call of a shared Client with them; it drains up to maxDrain
// bytes on Close and has no CloseIdleConnections. guardTransport, below any
// middleware, lets each attempt of a non-idempotent call reach the network
// once (internal/pipeline/sendguard.go).
func layeredClient(hc *http.Client, wrap func(http.RoundTripper) http.RoundTripper, sec *secrets) *http.Client {
	cp := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	var rt http.RoundTripper = pipeline.NewGuardTransport(base, sec)
	if wrap != nil {
		rt = wrap(rt)
	}
	cp.Transport = keepAliveTransport{rt, base}
	cp.CheckRedirect = redirectPolicy(hc.CheckRedirect)
	return &cp
}

// refuseRedirect is a CheckRedirect that follows no redirect: the client
// gets the 3xx response itself.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// redirectPolicy wraps a CheckRedirect policy (nil: net/http's default) so
// that only reads follow redirects, and only on the scheme and host they
// started on. Following one for a state-changing call would either turn it
// into a GET (301, 302, 303), whose response would then be decoded as the
// call's result, or send the money-moving body again to another address
// (307, 308); following one elsewhere would send the credentials there,
// or in clear over http. The 3xx response comes back as an *APIError.
func redirectPolicy(policy func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0]
		if m := first.Method; m != http.MethodGet && m != http.MethodHead {
			return http.ErrUseLastResponse
		}
		if req.URL.Scheme != first.URL.Scheme || !strings.EqualFold(req.URL.Host, first.URL.Host) {
			return http.ErrUseLastResponse
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= 10 { // net/http's default policy
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// keepAliveTransport is the outermost transport of a Client; next is the
// rest of the chain, base its innermost transport (whose idle connections
// Close closes).
type keepAliveTransport struct{ next, base http.RoundTripper }

func (t keepAliveTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil && resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &pipeline.DrainOnClose{ReadCloser: resp.Body}
	}
	return resp, err
}

// Close closes the idle connections of the client's transport (with
// WithHTTPClient, of that client's transport). Calls in flight finish, and
// the Client stays usable: a later call opens a new connection. It returns
// nil.
func (c *Client) Close() error {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := c.hc.Transport.(keepAliveTransport); ok {
		if ci, ok := t.base.(closeIdler); ok {
			ci.CloseIdleConnections()
		}
	}
	return nil
}
