package bankpaytest

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/bankpay/bankpay-go/models"
)

// uiPrefix is where the sandbox serves the user's side: the client script
// (/ui/sdk.js) and the bank-selection pages behind it.
const uiPrefix = "/ui/"

// uiPassword is the sandbox demo bank's password. For identity establish
// data it means OutcomeEligible, with ":help" appended OutcomeNotEligible,
// and any other non-empty password OutcomeExcessData.
const uiPassword = "demo"

// uiMaxSessions bounds the sessions open at once: a session ends when the
// user authorizes or cancels, and abandoned ones would otherwise pile up.
const uiMaxSessions = 10000

//go:embed ui/sdk.js ui/style.css
var uiAssets embed.FS

// uiSession is one user's pass through the pages: the establish data the
// script checked, kept until the user authorizes or cancels.
type uiSession struct {
	d models.EstablishData
	// acct is the account the pages show and the authorization records.
	acct *models.PaymentAccount
}

type uiServer struct {
	s        *Server
	mu       sync.Mutex
	sessions map[string]*uiSession
}

// withUI sends /ui/ to the user's side and everything else to api.
func (s *Server) withUI(api http.Handler) http.Handler {
	ui := s.uiHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, uiPrefix) {
			ui.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// uiHandler serves the user's side under /ui/.
func (s *Server) uiHandler() http.Handler {
	u := &uiServer{s: s, sessions: map[string]*uiSession{}}
	mux := http.NewServeMux()
	mux.Handle("GET /ui/sdk.js", http.StripPrefix("/", http.FileServerFS(uiAssets)))
	mux.Handle("GET /ui/style.css", http.StripPrefix("/", http.FileServerFS(uiAssets)))
	mux.HandleFunc("POST /ui/session", u.session)
	mux.HandleFunc("GET /ui/banks", u.page("banks"))
	mux.HandleFunc("GET /ui/signin", u.page("signin"))
	mux.HandleFunc("POST /ui/signin", u.signin)
	mux.HandleFunc("POST /ui/finish", u.finish)
	return mux
}

// session checks the establish data's signature as the service's interface
// does and opens a session for it. CORS is open: the merchant's page calls it.
func (u *uiServer) session(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	body, rerr := readBody(r, u.s.maxBody)
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	var d models.EstablishData
	if err := decodeJSON(body, &d); err != nil {
		writeError(w, err)
		return
	}
	u.s.mu.Lock()
	m := u.s.st.byAccess[d.AccessID]
	var err *Error
	if m == nil {
		err = accessDenied("unknown accessId")
	} else if err = checkEstablishSignature(m, &d); err == nil {
		err = checkEstablishData(m, &d)
	}
	u.s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	u.mu.Lock()
	full := len(u.sessions) >= uiMaxSessions
	if !full {
		u.sessions[id] = &uiSession{d: d, acct: demoAccount(id)}
	}
	u.mu.Unlock()
	if full {
		writeError(w, &Error{Status: http.StatusServiceUnavailable, Code: codeInternal, Message: "too many open bank-selection sessions"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": "/ui/banks?s=" + id})
}

func (u *uiServer) get(r *http.Request) (string, *uiSession) {
	id := r.FormValue("s")
	u.mu.Lock()
	defer u.mu.Unlock()
	return id, u.sessions[id]
}

type uiView struct {
	S, Error string
	Bank     string
	Identity bool
	Account  string
}

func (u *uiServer) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ss := u.get(r)
		if ss == nil {
			http.Error(w, "unknown or finished session", http.StatusNotFound)
			return
		}
		u.render(w, name, uiView{S: id, Identity: ss.d.KYCType == models.KYCTypeIdentity})
	}
}

func (u *uiServer) render(w http.ResponseWriter, name string, v uiView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	v.Bank = SandboxBankName
	if err := uiPages.ExecuteTemplate(w, name, v); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
	}
}

// signin checks the demo password: a wrong one shows the sign-in page again
// with an error (retry or cancel); identity passwords go straight to the
// outcome, the others to the account choice.
func (u *uiServer) signin(w http.ResponseWriter, r *http.Request) {
	id, ss := u.get(r)
	if ss == nil {
		http.Error(w, "unknown or finished session", http.StatusNotFound)
		return
	}
	pw := r.FormValue("password")
	v := uiView{S: id, Identity: ss.d.KYCType == models.KYCTypeIdentity}
	if v.Identity {
		outcome := OutcomeExcessData
		switch {
		case pw == "":
			v.Error = "Enter your password."
			u.render(w, "signin", v)
			return
		case pw == uiPassword:
			outcome = OutcomeEligible
		case pw == uiPassword+":help":
			outcome = OutcomeNotEligible
		}
		u.complete(w, r, id, ss, outcome)
		return
	}
	if pw != uiPassword {
		w.WriteHeader(http.StatusUnauthorized)
		v.Error = "Wrong user name or password. Try again or cancel."
		u.render(w, "signin", v)
		return
	}
	n := ss.acct.AccountNumber
	v.Account = ss.acct.Name + " …" + n[max(0, len(n)-4):]
	u.render(w, "accounts", v)
}

// finish serves the Authorize and Cancel buttons.
func (u *uiServer) finish(w http.ResponseWriter, r *http.Request) {
	id, ss := u.get(r)
	if ss == nil {
		http.Error(w, "unknown or finished session", http.StatusNotFound)
		return
	}
	outcome := OutcomeCancel
	if r.FormValue("action") == "authorize" {
		outcome = OutcomeAuthorize
	}
	u.complete(w, r, id, ss, outcome)
}

// complete ends the session through Server.Authorize and sends the top
// window to the redirect it signed.
func (u *uiServer) complete(w http.ResponseWriter, r *http.Request, id string, ss *uiSession, o Outcome) {
	u.mu.Lock()
	delete(u.sessions, id)
	u.mu.Unlock()
	acct := *ss.acct
	to, _, err := u.s.authorizeWith(ss.d, o, &acct)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		u.render(w, "failed", uiView{Error: err.Error()})
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

var uiPages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Sandbox bank selection</title>
<link rel="stylesheet" href="/ui/style.css"></head><body><main>{{end}}
{{define "cancel"}}<form method="post" action="/ui/finish" target="_top"><input type="hidden" name="s" value="{{.S}}">
<button type="submit" name="action" value="cancel">Cancel</button></form>{{end}}
{{define "banks"}}{{template "head"}}<h1>Select your bank</h1>
<ul style="list-style:none;padding:0"><li><a class="bank" href="/ui/signin?s={{.S}}">{{.Bank}}</a></li></ul>
{{template "cancel" .}}</main></body></html>{{end}}
{{define "signin"}}{{template "head"}}<h1>Sign in to {{.Bank}}</h1>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/ui/signin" target="_self"><input type="hidden" name="s" value="{{.S}}">
<label for="user">User name</label><input id="user" name="user" autocomplete="username" value="demo">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p>Demo password: <code>demo</code>{{if .Identity}} (<code>demo:help</code>: not eligible; any other: excess data){{end}}</p>
<button class="primary" type="submit" formtarget="{{if .Identity}}_top{{else}}_self{{end}}">Sign in</button></form>
{{template "cancel" .}}</main></body></html>{{end}}
{{define "accounts"}}{{template "head"}}<h1>Choose an account</h1>
<form method="post" action="/ui/finish" target="_top"><input type="hidden" name="s" value="{{.S}}">
<fieldset><legend>Account</legend><label><input type="radio" name="account" value="demo" checked> {{.Account}}</label></fieldset>
<button class="primary" type="submit" name="action" value="authorize">Authorize</button>
<button type="submit" name="action" value="cancel">Cancel</button></form></main></body></html>{{end}}
{{define "failed"}}{{template "head"}}<h1>Something went wrong</h1><p class="error" role="alert">{{.Error}}</p></main></body></html>{{end}}
`))

// ScriptURL is the address of the sandbox's client script, the
// {sdk_script_url} a merchant's page loads (with ?accessId=…). The script
// serves the bank-selection pages from the same origin.
func (s *Server) ScriptURL() string {
	return s.ts.URL + uiPrefix + "sdk.js"
}
