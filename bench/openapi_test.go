package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/stretchr/testify/require"
)

// openapiFile is the operator's OpenAPI, beside the repository (as for the
// contract suite and bench/ogenclient); $BANKPAY_OPENAPI overrides it.
func openapiFile() string {
	if p := os.Getenv("BANKPAY_OPENAPI"); p != "" {
		return p
	}
	return "../../shared/reference/operator-openapi.yml"
}

// TestOpenAPIAnswersValid validates every canned answer of the OpenAPI's
// shape against its operation's 200 answer in the operator's OpenAPI, with
// pb33f/libopenapi-validator in strict mode (an undeclared property is an
// error) and format assertions, as the contract suite does.
func TestOpenAPIAnswersValid(t *testing.T) {
	src, err := os.ReadFile(openapiFile())
	require.NoError(t, err, "the operator's OpenAPI (../shared/reference/operator-openapi.yml beside the repository, or $BANKPAY_OPENAPI)")
	doc, err := libopenapi.NewDocument(src)
	require.NoError(t, err)
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions(), config.WithStrictMode())
	require.Empty(t, errs)
	a := openapiAnswers()
	for _, c := range []struct {
		name, method, path string
		body               []byte
	}{
		{callGet, http.MethodGet, pathTransaction, a.transaction},
		{callDeposit, http.MethodPost, pathDeposit, a.deposit},
		{callList, http.MethodGet, pathTransactions + "?startIndex=0&count=100", a.list},
		{callSummary, http.MethodGet, pathSummary, a.summary},
		{callTokenize, http.MethodPost, pathTokenize + "?verifyAccount=true", a.tokenize},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, "https://sandbox.trustly.one"+c.path, nil)
			resp := &http.Response{StatusCode: http.StatusOK, Request: req, Body: io.NopCloser(bytes.NewReader(c.body)),
				Header: http.Header{"Content-Type": {"application/json"}}}
			ok, errs := v.ValidateHttpResponse(req, resp)
			require.True(t, ok, "%s %s: %s", c.method, c.path, describe(errs))
			require.Empty(t, errs)
		})
	}
}

// describe is the validator's errors, with each schema violation's reason
// and place.
func describe(errs []*verrors.ValidationError) string {
	var b bytes.Buffer
	for _, e := range errs {
		fmt.Fprintf(&b, "\n%s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n  %s: %s", s.FieldPath, s.Reason)
		}
	}
	return b.String()
}
