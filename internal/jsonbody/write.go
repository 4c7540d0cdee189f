package jsonbody

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// appendTo appends the JSON object of v, a struct of p's type, to dst.
func (p *plan) appendTo(dst []byte, v reflect.Value) ([]byte, error) {
	dst = append(dst, '{')
	start := len(dst)
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		if f.ptr || f.kind == kOther || f.kind == kStruct {
			if f.omitEmpty && empty(f, fv) {
				continue
			}
			dst = f.appendKey(dst, start)
			var err error
			if dst, err = f.appendValue(dst, fv); err != nil {
				return nil, err
			}
			continue
		}
		switch f.kind { // a string, bool or integer held directly
		case kString:
			if s := fv.String(); !f.omitEmpty || s != "" {
				dst = appendString(f.appendKey(dst, start), s)
			}
		case kBool:
			if b := fv.Bool(); !f.omitEmpty || b {
				dst = strconv.AppendBool(f.appendKey(dst, start), b)
			}
		case kInt:
			if n := fv.Int(); !f.omitEmpty || n != 0 {
				dst = strconv.AppendInt(f.appendKey(dst, start), n, 10)
			}
		case kUint:
			if n := fv.Uint(); !f.omitEmpty || n != 0 {
				dst = strconv.AppendUint(f.appendKey(dst, start), n, 10)
			}
		}
	}
	return append(dst, '}'), nil
}

// appendKey appends f's key, after a comma unless it is the object's
// first member (the object's members start at start).
func (f *field) appendKey(dst []byte, start int) []byte {
	if len(dst) > start {
		dst = append(dst, ',')
	}
	return append(dst, f.key...)
}

// appendValue appends the JSON of fv, the value of field f.
func (f *field) appendValue(dst []byte, fv reflect.Value) ([]byte, error) {
	if f.kind == kOther {
		b, err := json.Marshal(fv.Addr().Interface())
		return append(dst, b...), err
	}
	if f.ptr {
		if fv.IsNil() {
			return append(dst, "null"...), nil
		}
		fv = fv.Elem()
	}
	switch f.kind {
	case kString:
		return appendString(dst, fv.String()), nil
	case kBool:
		return strconv.AppendBool(dst, fv.Bool()), nil
	case kInt:
		return strconv.AppendInt(dst, fv.Int(), 10), nil
	case kUint:
		return strconv.AppendUint(dst, fv.Uint(), 10), nil
	default: // kStruct
		return f.sub.appendTo(dst, fv)
	}
}

// empty is encoding/json's omitempty test of fv, the value of field f.
func empty(f *field, fv reflect.Value) bool {
	if f.ptr {
		return fv.IsNil()
	}
	switch fv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return fv.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return fv.IsZero()
	}
	return false
}

// appendString appends s as a JSON string: as it is between quotes when
// it holds only printable ASCII that encoding/json leaves alone, as
// json.Marshal writes it otherwise.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
