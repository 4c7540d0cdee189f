package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// selfTest plays a browser without JavaScript: it loads the product page,
// does what the client script does (POST the establish data to the
// sandbox's session endpoint), walks the bank list, signs in, authorizes,
// follows the redirect back to the shop, then does what the order page's
// script does: follows the order until the Authorize event has triggered
// the capture, lets 3 banking days pass (sandbox) and refunds it.
func selfTest(base string) error {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	page, err := get(hc, base+"/")
	if err != nil {
		return err
	}
	data := between(page, `<script type="application/json" id="establish-data">`, `</script>`)
	script := between(page, `<script src="`, `"`)
	if data == "" || script == "" {
		return errors.New("selftest: the product page has no establish data or script")
	}
	var d struct{ MerchantReference string }
	if err := json.Unmarshal([]byte(data), &d); err != nil || d.MerchantReference == "" {
		return fmt.Errorf("selftest: establish data %s: %v", data, err)
	}
	sandbox := script[:strings.Index(script, "/ui/sdk.js")]
	resp, err := hc.Post(sandbox+"/ui/session", "application/json", strings.NewReader(data))
	if err != nil {
		return err
	}
	var sess struct{ URL string }
	err = json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("selftest: session: HTTP %d", resp.StatusCode)
	}
	banks, err := get(hc, sandbox+sess.URL)
	if err != nil {
		return err
	}
	signin := regexp.MustCompile(`href="(/ui/signin\?s=[0-9a-f]+)"`).FindStringSubmatch(banks)
	if signin == nil {
		return errors.New("selftest: no bank in the bank list")
	}
	s := strings.TrimPrefix(signin[1], "/ui/signin?s=")
	accounts, err := post(hc, sandbox+"/ui/signin", url.Values{"s": {s}, "password": {"demo"}})
	if err != nil {
		return err
	}
	if !strings.Contains(accounts, "Choose an account") {
		return errors.New("selftest: sign-in did not reach the account choice")
	}
	result, err := post(hc, sandbox+"/ui/finish", url.Values{"s": {s}, "action": {"authorize"}})
	if err != nil {
		return err
	}
	if h1 := between(result, `<h1 id="result">`, "</h1>"); h1 != "Authorized" && h1 != "Charged" {
		return fmt.Errorf("selftest: return page %q", between(result, "<main>", "</main>"))
	}

	return followOrder(hc, base+"/orders/"+url.PathEscape(d.MerchantReference))
}

// followOrder does what the order page's script does: it follows the
// order until the capture exists, waits 3 banking days, then refunds it.
func followOrder(hc *http.Client, order string) error {
	// The order page's script: follow the order until the capture exists.
	var o orderJSON
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if o, err = getOrder(hc, http.MethodGet, order); err != nil {
			return err
		}
		if o.Final || o.Capture != "" || time.Now().After(deadline) {
			break
		}
	}
	if o.Title != "Charged" || o.Capture == "" {
		return fmt.Errorf("selftest: order %+v, want Charged with a capture", o)
	}
	fmt.Printf("checkout: charged %s USD with capture %s (%s)\n", price, o.Capture, o.Status)
	if o, err = getOrder(hc, http.MethodPost, order+"/wait"); err != nil {
		return err
	}
	if o.Title != "Paid" || strings.Join(o.Events, ",") != "Process,Complete" {
		return fmt.Errorf("selftest: after 3 banking days: %+v, want Paid after Process, Complete", o)
	}
	fmt.Printf("checkout: capture %s %s after events %s\n", o.Capture, o.Status, strings.Join(o.Events, ", "))
	if o, err = getOrder(hc, http.MethodPost, order+"/refund"); err != nil {
		return err
	}
	if o.Title != "Refunded" || len(o.Refunds) != 1 || o.Events[len(o.Events)-1] != "Refund" {
		return fmt.Errorf("selftest: after the refund: %+v, want Refunded with a Refund event", o)
	}
	fmt.Printf("checkout: refunded %s USD: refund %s, capture %s\n", price, o.Refunds[0], o.Status)
	return nil
}

// orderJSON is what the shop's /orders/{ref} answers.
type orderJSON struct {
	Title, Status, Capture string
	Final                  bool
	Events, Refunds        []string
}

func getOrder(hc *http.Client, method, u string) (orderJSON, error) {
	var o orderJSON
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		return o, err
	}
	body, err := read(hc.Do(req))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		return o, fmt.Errorf("selftest: %s %s: %w", method, u, err)
	}
	return o, nil
}

func get(hc *http.Client, u string) (string, error) {
	resp, err := hc.Get(u)
	return read(resp, err)
}

func post(hc *http.Client, u string, v url.Values) (string, error) {
	resp, err := hc.PostForm(u, v)
	return read(resp, err)
}

func read(resp *http.Response, err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("selftest: %s: HTTP %d", resp.Request.URL.Path, resp.StatusCode)
	}
	return string(b), nil
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return v
}
