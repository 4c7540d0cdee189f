package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
)

// errorAnswer is one non-2xx answer the OpenAPI declares.
type errorAnswer struct {
	op     string
	status int
}

// declaredErrors returns every non-2xx answer with a JSON schema the
// OpenAPI declares, sorted.
func declaredErrors(spec *Spec) []errorAnswer {
	var out []errorAnswer
	for id, op := range spec.Operations {
		for code := range op.Operation.Responses.Codes.FromOldest() {
			status, err := strconv.Atoi(code)
			if err != nil || status < 300 || op.SchemaFor(status) == nil || len(SchemaProperties(op.SchemaFor(status))) == 0 {
				continue
			}
			out = append(out, errorAnswer{id, status})
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// wantError is the code and message the SDK must read from an error body:
// the first item of {"errors":[…]}, or the flat BaseException, or
// {"message":…} (code 0).
func wantError(body map[string]any) (code int, message string, ok bool) {
	item := body
	if list, isList := body["errors"].([]any); isList {
		if len(list) == 0 {
			return 0, "", true
		}
		if item, ok = list[0].(map[string]any); !ok {
			return 0, "", false
		}
	} else if _, has := body["errorsList"]; has {
		return 0, "", false // a lookup answer: not an error shape the SDK reads
	}
	if c, has := item["code"]; has && c != nil {
		n, err := strconv.ParseFloat(scalarText(c), 64)
		if err != nil {
			return 0, "", false
		}
		code = int(n)
	}
	message, _ = item["message"].(string)
	return code, strings.TrimSpace(message), true
}

var longDigits = regexp.MustCompile(`[0-9]{5}`)

// TestErrorAnswers generates every error answer the OpenAPI declares for
// its operation and checks that the SDK's call returns an *APIError with
// the status, code and message of the body.
func TestErrorAnswers(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	calls := map[string]Call{}
	for _, op := range Operations() {
		calls[op.ID] = op.Calls[0]
	}
	declared := declaredErrors(spec)
	require.GreaterOrEqual(t, len(declared), 17, "the OpenAPI's declared error answers")
	shapes := map[string]int{}
	for _, ea := range declared {
		t.Run(fmt.Sprintf("%s %d", ea.op, ea.status), func(t *testing.T) {
			rec := &recorder{val: val, status: ea.status, seen: map[string]bool{}}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			schema := spec.Operations[ea.op].SchemaFor(ea.status)
			for i := 0; i < 2*AnswersPerMode/4; i++ {
				gen, _, err := Generate(schema, seedOf(fmt.Sprintf("%s %d", ea.op, ea.status), i), Mode(i%2))
				require.NoError(t, err)
				body, err := json.Marshal(gen)
				require.NoError(t, err)
				rec.mu.Lock()
				rec.body = body
				rec.mu.Unlock()
				_, err = calls[ea.op](context.Background(), c)
				var apiErr *bankpay.APIError
				if !assert.True(t, errors.As(err, &apiErr), "body %s: want an *APIError, got %v", body, err) {
					continue
				}
				assert.Equal(t, ea.status, apiErr.StatusCode, "body %s", body)
				obj, _ := gen.(map[string]any)
				code, message, ok := wantError(obj)
				if !ok {
					shapes["not an error shape"]++
					continue
				}
				switch {
				case obj["errors"] != nil:
					shapes["errors"]++
				case obj["code"] != nil || obj["domain"] != nil:
					shapes["BaseException"]++
				default:
					shapes["message"]++
				}
				assert.Equal(t, code, apiErr.Code, "body %s: code", body)
				if longDigits.MatchString(message) {
					assert.Contains(t, apiErr.Message, "[redacted]", "body %s: a digit run is masked", body)
				} else {
					assert.Equal(t, message, apiErr.Message, "body %s: message", body)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, p := range rec.problems {
				t.Errorf("request not in the contract and not allow-listed: %s", p)
			}
		})
	}
	t.Logf("%d declared error answers; bodies by shape: %v", len(declared), shapes)
}
