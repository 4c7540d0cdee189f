package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagErrorsExit2: a flag a command does not know, a flag without its
// value and a bad value are usage errors (exit 2, nothing sent), in every
// command and subcommand.
func TestFlagErrorsExit2(t *testing.T) {
	c := newCLI(t)
	lines := [][]string{
		{"transactions", "get", "-bogus", "1"}, {"transactions", "find", "-bogus"}, {"transactions", "list", "-bogus"},
		{"transactions", "list", "-limit", "many"}, {"transactions", "list", "-status", "Shipped"}, {"transactions", "list", "-type", "-3"},
		{"refund", "-bogus", "1"}, {"deposit", "-amount"}, {"capture", "-bogus", "1"}, {"reclaim", "-bogus", "1"},
		{"cancel", "-bogus", "1"}, {"payments", "get", "-bogus", "1"}, {"sign-establish", "-bogus", "x"},
		{"verify-redirect", "-bogus", "x"}, {"verify-notification", "-bogus"}, {"sandbox", "-bogus"}, {"sandbox", "extra"},
		{"listen", "-bogus"}, {"listen", "-retries", "x", "-forward-to", "http://localhost/"}, {"trigger", "-bogus", "Complete"},
		{"events", "list", "-bogus"}, {"events", "resend", "1", "-bogus"}, {"events", "resend"}, {"trigger"},
	}
	for _, args := range lines {
		code, out, errOut := c.run("", args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
	}
	assert.Empty(t, c.srv.Events(), "nothing sent")
}

// TestTransactionsListFilters: -status and -type take names or codes,
// comma-separated; the table shows each transaction's original; -json
// prints the transactions with the fields the README documents.
func TestTransactionsListFilters(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-filter-auth")
	code, _, errOut := c.run("", "deposit", "-ref", "cli-filter-dep", "-amount", "2.00", auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)

	for _, status := range []string{"authorized", "2", "Completed,Authorized"} {
		for _, typ := range []string{"Deposit", "6", "deposit,capture"} {
			code, out, errOut := c.run("", "transactions", "list", "-original", auth.TransactionID, "-status", status, "-type", typ)
			require.Equal(t, exitOK, code, errOut)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 2, "-status %s -type %s: %s", status, typ, out)
			assert.Regexp(t, `\sDeposit\s+Authorized\s+2.00 USD\s+cli-filter-dep\s+`+auth.TransactionID+`\s`, lines[1])
		}
	}
	code, out, _ := c.run("", "transactions", "list", "-ref", "cli-filter-auth", "-type", "Authorize")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Regexp(t, `^`+auth.TransactionID+`\s+Authorize\s+Authorized\s.*\s-\s`, lines[1], "no original: -")
	code, out, _ = c.run("", "transactions", "list", "-original", auth.TransactionID, "-status", "Completed")
	require.Equal(t, exitOK, code)
	assert.Equal(t, 1, strings.Count(out, "\n"), "the header only: %s", out)

	code, out, _ = c.run("", "-json", "transactions", "list", "-original", auth.TransactionID)
	require.Equal(t, exitOK, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got, 1)
	var keys []string
	for k := range got[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Subset(t, keys, transactionJSONFields, "the fields a transaction always has in -json (README, Operations CLI)")
	for _, k := range keys {
		assert.Contains(t, transactionJSONOptional, k, "a field -json prints that the README does not document")
	}
	assert.EqualValues(t, 6, got[0]["transactionType"], "codes as numbers, as the API sends them")
	assert.EqualValues(t, 2, got[0]["status"])
}

// transactionJSONFields are the fields every transaction has in -json
// output, and transactionJSONOptional every field it may have, as the
// README's Operations CLI section lists them.
var (
	transactionJSONFields   = []string{"amount", "createdAt", "currency", "merchantReference", "status", "transactionId", "transactionType"}
	transactionJSONOptional = append([]string{"originalTransactionId", "payment", "paymentProviderTransaction", "statusMessage",
		"statusCode", "processedAt", "completedAt", "updatedAt", "ppTrxId", "paymentProcessorType", "recordVersion", "paid",
		"refunded", "balance", "expiredAt", "preAuthorized", "url"}, transactionJSONFields...)
)
