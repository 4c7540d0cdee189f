package bankpaytest

import (
	"net"
	"net/http"
	"time"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	def       Merchant
	extra     []Merchant
	start     time.Time
	providers int
	client    *http.Client
	listener  net.Listener
	bare      bool
	handler   http.Handler
	anyHost   bool
	anyResend bool
	wall      bool
	// tick is how often a WithWallClock clock catches up with the real
	// time (0: WallClockTick); only the package's tests set it
	// (main_test.go), so that they follow the real time without waiting
	// a whole WallClockTick.
	tick time.Duration
}

// WithDefaultMerchant configures the default merchant, the one Credentials
// returns. Empty credential fields are generated.
func WithDefaultMerchant(m Merchant) Option {
	return func(c *config) { c.def = m }
}

// WithMerchant adds a merchant (for example one not configured for VIP
// tiers or for money transfer). Empty credential fields are generated; Merchants
// returns them.
func WithMerchant(m Merchant) Option {
	return func(c *config) { c.extra = append(c.extra, m) }
}

// WithStartTime sets the clock's start (default: the real time at
// NewServer). The clock moves only with Advance, AdvanceBankingDays and
// AdvanceTo, unless WithWallClock makes it follow the real time from there.
// A test that counts banking days sets it: from the real time, its result
// depends on the day it runs (a minute's Advance on a Friday night reaches
// the weekend).
func WithStartTime(t time.Time) Option {
	return func(c *config) { c.start = t }
}

// WithWallClock makes the clock follow the real time from its start
// (WithStartTime, or now): it moves forward by itself, checked every
// WallClockTick, firing what falls due as Advance does, so that events carry
// the time they are sent at and a webhook handler with default options
// judges their age by its own clock. Advance, AdvanceBankingDays and
// AdvanceTo still move it ahead, and it keeps running from there. A
// deposit or capture is submitted to the network (Processed) when it is
// WallClockSubmitDelay old, or at the next Advance, whichever comes first,
// so that it can be canceled until then. Its eventIds start from a number
// taken from the real time at start (not 500000000000001), so that a
// webhook handler that outlives a restarted sandbox does not take the new
// events for ones it processed. cmd/bankpay-sandbox sets it unless
// -frozen-clock is given. Without it the clock is fake: it moves only when
// told to, and events are numbered from 500000000000001, as tests want.
func WithWallClock() Option {
	return func(c *config) { c.wall = true }
}

// WithIdentityProviders sets how many identity providers are configured
// (default 2): an identity verification emits one
// IdentityVerificationDataRetrieved event per provider. Values below 1 mean 1.
func WithIdentityProviders(n int) Option {
	return func(c *config) {
		if n < 1 {
			n = 1
		}
		c.providers = n
	}
}

// WithDeliveryClient sets the HTTP client that delivers event notifications
// (default: a client with a DeliveryTimeout timeout that does not follow
// redirects). Its transport decides where it dials: the loopback-only rule
// of the default client does not apply.
func WithDeliveryClient(hc *http.Client) Option {
	return func(c *config) { c.client = hc }
}

// WithEventHandler delivers event notifications to h, in process, whatever
// their notificationUrl: a test's webhook handler receives the sandbox's
// events without a listener or a DNS look-up. Only an event that has a
// notificationUrl is delivered (its transaction's, from the establish data,
// or else Merchant.NotificationURL): an event with neither, as the service
// would, is recorded (Server.Events) and never delivered, to h or anywhere.
func WithEventHandler(h http.Handler) Option {
	return func(c *config) { c.handler = h }
}

// WithAnyEventAddress lets the sandbox deliver to any notificationUrl. By
// default it dials only loopback addresses (127.0.0.0/8, [::1], localhost),
// so that tests stay hermetic: an event for any other address is recorded
// as not delivered, with why, and never dialled. cmd/bankpay-sandbox, a
// server for real applications, sets it.
func WithAnyEventAddress() Option {
	return func(c *config) { c.anyHost = true }
}

// WithResendToAnyAddress lets POST /sandbox/events/{id}/resend?to=URL
// send an event to any host. By default to= must name a loopback address
// (127.0.0.0/8, [::1], localhost) and any other answers 400 with nothing
// dialled, WithAnyEventAddress or not: the resend posts the merchant's
// signed events wherever whoever holds the credentials says, so a sandbox
// reachable from elsewhere (cmd/bankpay-sandbox) would relay them to any
// host. cmd/bankpay-sandbox sets it with -resend-any-address.
func WithResendToAnyAddress() Option {
	return func(c *config) { c.anyResend = true }
}

// WithBareResponses responds with single objects bare, as the operator's
// OpenAPI shows them, instead of in the spec's wrapper (the default): a
// transaction (get, deposit, capture) as the Transaction itself;
// establish's as the OpenAPI's EstablishData (the establish data sent,
// typed as that schema types it, with the authorization's transactionId
// and url, and no transaction state); the bank user and the identity user as the user
// itself; feedback as the authorization's Transaction. Balance, identity
// detail and customer keep their wrappers, as the OpenAPI shows them too.
func WithBareResponses() Option {
	return func(c *config) { c.bare = true }
}

// WithListener serves on l instead of a new loopback listener (how
// cmd/bankpay-sandbox serves on a chosen address). The server closes l.
func WithListener(l net.Listener) Option {
	return func(c *config) { c.listener = l }
}
