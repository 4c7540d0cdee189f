// Command tokenize shows account tokenization and verification: the merchant
// exchanges an account number and routing number for a token (the same one
// each time for the same account), optionally asking the service to verify
// the account, and reads the verification score. The sandbox's documented
// account numbers give known scores, and its error triggers known errors.
//
// Run it with no BANKPAY_* variables to use the embedded sandbox.
package main

import (
	"context"
	"errors"
	"fmt"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/examples/internal/exampleenv"
)

func main() { exampleenv.Main("tokenize", run) }

func run(ctx context.Context, env *exampleenv.Env) error {
	c := env.Client
	routing := bankpaytest.SandboxRoutingNumber

	env.Section("1. Tokenize")
	p := &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: routing, AccountType: 1}
	env.Call("Accounts.Tokenize(account ...%s, routing %s)", last4(p.AccountNumber), routing)
	tk, err := c.Accounts.Tokenize(ctx, p)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	env.Result("token %s (store it instead of the account number)", tk.Account.Token)
	env.Call("Accounts.Tokenize(the same account again)")
	again, err := c.Accounts.Tokenize(ctx, p)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	env.Result("token %s: the same, unique per merchant and account", again.Account.Token)
	if tk.Account.Token == "" || again.Account.Token != tk.Account.Token {
		return fmt.Errorf("tokens %q and %q: want the same non-empty token", tk.Account.Token, again.Account.Token)
	}

	env.Section("2. Tokenize and verify")
	for _, row := range []struct {
		account, what string
		score         int
		third         int // -1: no third-party score
		verified      bool
	}{
		{"1000000010", "score 10, non third-party", 10, -1, true},
		{"1000000004", "score 4, non third-party", 4, -1, false},
		{"1000001700", "FCRA third-party score 700", 7, 700, true},
		{"1000001300", "FCRA third-party score 300", 3, 300, false},
		{"1000001045", "Non-FCRA third-party score 45", 1, 45, true},
		{"1000001020", "Non-FCRA third-party score 20", 1, 20, false},
	} {
		p := &bankpay.TokenizeParams{AccountNumber: row.account, RoutingNumber: routing, VerifyAccount: true}
		env.Call("Accounts.Tokenize(account %s, verifyAccount) - sandbox: %s", row.account, row.what)
		tk, err := c.Accounts.Tokenize(ctx, p)
		if err != nil {
			return fmt.Errorf("tokenize %s: %w", row.account, err)
		}
		v := tk.Account.Verification
		if v == nil || v.Score == nil {
			return fmt.Errorf("tokenize %s: no verification score in the response", row.account)
		}
		third := "none"
		if v.ThirdPartyScore != nil {
			third = fmt.Sprint(*v.ThirdPartyScore)
		}
		env.Result("verified %t, score %d/10, third-party score %s, verification type %d on %s", v.Verified, *v.Score, third, v.Type, v.VerificationDate)
		if v.Verified != row.verified || *v.Score != row.score || (row.third < 0) != (v.ThirdPartyScore == nil) ||
			(v.ThirdPartyScore != nil && *v.ThirdPartyScore != row.third) {
			return fmt.Errorf("tokenize %s: got verified %t score %d third-party %s", row.account, v.Verified, *v.Score, third)
		}
	}

	return tokenizeErrors(ctx, env, c, routing)
}

// tokenizeErrors shows the typed errors of the sandbox's error triggers.
func tokenizeErrors(ctx context.Context, env *exampleenv.Env, c *bankpay.Client, routing string) error {
	env.Section("3. Errors")
	p := &bankpay.TokenizeParams{AccountNumber: "12ab", RoutingNumber: routing}
	env.Call("Accounts.Tokenize(account %q)", p.AccountNumber)
	_, err := c.Accounts.Tokenize(ctx, p)
	var ve *bankpay.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("tokenize a malformed account: got %v, want a *bankpay.ValidationError", err)
	}
	env.Result("refused by the SDK, nothing sent: %v", err)
	for _, t := range []struct {
		account  string
		sentinel error
	}{
		{"1002000000", bankpay.ErrBadRequest},
		{"1003750000", bankpay.ErrUnauthorized},
		{"1001000000", bankpay.ErrServer},
	} {
		env.Call("Accounts.Tokenize(account %s) - a sandbox error trigger", t.account)
		_, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: t.account, RoutingNumber: routing})
		var apiErr *bankpay.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, t.sentinel) {
			return fmt.Errorf("tokenize %s: got %v, want %v", t.account, err, t.sentinel)
		}
		env.Result("errors.Is(err, %s): HTTP %d, code %d", sentinelName(t.sentinel), apiErr.StatusCode, apiErr.Code)
	}
	return nil
}

func sentinelName(err error) string {
	switch err {
	case bankpay.ErrBadRequest:
		return "ErrBadRequest"
	case bankpay.ErrUnauthorized:
		return "ErrUnauthorized"
	case bankpay.ErrServer:
		return "ErrServer"
	}
	return err.Error()
}

func last4(n string) string {
	if len(n) <= 4 {
		return n
	}
	return n[len(n)-4:]
}
