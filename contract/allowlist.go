package contract

import (
	"fmt"
	"regexp"

	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// Where a difference is seen.
const (
	InRequest = "request" // a request the SDK sends
	InAnswer  = "answer"  // how generated answers are made or read
	InSandbox = "sandbox" // an answer of bankpaytest
	InWebhook = "webhook" // a notification
)

// Difference is one deliberate difference between the SDK (or its sandbox)
// and the operator's OpenAPI. Each is written in docs/wire.md, in the row
// that carries the anchor <a id="Wire"></a>.
type Difference struct {
	// ID names the difference in test output.
	ID string
	// Wire is the anchor of its docs/wire.md row.
	Wire string
	// Where is InRequest, InAnswer, InSandbox or InWebhook.
	Where string
	// Ops are the operationIds it applies to.
	Ops []string
	// Match is matched against a validation error as Describe writes it.
	Match *regexp.Regexp
}

// AllowList is every deliberate difference. A validation error is excused
// only by a row of this table; a row no run uses is stale.
var AllowList = []Difference{
	// Requests.
	{ID: "deposit-form", Wire: "wire-deposit-body", Where: InRequest,
		Ops:   []string{"transactions_post-transactions-deposit"},
		Match: regexp.MustCompile(`^request body content-type: application/x-www-form-urlencoded is not declared \(application/json\)`)},
	{ID: "capture-form", Wire: "wire-capture-body", Where: InRequest,
		Ops:   []string{"transactions_post-transactions-transactionId-capture"},
		Match: regexp.MustCompile(`^request body content-type: application/x-www-form-urlencoded is not declared \(application/json\)`)},
	{ID: "preauth-form", Wire: "wire-preauth-body", Where: InRequest,
		Ops:   []string{"transactions_post-transactions-transactionId-capture-preauth"},
		Match: regexp.MustCompile(`^request body content-type: application/x-www-form-urlencoded is not declared \(application/json\)`)},
}

// Describe writes a validation error as one line per difference: its kind
// and message, or, for a schema failure, its kind, the field's JSON path and
// the reason ("requestBody/schema at $.kycType: got number, want string").
func Describe(e *verrors.ValidationError) []string {
	kind := e.ValidationType + "/" + e.ValidationSubType
	if len(e.SchemaValidationErrors) == 0 {
		line := kind + ": " + e.Message
		if e.Reason != "" {
			line += "; " + e.Reason
		}
		return []string{line}
	}
	out := make([]string, 0, len(e.SchemaValidationErrors))
	for _, f := range e.SchemaValidationErrors {
		out = append(out, fmt.Sprintf("%s at %s: %s", kind, f.FieldPath, f.Reason))
	}
	return out
}

// Excuse returns the row of AllowList that excuses the difference described
// by desc, seen where in operation op, or nil.
func Excuse(where, op, desc string) *Difference {
	for i := range AllowList {
		d := &AllowList[i]
		if d.Where != where || !d.Match.MatchString(desc) {
			continue
		}
		for _, o := range d.Ops {
			if o == op || o == "*" {
				return d
			}
		}
	}
	return nil
}
