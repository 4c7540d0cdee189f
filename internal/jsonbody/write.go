package jsonbody

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"
)

// appendTo appends the JSON object of the struct of p's type at v to dst,
// then records its size (sizeHint).
func (p *plan) appendTo(dst []byte, v unsafe.Pointer) ([]byte, error) {
	dst, err := p.appendObject(dst, v)
	if err != nil {
		return nil, err
	}
	p.wrote(len(dst))
	return dst, nil
}

// appendObject appends the JSON object of the struct of p's type at v to
// dst. Each field is read at its offset in the struct, as the type its
// plan says it has (build).
func (p *plan) appendObject(dst []byte, v unsafe.Pointer) ([]byte, error) {
	dst = append(dst, '{')
	start := len(dst)
	for i := range p.fields {
		f := &p.fields[i]
		fp := unsafe.Add(v, f.off)
		if f.ptr || f.kind == kOther || f.kind == kStruct {
			if f.omitEmpty && empty(f, fp) {
				continue
			}
			dst = f.appendKey(dst, start)
			var err error
			if dst, err = f.appendValue(dst, fp); err != nil {
				return nil, err
			}
			continue
		}
		switch f.kind { // a string, bool or integer held directly
		case kString:
			if s := *(*string)(fp); !f.omitEmpty || s != "" {
				dst = appendString(f.appendKey(dst, start), s)
			}
		case kBool:
			if b := *(*bool)(fp); !f.omitEmpty || b {
				dst = strconv.AppendBool(f.appendKey(dst, start), b)
			}
		case kInt:
			if n := readInt(fp, f.size); !f.omitEmpty || n != 0 {
				dst = strconv.AppendInt(f.appendKey(dst, start), n, 10)
			}
		case kUint:
			if n := readUint(fp, f.size); !f.omitEmpty || n != 0 {
				dst = strconv.AppendUint(f.appendKey(dst, start), n, 10)
			}
		}
	}
	return append(dst, '}'), nil
}

// readInt is the signed integer of size bytes at p.
func readInt(p unsafe.Pointer, size uint8) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

// readUint is the unsigned integer of size bytes at p.
func readUint(p unsafe.Pointer, size uint8) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// appendKey appends f's key, after a comma unless it is the object's
// first member (the object's members start at start).
func (f *field) appendKey(dst []byte, start int) []byte {
	if len(dst) > start {
		dst = append(dst, ',')
	}
	return append(dst, f.key...)
}

// appendValue appends the JSON of field f, whose value is at fp.
func (f *field) appendValue(dst []byte, fp unsafe.Pointer) ([]byte, error) {
	if f.kind == kOther {
		// Rare (no SDK body has such a field): encoding/json, given the
		// field's address as encoding/json gives an addressable field's.
		b, err := json.Marshal(reflect.NewAt(f.typ, fp).Interface())
		return append(dst, b...), err
	}
	if f.ptr {
		if fp = *(*unsafe.Pointer)(fp); fp == nil {
			return append(dst, "null"...), nil
		}
	}
	switch f.kind {
	case kString:
		return appendString(dst, *(*string)(fp)), nil
	case kBool:
		return strconv.AppendBool(dst, *(*bool)(fp)), nil
	case kInt:
		return strconv.AppendInt(dst, readInt(fp, f.size), 10), nil
	case kUint:
		return strconv.AppendUint(dst, readUint(fp, f.size), 10), nil
	default: // kStruct
		return f.sub.appendObject(dst, fp)
	}
}

// empty is encoding/json's omitempty test of field f, whose value is at
// fp.
func empty(f *field, fp unsafe.Pointer) bool {
	if f.ptr {
		return *(*unsafe.Pointer)(fp) == nil
	}
	if f.kind == kStruct {
		return false // encoding/json never omits a struct
	}
	fv := reflect.NewAt(f.typ, fp).Elem() // a kOther field: rare
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
