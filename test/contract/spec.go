package contract

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

//go:embed testdata/operator-openapi.facts.yml
var facts []byte

//go:embed testdata/words.txt
var words []byte

// Facts returns the committed facts-only extract of the operator's OpenAPI.
func Facts() []byte { return append([]byte(nil), facts...) }

// Spec is the operator's contract as read from the extract: its operations by
// operationId and its webhooks by event name.
type Spec struct {
	Doc        libopenapi.Document
	Model      *v3.Document
	Operations map[string]*Op
	Webhooks   map[string]*base.Schema // event name (Authorize…) → JSON body schema
}

// Op is one operation of the contract.
type Op struct {
	ID, Method, Path string
	Operation        *v3.Operation
}

// LoadSpec reads the extract (src, or the committed one when src is nil).
func LoadSpec(src []byte) (*Spec, error) {
	if src == nil {
		src = Facts()
	}
	doc, err := libopenapi.NewDocument(src)
	if err != nil {
		return nil, fmt.Errorf("contract: read extract: %w", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("contract: build model: %w", err)
	}
	s := &Spec{Doc: doc, Model: &m.Model, Operations: map[string]*Op{}, Webhooks: map[string]*base.Schema{}}
	for path, item := range m.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			s.Operations[op.OperationId] = &Op{ID: op.OperationId, Method: strings.ToUpper(method), Path: path, Operation: op}
		}
	}
	for name, item := range m.Model.Webhooks.FromOldest() {
		if item.Post == nil || item.Post.RequestBody == nil {
			return nil, fmt.Errorf("contract: webhook %s has no POST body", name)
		}
		mt := item.Post.RequestBody.Content.GetOrZero("application/json")
		if mt == nil || mt.Schema == nil {
			return nil, fmt.Errorf("contract: webhook %s has no JSON body", name)
		}
		s.Webhooks[strings.TrimPrefix(name, "eventNotifications_")] = mt.Schema.Schema()
	}
	return s, nil
}

// OperationIDs returns every operationId, sorted.
func (s *Spec) OperationIDs() []string {
	ids := make([]string, 0, len(s.Operations))
	for id := range s.Operations {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// SuccessSchema returns the status and JSON schema of op's success (2xx)
// answer; a nil schema when the answer has no JSON body.
func (op *Op) SuccessSchema() (int, *base.Schema) {
	for code, resp := range op.Operation.Responses.Codes.FromOldest() {
		if len(code) != 3 || code[0] != '2' {
			continue
		}
		var status int
		fmt.Sscan(code, &status)
		if resp.Content == nil {
			return status, nil
		}
		mt := resp.Content.GetOrZero("application/json")
		if mt == nil || mt.Schema == nil {
			return status, nil
		}
		return status, mt.Schema.Schema()
	}
	return 0, nil
}

// SchemaFor returns the JSON schema of op's answer with the given status
// (or its default answer), nil when there is none.
func (op *Op) SchemaFor(status int) *base.Schema {
	for _, code := range []string{fmt.Sprint(status), "default"} {
		resp := op.Operation.Responses.Codes.GetOrZero(code)
		if code == "default" {
			resp = op.Operation.Responses.Default
		}
		if resp == nil || resp.Content == nil {
			continue
		}
		if mt := resp.Content.GetOrZero("application/json"); mt != nil && mt.Schema != nil {
			return mt.Schema.Schema()
		}
	}
	return nil
}
