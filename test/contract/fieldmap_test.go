package contract

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fmInner struct {
	Code int
}

type fmModel struct {
	ID    string
	Inner *fmInner
	Notes string
}

func TestParseFieldMap_rejectsBadRows(t *testing.T) {
	for name, tc := range map[string]struct{ fields, unread string }{
		"a row of two words":   {"contract.fmModel id\n", ""},
		"a property twice":     {"contract.fmModel id ID\ncontract.fmModel id Notes\n", ""},
		"off-wire, no reason":  {"contract.fmModel - Notes\n", ""},
		"unread, no reason":    {"", "contract.fmModel extra\n"},
		"mapped and unread":    {"contract.fmModel id ID\n", "contract.fmModel id not read\n"},
		"unread listed twice":  {"", "contract.fmModel x a\ncontract.fmModel x b\n"},
		"off-wire field twice": {"contract.fmModel - Notes a\ncontract.fmModel - Notes b\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseFieldMap([]byte(tc.fields), []byte(tc.unread))
			assert.Error(t, err)
		})
	}
}

func TestFieldMap_CheckModels(t *testing.T) {
	m, err := ParseFieldMap([]byte(`
contract.fmModel id ID
contract.fmModel inner Inner
contract.fmModel - Notes kept by the caller
contract.fmInner code Code
`), nil)
	require.NoError(t, err)
	assert.Empty(t, m.CheckModels(reflect.TypeOf(fmModel{})))

	// A Go field the map leaves out, a row naming a field that does not
	// exist, a type no answer reaches: each is a problem.
	m, err = ParseFieldMap([]byte(`
contract.fmModel id ID
contract.fmModel inner Innr
contract.cmpModel id ID
`), nil)
	require.NoError(t, err)
	problems := m.CheckModels(reflect.TypeOf(fmModel{}))
	assert.Contains(t, problems, `contract.fmModel: property "inner" maps to a field Innr the type does not have`)
	assert.Contains(t, problems, "contract.fmModel: field Inner is in neither the map nor its off-wire rows")
	assert.Contains(t, problems, "contract.fmModel: field Notes is in neither the map nor its off-wire rows")
	assert.Contains(t, problems, "contract.cmpModel: the map names a type no answer reaches")
}

func TestFieldMap_CheckSchema(t *testing.T) {
	str := base.CreateSchemaProxy(&base.Schema{Type: []string{"string"}})
	inner := base.CreateSchemaProxy(&base.Schema{Type: []string{"object"}, Properties: props(map[string]*base.SchemaProxy{"code": str, "extra": str})})
	schema := &base.Schema{Type: []string{"object"}, Properties: props(map[string]*base.SchemaProxy{"id": str, "inner": inner, "skipped": str})}
	m, err := ParseFieldMap([]byte("contract.fmModel id ID\ncontract.fmModel inner Inner\ncontract.fmInner code Code\n"),
		[]byte("contract.fmModel skipped a test\n"))
	require.NoError(t, err)
	cov := &MapCoverage{Used: map[string]bool{}}
	assert.Equal(t, []string{"contract.fmInner extra (at inner.extra): neither mapped to a Go field nor listed as unread"},
		m.CheckSchema(schema, reflect.TypeOf(fmModel{}), "", cov))
	assert.True(t, cov.Used["contract.fmModel skipped"])
	assert.True(t, cov.Used["contract.fmInner code"])
}

func props(m map[string]*base.SchemaProxy) *orderedmap.Map[string, *base.SchemaProxy] {
	out := orderedmap.New[string, *base.SchemaProxy]()
	for k, v := range m {
		out.Set(k, v)
	}
	return out
}

// TestCodes_matchTheOpenAPIEnums checks that the codes the SDK names (those
// whose String is a name, not "Type(n)") are exactly the OpenAPI's enum of
// the schema that carries them: a constant given a wrong number, dropped or
// added fails here even when no answer of the suite's flows carries it (the
// sandbox shares the constants, so its answers cannot tell).
func TestCodes_matchTheOpenAPIEnums(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	for _, c := range []struct {
		schema string
		named  func(n int) bool
	}{
		{"TransactionStatus", namedCode(func(n int) fmt.Stringer { return models.TransactionStatus(n) }, "TransactionStatus(")},
		{"TransactionTransactionType", namedCode(func(n int) fmt.Stringer { return models.TransactionType(n) }, "TransactionType(")},
		{"PaymentPaymentType", namedCode(func(n int) fmt.Stringer { return models.PaymentType(n) }, "PaymentType(")},
	} {
		proxy := spec.Model.Components.Schemas.GetOrZero(c.schema)
		require.NotNil(t, proxy, "schema %s", c.schema)
		var enum []string
		for _, v := range proxy.Schema().Enum {
			enum = append(enum, v.Value)
		}
		require.NotEmpty(t, enum, "schema %s has no enum", c.schema)
		var sdk []string
		for n := -256; n < 256; n++ {
			switch {
			case !c.named(n):
			case n < 0: // only the SDK's own Unknown (-1): never a wire code
				assert.Equal(t, -1, n, "%s: a negative code with a name", c.schema)
			default:
				sdk = append(sdk, strconv.Itoa(n))
			}
		}
		slices.Sort(enum)
		slices.Sort(sdk)
		assert.Equal(t, enum, sdk, "the SDK's %s codes against the OpenAPI's enum", c.schema)
	}
}

// namedCode reports whether code n has a name (its String is not the
// "Type(n)" form of an unknown code).
func namedCode(code func(int) fmt.Stringer, unknown string) func(int) bool {
	return func(n int) bool { return !strings.HasPrefix(code(n).String(), unknown) }
}
