package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/strict"
	"github.com/pb33f/libopenapi/datamodel/high/base"
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
	out := withoutUndeclared(errs)
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/json" && op != "" {
		if o := v.spec.Operations[op].Operation; o.RequestBody != nil && o.RequestBody.Content != nil {
			if j := o.RequestBody.Content.GetOrZero("application/json"); j != nil && j.Schema != nil {
				out = append(out, Undeclared(j.Schema.Schema(), body, strict.DirectionRequest)...)
			}
		}
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
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	_, errs := v.strict.ValidateHttpResponse(req, resp)
	out := withoutUndeclared(errs)
	if op := v.spec.Operations[v.OperationOf(req)]; op != nil {
		if s := op.SchemaFor(resp.StatusCode); s != nil {
			out = append(out, Undeclared(s, body, strict.DirectionResponse)...)
		}
	}
	return out
}

// withoutUndeclared describes errs but for the validator's undeclared
// properties of a body: it reports those only when the body otherwise
// passes, so Undeclared walks every body itself.
func withoutUndeclared(errs []*verrors.ValidationError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		if e.ValidationType == verrors.StrictValidationType && e.ValidationSubType == verrors.StrictSubTypeProperty {
			continue
		}
		out = append(out, Describe(e)...)
	}
	return out
}

// Undeclared is the strict walk of a JSON body against schema on its own,
// whatever else is wrong with the body: each property the schema does not
// declare, as the validator writes it ("strict/undeclared-property:
// response property 'x' at '$.body.x' is not declared in schema"). A body
// that is not JSON has none.
func Undeclared(schema *base.Schema, body []byte, dir strict.Direction) []string {
	var data any
	if len(bytes.TrimSpace(body)) == 0 || json.Unmarshal(body, &data) != nil {
		return nil
	}
	opts := config.NewValidationOptions(config.WithStrictMode())
	var out []string
	for _, u := range strict.ValidateBody(schema, data, dir, opts, 3.1).UndeclaredValues {
		out = append(out, fmt.Sprintf("strict/undeclared-property: %s property '%s' at '%s' is not declared in schema", dir, u.Name, u.Path))
	}
	sort.Strings(out)
	return out
}
