package contract

import (
	"net/http"
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
	_, errs := v.strict.ValidateHttpRequestSync(req)
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, Describe(e)...)
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
