package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

// triggerEventNames lists the events trigger makes the sandbox emit.
var triggerEventNames = func() string {
	names := make([]string, len(bankpaytest.TriggerEvents))
	for i, t := range bankpaytest.TriggerEvents {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}()

// sandboxCtl calls a sandbox's control endpoints (below /sandbox) with the
// merchant's credentials.
type sandboxCtl struct {
	base  string // the control URL, …/sandbox
	creds bankpay.Credentials
	http  httpDoer
}

// httpDoer sends a request: an *http.Client.
type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// sandbox returns the control client of the sandbox BANKPAY_BASE_URL
// names: a loopback address, or any with BANKPAY_SANDBOX=1 over https (the
// merchant's key is sent with every control call: plain http:// to another
// host would send it in the clear). Anything else (the service, or no
// BANKPAY_BASE_URL: the operator's sandbox) is a usage error, and nothing
// is dialled: the command is sandbox-only.
func (e *env) sandbox(cmd string) (*sandboxCtl, error) {
	base := e.getenv("BANKPAY_BASE_URL")
	u, err := url.Parse(base)
	switch {
	case base == "":
		return nil, usagef("%s is sandbox-only: it drives a bankpay sandbox (bankpay sandbox) through its /sandbox control endpoints, "+
			"and BANKPAY_BASE_URL is not set (the operator's service); export the sandbox's BANKPAY_* variables; nothing was sent", cmd)
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return nil, usagef("BANKPAY_BASE_URL is not an http(s) URL; nothing was sent")
	case !isLoopback(u.Hostname()) && e.getenv("BANKPAY_SANDBOX") != "1":
		return nil, usagef("%s is sandbox-only: BANKPAY_BASE_URL (%s) is not a loopback address, so it may be the live service; "+
			"for a bankpay sandbox on another host set BANKPAY_SANDBOX=1; nothing was sent", cmd, u.Host)
	case !isLoopback(u.Hostname()) && u.Scheme != "https":
		return nil, usagef("%s: BANKPAY_BASE_URL (%s) is plain http:// to a host that is not a loopback address: "+
			"the access key would cross the network unencrypted; serve the sandbox over https:// (or reach it through "+
			"a loopback address, such as an SSH tunnel); nothing was sent", cmd, u.Host)
	}
	creds, err := e.credentials()
	if err != nil {
		return nil, err
	}
	ctl := strings.TrimRight(base, "/")
	ctl = strings.TrimSuffix(ctl, "/api/v1") + "/sandbox"
	var hc httpDoer = &http.Client{}
	if e.ctlHTTP != nil {
		hc = e.ctlHTTP
	}
	return &sandboxCtl{base: ctl, creds: creds, http: hc}, nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// controlError is a control endpoint's error response.
type controlError struct {
	status int
	msg    string
}

func (c *controlError) Error() string {
	return fmt.Sprintf("the sandbox responded %d: %s", c.status, c.msg)
}

// Unwrap makes a 404 read as bankpay.ErrNotFound (exit 4).
func (c *controlError) Unwrap() error {
	if c.status == http.StatusNotFound {
		return bankpay.ErrNotFound
	}
	return nil
}

// call makes one control request and decodes its JSON response into out.
func (c *sandboxCtl) call(ctx context.Context, method, path string, q url.Values, out any) error {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth(c.creds.AccessID, c.creds.AccessKey.Reveal())
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("the sandbox at %s: %w", c.base, redactURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("the sandbox's response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb struct {
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		msg := http.StatusText(resp.StatusCode)
		if json.Unmarshal(body, &eb) == nil && len(eb.Errors) > 0 {
			msg = eb.Errors[0].Message
		}
		return &controlError{status: resp.StatusCode, msg: msg}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("the sandbox's response is not what %s returns: %w", path, err)
	}
	return nil
}

// redactURLError keeps a *url.Error's cause, not its URL (which holds no
// secret, but is printed once already).
func redactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// eventView is an event as list, trigger and listen -json print it: a
// stable shape, documented in the README (Operations CLI). The body and
// its signature are left out.
type eventView struct {
	EventID       string    `json:"eventId"`
	EventType     string    `json:"eventType"`
	TransactionID string    `json:"transactionId"`
	CreatedAt     time.Time `json:"createdAt"`
	URL           string    `json:"url,omitempty"`
	Attempts      int       `json:"attempts"`
	LastStatus    int       `json:"lastStatus"`
	Delivered     bool      `json:"delivered"`
}

func viewOf(ev bankpaytest.Event) eventView {
	return eventView{EventID: ev.EventID, EventType: string(ev.EventType), TransactionID: ev.TransactionID,
		CreatedAt: ev.CreatedAt, URL: ev.URL, Attempts: len(ev.Attempts), LastStatus: ev.LastStatus(), Delivered: ev.Delivered}
}

// parseInterspersed parses fs's flags wherever they stand among args (Go's
// flag package stops at the first argument) and returns the arguments.
func parseInterspersed(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
