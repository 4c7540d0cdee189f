package bankpay

import (
	"net/http"

	"github.com/bankpay/bankpay-go/internal/sign"
)

// caller is what the services and the pipeline need of a Client: its
// settings, credentials and HTTP client. A Client embeds it; a service
// holds it, not the Client.
type caller struct {
	cfg     config
	secrets *secrets       // a pointer, so that %v shows no key
	hc      *http.Client   // cfg.httpClient behind keepAlive
	macs    *sign.MACCache // keyed HMAC states of this client's key
}

// service is the state every service shares: the caller of its Client.
type service struct{ client *caller }

// callConfig is the config of one call: the client's, changed by opts.
func (c *caller) callConfig(opts []Option) (*config, error) {
	if len(opts) == 0 {
		return &c.cfg, nil
	}
	cfg := c.cfg
	cfg.target = forCall
	if err := cfg.apply(opts); err != nil {
		return nil, err
	}
	return &cfg, nil
}
