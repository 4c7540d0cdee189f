package bankpaytest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// remoteClockTimeout bounds one read of a sandbox's /sandbox/now.
const remoteClockTimeout = 2 * time.Second

// RemoteClock returns the clock of a sandbox running in another process
// (cmd/bankpay-sandbox, "bankpay sandbox"), for a webhook handler under
// test against it:
//
//	bankpay.WithWebhookClock(bankpaytest.RemoteClock(os.Getenv("BANKPAY_BASE_URL"), creds))
//
// so that the events of a sandbox moved ahead (/sandbox/advance) are not
// refused as future-dated or stale. url is the sandbox's API base URL (its
// /api/v1 is replaced by /sandbox) or its control URL; creds are the
// merchant's, which the control endpoints require. Each call reads GET
// /sandbox/now (the events an advance fires are delivered while it runs, so
// an offset read once afterwards would come too late); when a read fails
// (2 s at most) it returns the real time plus the offset of the last read
// that succeeded. Not for production: the live service's clock is the real
// time.
func RemoteClock(url string, creds bankpay.Credentials) func() time.Time {
	c := &remoteClock{url: controlURLOf(url) + "/now", creds: creds, http: &http.Client{Timeout: remoteClockTimeout}}
	return c.now
}

// controlURLOf returns the control URL of a sandbox given its API base URL
// or its control URL.
func controlURLOf(url string) string {
	url = strings.TrimRight(url, "/")
	if base, ok := strings.CutSuffix(url, apiPrefix); ok {
		return base + controlPrefix
	}
	return url
}

type remoteClock struct {
	url   string
	creds bankpay.Credentials
	http  *http.Client

	mu     sync.Mutex
	offset time.Duration // the sandbox's lead over the real time at the last read
}

func (c *remoteClock) now() time.Time {
	t, err := c.read(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		return time.Now().Add(c.offset)
	}
	c.offset = time.Until(t)
	return t
}

// read asks the sandbox for its time.
func (c *remoteClock) read(ctx context.Context) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return time.Time{}, err
	}
	req.SetBasicAuth(c.creds.AccessID, c.creds.AccessKey.Reveal())
	resp, err := c.http.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("bankpaytest: GET /sandbox/now: status %d", resp.StatusCode)
	}
	var v struct {
		Now models.EpochMillis `json:"now"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&v); err != nil {
		return time.Time{}, fmt.Errorf("bankpaytest: GET /sandbox/now: %w", err)
	}
	if v.Now == 0 {
		return time.Time{}, fmt.Errorf("bankpaytest: GET /sandbox/now: no time")
	}
	return v.Now.Time(), nil
}
