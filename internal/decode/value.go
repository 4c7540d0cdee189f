package decode

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/bankpay/bankpay-go/internal/jsonr"
)

var decoders = sync.Pool{New: func() any { return new(Decoder) }}

func get(data []byte) *Decoder {
	d := decoders.Get().(*Decoder)
	d.reset(data)
	return d
}

func put(d *Decoder) {
	d.r.Reset(nil)
	d.unset, d.ints, d.bools = nil, nil, nil
	decoders.Put(d)
}

// object reads a JSON object into v with its generated member and finish
// functions. false: v cannot be read, d.cause says why (the first reason).
func object[T any](d *Decoder, v *T, member func(*Decoder, *T, []byte) bool, finish func(*Decoder, *T, uint64) bool) bool {
	if k := d.r.Peek(); k != jsonr.Object {
		d.notKind(k, "an object")
		d.cause.Required = true // nothing of it can be read, its identity neither
		return false
	}
	outer := d.seen // the required fields seen of the object holding v
	d.seen = 0
	failed := false
	var cause FieldError
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		if !member(d, v, k) && !failed {
			failed, cause = true, d.cause
		}
	}
	seen := d.seen
	d.seen = outer
	if failed {
		d.cause = cause
		return false
	}
	return d.r.Err() != nil || finish(d, v, seen)
}

// slice reads a JSON array into dst, each item with elem. false: an item
// cannot be read (d.cause says why), or the value is not an array.
func slice[T any](d *Decoder, dst *[]T, elem func(*Decoder, *T) bool) bool {
	if k := d.r.Peek(); k != jsonr.Array {
		return d.notKind(k, "an array")
	}
	out := (*dst)[:0]
	if out == nil {
		out = []T{}
	}
	failed := false
	var cause FieldError
	for more, i := d.r.FirstElem(), 0; more; more, i = d.r.NextElem(), i+1 {
		var zero T
		out = append(out, zero)
		d.pushIdx(i)
		if !elem(d, &out[len(out)-1]) && !failed {
			failed, cause = true, d.cause
		}
		d.pop()
	}
	if failed {
		d.cause = cause
		return false
	}
	*dst = out
	return true
}

// Value reads data, a JSON object, as a T: wrapped as key ({"key":{…}}, the
// spec's shape) when its top-level object has key, bare otherwise (an empty
// key reads it bare only). It returns the fields it left unset. An error
// is a *FieldError (a field T cannot do without), a *jsonr.SyntaxError,
// or a response without T: a wrapper holding null, or a bare object
// setting no known field of T.
func Value[T any](data []byte, key string) (*T, []Unset, error) {
	return value[T](data, key, nil)
}

// value is Value; bare, when not nil, checks a bare response in place of
// T's required fields, given which of them it held (seen: the seen<T><Field>
// bits).
func value[T any](data []byte, key string, bare func(t *T, seen uint64) error) (*T, []Unset, error) {
	member, finish, dec, zero, ok := funcs[T]()
	if !ok {
		return nil, nil, fmt.Errorf("decode: no decoder for %T", (*T)(nil))
	}
	d := get(data)
	defer put(d)
	if k := d.r.Peek(); k != jsonr.Object {
		return nil, nil, d.notObject(k)
	}
	var (
		out     = new(T)
		seen    uint64
		bareErr *FieldError
		w       wrap[T]
	)
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		switch {
		case key != "" && (string(k) == key || bytes.EqualFold(k, []byte(key))):
			w.read(d, key, dec)
		case w.found: // wrapped: the other members are not T's
			d.r.Skip()
		default:
			d.seen = seen
			held := member(d, out, k)
			seen = d.seen
			if !held && bareErr == nil {
				c := d.cause
				bareErr = &c
			}
		}
	}
	if err := d.r.End(); err != nil {
		return nil, nil, err
	}
	if w.found {
		return w.result(key)
	}
	if bareErr != nil {
		return nil, nil, bareErr
	}
	if zero(out) {
		return nil, nil, noObject[T](key)
	}
	if bare != nil {
		if err := bare(out, seen); err != nil {
			return nil, nil, err
		}
		return out, d.unset, nil
	}
	if !finish(d, out, seen) {
		c := d.cause
		return nil, nil, &c
	}
	return out, d.unset, nil
}

// notObject is the error of a response that is not an object (kind k).
func (d *Decoder) notObject(k jsonr.Kind) error {
	if k == jsonr.Invalid {
		d.r.Skip()
		return d.r.Err()
	}
	d.notKind(k, "an object")
	if err := d.r.End(); err != nil {
		return err
	}
	c := d.cause
	return &c
}

// noObject is the error of a response without a T: named by key, or by T.
func noObject[T any](key string) error {
	name := key
	if name == "" {
		name = fmt.Sprintf("%T", *new(T))
		name = name[strings.LastIndexByte(name, '.')+1:]
	}
	return fmt.Errorf("response has no %q object", name)
}

// wrap is what a response's wrapper member ({"key":{…}}) held, the last
// one when repeated (merged into the one before, as encoding/json does).
type wrap[T any] struct {
	found, null bool
	v           *T
	unset       []Unset
	err         *FieldError
}

// read reads the wrapper member's value with dec.
func (w *wrap[T]) read(d *Decoder, key string, dec func(*Decoder, *T) bool) {
	w.found = true
	if d.r.Peek() == jsonr.Null {
		d.r.Null()
		w.v, w.null = nil, true
		return
	}
	if w.v == nil {
		w.v = new(T)
	}
	mark := len(d.unset)
	d.push(key)
	held := dec(d, w.v)
	d.pop()
	w.unset = append(w.unset[:0], d.unset[mark:]...)
	d.unset = d.unset[:mark]
	w.null, w.err = false, nil
	if !held {
		c := d.cause
		w.err = &c
	}
}

func (w *wrap[T]) result(key string) (*T, []Unset, error) {
	switch {
	case w.null:
		return nil, nil, fmt.Errorf("response has no %q object", key)
	case w.err != nil:
		return nil, nil, w.err
	}
	return w.v, w.unset, nil
}

// List is one page of a list response.
type List[T any] struct {
	Items []T
	// StartIndex and ItemsPerPage are the response's, when HasStart and
	// HasPerPage.
	StartIndex, ItemsPerPage int
	HasStart, HasPerPage     bool
	Unset                    []Unset
}

// ErrNoArray is a list response without its array.
var ErrNoArray = errors.New("response has no array")

// ReadList reads a list response: the array under key in the top-level
// object (its name matched as encoding/json matches names), or a bare
// array, with startIndex and itemsPerPage when the object has them. An
// array of more than limit items (limit > 0) is ErrTooMany, met before
// the item past limit is decoded. An item whose identity cannot be read
// (not an object, or a field tagged wire:"required" missing or of the
// wrong kind, or one tagged wire:"zero", whose zero would read as a value,
// of the wrong kind) fails the page with an error naming its index; any
// other value an item cannot hold is left unset in it (reported in Unset).
func ReadList[T any](data []byte, key string, limit int) (*List[T], error) {
	_, _, dec, _, ok := funcs[T]()
	if !ok {
		return nil, fmt.Errorf("decode: no decoder for %T", (*T)(nil))
	}
	if limit > countLimit && tooMany(data, key, limit) {
		return nil, ErrTooMany
	}
	d := get(data)
	defer put(d)
	page := &List[T]{}
	switch d.r.Peek() {
	case jsonr.Array:
		if err := items(d, &page.Items, dec, limit, ""); err != nil {
			return nil, err
		}
	case jsonr.Object:
		if err := listObject(d, page, key, dec, limit); err != nil {
			return nil, err
		}
	default:
		d.r.Skip()
		if d.r.Err() != nil {
			return nil, d.r.Err()
		}
		return nil, fmt.Errorf("response has no %q array", key)
	}
	if err := d.r.End(); err != nil {
		return nil, err
	}
	page.Unset = d.unset
	return page, nil
}

func listObject[T any](d *Decoder, page *List[T], key string, dec func(*Decoder, *T) bool, limit int) error {
	found := false
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		switch {
		case bytes.EqualFold(k, []byte(key)):
			if d.r.Peek() == jsonr.Null {
				d.r.Null()
				page.Items, found = nil, false
				continue
			}
			if k := d.r.Peek(); k != jsonr.Array {
				d.notKind(k, "an array")
				d.cause.Path = key
				c := d.cause
				return &c
			}
			found = true
			if err := items(d, &page.Items, dec, limit, key); err != nil {
				return err
			}
		case bytes.EqualFold(k, []byte("startIndex")):
			if err := d.listInt("startIndex", &page.StartIndex, &page.HasStart); err != nil {
				return err
			}
		case bytes.EqualFold(k, []byte("itemsPerPage")):
			if err := d.listInt("itemsPerPage", &page.ItemsPerPage, &page.HasPerPage); err != nil {
				return err
			}
		default:
			d.r.Skip()
		}
	}
	if d.r.Err() != nil {
		return d.r.Err()
	}
	if !found {
		return fmt.Errorf("response has no %q array", key)
	}
	return nil
}

func (d *Decoder) listInt(name string, dst *int, has *bool) error {
	n, r := d.integer("an integer", nil)
	switch r {
	case ok:
		*dst, *has = int(n), true
	case empty:
		*dst, *has = 0, false
	case bad:
		c := d.cause
		c.Path = name
		return &c
	}
	return nil
}

// ItemError is a list item whose identity cannot be read.
type ItemError struct {
	Index int
	Err   *FieldError
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("item %d: %v", e.Index, e.Err)
}

func (e *ItemError) Unwrap() error { return e.Err }

// items reads the array of a list page into dst. After an item that
// cannot be read, the rest is only counted: a page over its limit says so
// first.
func items[T any](d *Decoder, dst *[]T, dec func(*Decoder, *T) bool, limit int, key string) error {
	d.path = d.path[:0]
	if key != "" {
		d.push(key)
	}
	out := (*dst)[:0]
	if out == nil {
		out = make([]T, 0, min(max(limit, 0), 128))
	}
	var itemErr error
	for more, i := d.r.FirstElem(), 0; more; more, i = d.r.NextElem(), i+1 {
		if limit > 0 && i == limit {
			return ErrTooMany
		}
		if itemErr != nil {
			d.r.Skip()
			continue
		}
		var zero T
		out = append(out, zero)
		d.pushIdx(i)
		if !dec(d, &out[i]) && d.r.Err() == nil {
			c := d.cause
			itemErr = &ItemError{Index: i, Err: &c}
		}
		d.pop()
	}
	if err := d.r.Err(); err != nil {
		return err
	}
	if itemErr != nil {
		return itemErr
	}
	*dst = out
	return nil
}

// countLimit is the limit past which ReadList counts a list's items before
// decoding any: a list returned whole may be allowed many items (20,000
// customers), each costing far more decoded than its bytes.
const countLimit = 1000

// tooMany reports whether the list in data holds more than limit items,
// with a scan that decodes nothing: the array under key (any member
// matching it), or a bare array. Syntax errors are left to the decoder.
func tooMany(data []byte, key string, limit int) bool {
	var r jsonr.Reader
	r.ResetNoCopy(data)
	count := func() bool {
		n := 0
		for more := r.FirstElem(); more; more = r.NextElem() {
			if n++; n > limit {
				return true
			}
			r.Skip()
		}
		return false
	}
	switch r.Peek() {
	case jsonr.Array:
		return count()
	case jsonr.Object:
		for k, more := r.FirstKey(); more; k, more = r.NextKey() {
			if r.Peek() == jsonr.Array && bytes.EqualFold(k, []byte(key)) {
				if count() {
					return true
				}
				continue
			}
			r.Skip()
		}
	}
	return false
}
