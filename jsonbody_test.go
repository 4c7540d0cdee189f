package bankpay

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bankpay/bankpay-go/internal/jsonbody"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every operation with a JSON body sends the bytes json.Marshal writes for
// its params: the body of each endpoint's call, and then, for the type of
// those params, many values with every exported field filled at random
// (strings with characters encoding/json escapes, zero and extreme
// numbers, nil and set pointers). No JSON operation is left out, and each
// one whose params are a pointer to a struct without a MarshalJSON of its
// own is written from a plan (not handed whole to encoding/json).
func TestJSONBodiesAreEncodingJSON(t *testing.T) {
	seen := map[*ops.Op]reflect.Type{}
	rng := rand.New(rand.NewPCG(25, 1))
	for _, ep := range endpoints() {
		c, mock, _ := newTestClient(t)
		expect(t, mock, ep.want("1002581234567"), 200, ep.answer("1002581234567"))
		c.cfg.bodyEncoded = func(op *ops.Op, params any, body []byte) {
			want, err := json.Marshal(params)
			require.NoError(t, err, op.Name)
			assert.Equal(t, string(want), string(body), op.Name)
			seen[op] = reflect.TypeOf(params)
		}
		require.NoError(t, ep.call(context.Background(), c, "1002581234567"), ep.name)
	}
	for _, op := range ops.All() {
		if op.Body != ops.BodyJSON {
			continue
		}
		typ, ok := seen[op]
		if !assert.True(t, ok, "%s: no endpoint sent its body", op.Name) {
			continue
		}
		if _, own := reflect.New(typ).Elem().Interface().(json.Marshaler); typ.Kind() == reflect.Pointer && !own {
			assert.True(t, jsonbody.Planned(reflect.New(typ).Elem().Interface()), "%s: %s is written from a plan", op.Name, typ)
		}
		for range 300 {
			v := reflect.New(typ).Elem()
			fillRandom(rng, v, 0)
			want, wantErr := json.Marshal(v.Interface())
			got, err := jsonbody.Marshal(v.Interface())
			require.Equal(t, wantErr, err, op.Name)
			require.Equal(t, string(want), string(got), "%s (%s)", op.Name, typ)
		}
	}
}

// fillRandom sets v, and each exported field, element and pointee under
// it, to a random value (or leaves it zero); depth bounds recursive types.
func fillRandom(rng *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() || rng.IntN(5) == 0 {
		return // some values stay zero: omitempty's case
	}
	strs := []string{"", "a", "Jane Doe", "<b>&\"q\"\\", "\u2028é\x01", "\xff", "1000000001", " "}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := rng.Int64()
		if !v.OverflowInt(n) && rng.IntN(2) == 0 {
			v.SetInt(n)
		} else {
			v.SetInt(int64(rng.IntN(256)) - 128)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n := rng.Uint64(); !v.OverflowUint(n) {
			v.SetUint(n)
		} else {
			v.SetUint(uint64(rng.IntN(256)))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(100000)) / 100)
	case reflect.Pointer:
		if depth < 4 {
			p := reflect.New(v.Type().Elem())
			fillRandom(rng, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if depth < 4 {
			s := reflect.MakeSlice(v.Type(), rng.IntN(3), 3)
			for i := range s.Len() {
				fillRandom(rng, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String && depth < 4 {
			m := reflect.MakeMap(v.Type())
			e := reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, e, depth+1)
			m.SetMapIndex(reflect.ValueOf(strs[rng.IntN(len(strs))]).Convert(v.Type().Key()), e)
			v.Set(m)
		}
	}
}
