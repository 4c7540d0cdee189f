package contract

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

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
		for n := -1; n < 256; n++ {
			if c.named(n) {
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
