package contract

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/paths"
)

// Validators validates requests and answers against the contract with
// pb33f/libopenapi-validator in strict mode (an undeclared property, query
// parameter or header is an error), with format assertions.
type Validators struct {
	spec   *Spec
	strict validator.Validator
}

// testingT is what NewValidators needs of a *testing.T.
type testingT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// NewValidators builds the validators of spec.
func NewValidators(t testingT, spec *Spec) *Validators {
	t.Helper()
	strict, errs := validator.NewValidator(spec.Doc, config.WithFormatAssertions(), config.WithStrictMode())
	if len(errs) > 0 {
		t.Fatalf("strict validator: %v", errs)
	}
	return &Validators{spec: spec, strict: strict}
}

// OperationOf returns the operationId of the request's operation ("" when
// no path of the contract matches).
func (v *Validators) OperationOf(req *http.Request) string {
	item, errs, _ := paths.FindPath(req, v.spec.Model, nil)
	if len(errs) > 0 || item == nil {
		return ""
	}
	for method, op := range item.GetOperations().FromOldest() {
		if strings.EqualFold(method, req.Method) {
			return op.OperationId
		}
	}
	return ""
}

// Request validates req (method, path, query, headers, body) in strict mode
// against its operation; it returns the operationId and each validation error as
// Describe writes it.
func (v *Validators) Request(req *http.Request) (string, []string) {
	op := v.OperationOf(req)
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	_, errs := v.strict.ValidateHttpRequestSync(req)
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, Describe(e)...)
	}
	// A form body where the operation takes JSON is still checked: its
	// fields, read as the JSON object, against the JSON schema.
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" && op != "" {
		if o := v.spec.Operations[op].Operation; o.RequestBody != nil && o.RequestBody.Content != nil {
			if j := o.RequestBody.Content.GetOrZero("application/json"); j != nil && j.Schema != nil {
				form, err := url.ParseQuery(string(body))
				if err != nil {
					out = append(out, "form body: "+err.Error())
				} else {
					for _, d := range ValidateObject(j.Schema.Schema(), FormObject(j.Schema.Schema(), form), "form field") {
						out = append(out, "form body as JSON: "+d)
					}
				}
			}
		}
	}
	return op, out
}

// Answer validates resp, the answer to req, in strict mode against the
// operation's response schema.
func (v *Validators) Answer(req *http.Request, resp *http.Response) []string {
	_, errs := v.strict.ValidateHttpResponse(req, resp)
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, Describe(e)...)
	}
	return out
}
