package contract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type cmpInner struct {
	Code  int    `json:"code"`
	Label string `json:"label,omitempty"`
}

type cmpModel struct {
	ID      string     `json:"id"`
	Count   int        `json:"count"`
	Tier    *int       `json:"tier,omitempty"`
	TierTxt string     `json:"-" wire:"text=tier"`
	Flag    bool       `json:"flag"`
	Items   []string   `json:"items" wire:"anytext"`
	Inner   *cmpInner  `json:"inner,omitempty"`
	List    []cmpInner `json:"list"`
}

// cmpMap is the field map of the test models.
func cmpMap(t *testing.T) *FieldMap {
	t.Helper()
	m, err := ParseFieldMap([]byte(`
contract.cmpModel id ID
contract.cmpModel count Count
contract.cmpModel tier Tier|TierTxt
contract.cmpModel - TierTxt the text of a tier
contract.cmpModel flag Flag
contract.cmpModel items Items
contract.cmpModel inner Inner
contract.cmpModel list List
contract.cmpInner code Code
contract.cmpInner label Label
`), []byte("contract.cmpModel extra not read: a test\n"))
	require.NoError(t, err)
	return m
}

func genOf(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestCompare_equalReadings(t *testing.T) {
	two := 2
	got := cmpModel{ID: "7", Count: 7, Tier: &two, Flag: true, Items: []string{"a", `{"v":"b"}`},
		Inner: &cmpInner{Code: 210}, List: []cmpInner{{Code: 1, Label: "x"}}}
	gen := genOf(t, `{"id":7,"count":"7.0","tier":"002","flag":true,"items":["a",{"v":"b"}],"inner":{"code":210.0},
		"list":[{"code":"1","label":"x"}],"extra":{"z":1}}`)
	c := Compare(cmpMap(t), gen, got)
	assert.Empty(t, c.Mismatches)
	assert.True(t, c.Unmodelled["extra"])
	assert.Equal(t, 9, c.Compared) // id count tier flag items×2 inner.code list[0].code,label

	// A tier the typed field cannot hold is kept as text.
	c = Compare(cmpMap(t), genOf(t, `{"tier":"gold"}`), cmpModel{TierTxt: "gold"})
	assert.Empty(t, c.Mismatches)
}

func TestCompare_failsOnDroppedOrChangedValues(t *testing.T) {
	for name, tc := range map[string]struct {
		gen  string
		got  cmpModel
		want string
	}{
		"dropped":        {`{"id":"abc"}`, cmpModel{}, "id: sent"},
		"changed":        {`{"count":8}`, cmpModel{Count: 9}, "count: sent 8"},
		"nested dropped": {`{"inner":{"code":3}}`, cmpModel{}, "inner.code: sent 3"},
		"text lost":      {`{"tier":"gold"}`, cmpModel{}, "tier: sent"},
		"item lost":      {`{"items":["a","b"]}`, cmpModel{Items: []string{"a"}}, "2 items sent, 1 decoded"},
		"object as text": {`{"items":[{"v":"b"}]}`, cmpModel{Items: []string{"b"}}, "items[0]"},
		"plus mangled":   {`{"id":"Ab+cD="}`, cmpModel{ID: "Ab cD="}, "id: sent"},
	} {
		t.Run(name, func(t *testing.T) {
			c := Compare(cmpMap(t), genOf(t, tc.gen), tc.got)
			require.Len(t, c.Mismatches, 1)
			assert.Contains(t, c.Mismatches[0], tc.want)
		})
	}
}

func TestApplyReshape(t *testing.T) {
	gen := genOf(t, `{"detail":{"attribute":[{"name":"n","source":{"name":"bank","type":2,"x":1}},{"name":"m"}]}}`)
	n := ApplyReshape(gen, &Reshape{Path: "detail.attribute[].source", Into: map[string]string{"name": "source", "type": "sourceType"}})
	assert.Equal(t, 1, n)
	b, _ := json.Marshal(gen)
	assert.JSONEq(t, `{"detail":{"attribute":[{"name":"n","source":"bank","sourceType":2,"source.x":1},{"name":"m"}]}}`, string(b))
}
