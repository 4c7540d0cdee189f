package bankpaytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
)

// Merchant configures a sandbox merchant: its API credentials (HTTP Basic
// accessId and accessKey, and the merchantId the bodies carry; empty ones
// are generated) and how the operator configured it.
type Merchant struct {
	bankpay.Credentials
	// Every feature is on by default, in NewServer and in
	// cmd/bankpay-sandbox alike; these turn one off.
	//
	// NoVIP plays a merchant not configured for VIP customer tiers: the
	// customer update calls refuse a vip, and establish data ignores
	// customer.vip.
	NoVIP bool
	// NoMoneyTransfer plays a merchant not configured for international
	// money transfer: capture is refused.
	NoMoneyTransfer bool
	// NoReferenceIdempotency plays an account the operator did not
	// configure for merchantReference idempotency: a repeated
	// merchantReference on establish, deposit, capture, refund, reclaim
	// or preauthorization is processed again, with no code 210, so that a request retried after a lost
	// response (bankpay.WithRetryNonIdempotent) pays twice, as it would on
	// the service. By default a merchant is configured for it.
	NoReferenceIdempotency bool
	// NoInstantPayout plays a merchant whose users' banks offer no instant
	// payout: authorizations show instantPayoutAvailable false, their
	// redirects carry no unsigned instantPayoutAvailable=true, and a deposit
	// with instantPayoutRequest=true is refused (400, code 200).
	NoInstantPayout bool
	// GuaranteedPayments plays an account configured for guaranteed
	// payments, as the operator's OpenAPI describes it: the splitToken of a
	// capture is optional at the API level, but a capture without it is
	// accepted and then fails, when the clock next moves (Failed, with a
	// Failed event, provider status SW051), instead of being processed.
	// Off by default: a capture without splitToken is processed.
	GuaranteedPayments bool
	// NotificationURL is the address registered for the merchant: events of
	// transactions whose establish data has no notificationUrl go there.
	NotificationURL string
}

// Server is a sandbox of the service: a real HTTP server with in-memory
// state, a fake clock and a background event deliverer. Its methods are safe
// for concurrent use. Close it when done.
type Server struct {
	// URL is the API base URL, ending in /api/v1.
	URL string
	// ControlURL is the base URL of the sandbox control endpoints
	// (/sandbox), which are not part of the service's API.
	ControlURL string

	ts      *httptest.Server
	maxBody int64
	bare    bool          // WithBareResponses
	wall    bool          // WithWallClock
	tick    time.Duration // how often a WithWallClock clock catches up (WallClockTick)

	advMu sync.Mutex // serializes clock advances
	mu    sync.Mutex // guards everything below
	st    state
	// wallOffset is the clock's lead over the real time (WithWallClock).
	wallOffset time.Duration
	// listeners follow the events over HTTP (GET /sandbox/events?listen=…).
	listeners map[string]*listener

	// delivery
	client    *http.Client
	ownClient bool
	handler   http.Handler // WithEventHandler
	anyHost   bool         // WithAnyEventAddress
	anyResend bool         // WithResendToAnyAddress
	queue     []delivery
	pending   int           // queued plus in-flight attempts
	idle      chan struct{} // closed when pending drops to 0
	wake      chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// state is the sandbox's data, guarded by Server.mu.
type state struct {
	now       time.Time
	closed    bool
	providers []string
	merchants []*merchant
	byAccess  map[string]*merchant
	txns      map[string]*txn
	events    []*event
	timers    timerHeap
	timerSeq  uint64
	toSubmit  []*txn
	seqTxn    uint64
	seqEvent  uint64
	eventBase uint64 // eventIds are eventBase+seqEvent (nextEventID)
	seqCust   uint64
	lost      []lostResponse // LoseResponse (faults.go)
}

// merchant is the state of one merchant.
type merchant struct {
	cfg Merchant
	key string // cfg.AccessKey, revealed once

	refs       map[refKey]bool
	tokens     map[string]string
	customers  map[string]*customerRecord // by customerId
	byExternal map[string]*customerRecord // by externalId
	disputes   disputeState
	returns    map[string]string // account key -> last ACH feedback that changes its verification (accounts.go)
	txns       []*txn            // in creation order (lists.go)
}

// usedRef reports whether ref was already used for kind and is to be
// refused with code 210 (never, for a merchant not configured for
// merchantReference idempotency).
func (m *merchant) usedRef(kind refKind, ref string) bool {
	return !m.cfg.NoReferenceIdempotency && m.refs[refKey{kind, ref}]
}

// refKind names the namespace a merchantReference is unique in.
type refKind int

const (
	refEstablish refKind = iota
	refDeposit
	refCapture
	refRefund
	refReclaim
	refPreauth
)

type refKey struct {
	kind refKind
	ref  string
}

// DefaultMaxBodyBytes caps the request bodies the server reads.
const DefaultMaxBodyBytes = 1 << 20

// NewServer starts a sandbox on a loopback port (or on the listener given
// with WithListener). It panics if two merchants share an accessId or if it
// cannot listen, like httptest.NewServer.
func NewServer(opts ...Option) *Server {
	cfg := config{providers: 2}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.start.IsZero() {
		cfg.start = time.Now()
	}
	if cfg.tick <= 0 {
		cfg.tick = WallClockTick
	}
	s := &Server{maxBody: DefaultMaxBodyBytes, bare: cfg.bare, wall: cfg.wall, tick: cfg.tick, wake: make(chan struct{}, 1)}
	s.st = state{
		now:       cfg.start.UTC().Truncate(time.Millisecond),
		byAccess:  make(map[string]*merchant),
		txns:      make(map[string]*txn),
		eventBase: firstEventBase,
	}
	if cfg.wall {
		s.st.eventBase = wallEventBase(time.Now())
	}
	for i := 1; i <= cfg.providers; i++ {
		s.st.providers = append(s.st.providers, fmt.Sprintf("Sandbox Identity Provider %d", i))
	}
	for _, mc := range append([]Merchant{cfg.def}, cfg.extra...) {
		s.addMerchant(mc)
	}
	// A caller-supplied delivery client chooses where it dials.
	s.handler, s.anyHost = cfg.handler, cfg.anyHost || cfg.client != nil
	s.anyResend = cfg.anyResend
	s.client = cfg.client
	if s.client == nil {
		s.ownClient = true
		s.client = &http.Client{
			Timeout:   DeliveryTimeout,
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())

	s.ts = httptest.NewUnstartedServer(s.withFaults(s.withUI(s.newMux())))
	if cfg.listener != nil {
		_ = s.ts.Listener.Close()
		s.ts.Listener = cfg.listener
	}
	s.ts.Start()
	s.URL = s.ts.URL + apiPrefix
	s.ControlURL = s.ts.URL + controlPrefix

	s.wg.Add(1)
	go s.deliverLoop()
	if s.wall {
		s.wallOffset = time.Until(s.st.now)
		s.wg.Add(1)
		go s.followWallClock()
	}
	return s
}

func (s *Server) addMerchant(mc Merchant) {
	if mc.AccessID == "" {
		mc.AccessID = strings.ToUpper(randomHex(10))
	}
	if mc.AccessKey.Reveal() == "" {
		mc.AccessKey = bankpay.NewSecret(randomHex(16))
	}
	if mc.MerchantID == "" {
		mc.MerchantID = fmt.Sprintf("10%08d", 1+len(s.st.merchants))
	}
	if _, dup := s.st.byAccess[mc.AccessID]; dup {
		panic("bankpaytest: two merchants share an accessId")
	}
	m := &merchant{
		cfg:        mc,
		key:        mc.AccessKey.Reveal(),
		refs:       make(map[refKey]bool),
		tokens:     make(map[string]string),
		customers:  make(map[string]*customerRecord),
		byExternal: make(map[string]*customerRecord),
	}
	s.st.merchants = append(s.st.merchants, m)
	s.st.byAccess[mc.AccessID] = m
}

// Credentials returns the credentials of the default (first) merchant.
func (s *Server) Credentials() bankpay.Credentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.merchants[0].cfg.Credentials
}

// Client returns a client of the default merchant for this server (its
// Credentials, base URL URL), with opts applied after those, like
// httptest.Server.Client. It panics if opts are invalid.
func (s *Server) Client(opts ...bankpay.Option) *bankpay.Client {
	c, err := bankpay.NewClient(s.Credentials(), append([]bankpay.Option{bankpay.WithBaseURL(s.URL)}, opts...)...)
	if err != nil {
		panic("bankpaytest: Client: " + err.Error())
	}
	return c
}

// Merchants returns the configuration of every merchant, the default first,
// then those added with WithMerchant in order, with generated credentials
// filled in.
func (s *Server) Merchants() []Merchant {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Merchant, len(s.st.merchants))
	for i, m := range s.st.merchants {
		out[i] = m.cfg
	}
	return out
}

// Close stops event delivery (an attempt in flight is aborted), wakes any
// Advance or Flush waiting for deliveries, shuts the HTTP server down and
// waits for its goroutines. Events emitted after Close are recorded but
// not delivered. Close is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.st.closed = true
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
		s.ts.Close()
		if s.ownClient {
			s.client.CloseIdleConnections()
		}
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("bankpaytest: reading random bytes: " + err.Error())
	}
	return hex.EncodeToString(b)
}
