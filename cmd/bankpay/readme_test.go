package main

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeCLI is the README's Operations CLI section followed by
// docs/cli.md, the page it links for each flag and -json field.
func readmeCLI(t *testing.T) string {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	s := string(raw)
	start := strings.Index(s, "\n## Operations CLI\n")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(s[start+1:], "\n## ")
	require.Greater(t, end, 0)
	section := s[start : start+1+end]
	require.Contains(t, section, "(docs/cli.md)", "the README's CLI section links docs/cli.md")
	detail, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	return section + "\n" + string(detail)
}

// jsonTags are the JSON names of struct v's fields.
func jsonTags(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		out = append(out, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	return out
}

// TestReadmeCLIJSONFields: the README names every field -json prints, for
// transactions, events and deliveries.
func TestReadmeCLIJSONFields(t *testing.T) {
	section := readmeCLI(t)
	for _, f := range append(append(jsonTags(eventView{}), jsonTags(deliveryLine{})...), transactionJSONOptional...) {
		assert.Contains(t, section, "`"+f+"`", "the README's Operations CLI section does not name the -json field %s", f)
	}
}

// TestReadmeLocalLoop runs the README's local-loop lines against a
// sandbox: each is a command line the CLI takes (no usage error), and
// listen runs until its context ends.
func TestReadmeLocalLoop(t *testing.T) {
	section := readmeCLI(t)
	block := regexp.MustCompile("(?s)```sh\n([^`]*listen -forward-to[^`]*)```").FindStringSubmatch(section)
	require.NotNil(t, block, "no local-loop block")
	c := newCLI(t)
	lines := strings.Split(strings.TrimSpace(block[1]), "\n")
	require.GreaterOrEqual(t, len(lines), 4)
	for _, line := range lines {
		line = strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		args := strings.Fields(strings.TrimPrefix(line, "go run ./cmd/bankpay"))
		require.NotEmpty(t, args, line)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var out, errOut lockedBuffer
		code := run(ctx, args, &env{getenv: func(k string) string { return c.vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut})
		cancel()
		assert.NotEqual(t, exitUsage, code, "%s: %s", line, errOut.String())
		if args[0] == "trigger" && len(args) == 2 {
			assert.Equal(t, exitOK, code, "%s: %s", line, errOut.String())
		}
	}
}
