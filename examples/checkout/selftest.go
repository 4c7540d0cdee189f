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
)

// selfTest plays a browser without JavaScript: it loads the product page,
// does what the client script does (POST the establish data to the
// sandbox's session endpoint), walks the bank list, signs in, authorizes,
// follows the redirect back to the shop and checks the result page.
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
	if !strings.Contains(result, `<h1 id="result">Paid</h1>`) {
		return fmt.Errorf("selftest: result page %q", between(result, "<main>", "</main>"))
	}
	fmt.Println("checkout: paid", between(result, "<p>Paid ", "</p>"))
	return nil
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
