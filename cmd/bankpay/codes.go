package main

import (
	"fmt"
	"strconv"
	"strings"
)

// maxCode bounds the codes names are looked up among: every transaction
// status and type code is below it.
const maxCode = 64

// codeList is a flag of comma-separated codes, each given by name
// (case-insensitive) or number: -status Completed,8 or -type Deposit.
type codeList[T interface {
	~int
	String() string
}] struct {
	what  string
	codes []T
}

func (c *codeList[T]) String() string {
	if c == nil {
		return ""
	}
	parts := make([]string, len(c.codes))
	for i, v := range c.codes {
		parts[i] = v.String()
	}
	return strings.Join(parts, ",")
}

// Set parses one flag value; the flag package reports its error (exit 2).
func (c *codeList[T]) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		v, ok := parseCode[T](part)
		if !ok {
			return fmt.Errorf("unknown %s %q: want a name (%s) or a number", c.what, part, codeNames[T]())
		}
		c.codes = append(c.codes, v)
	}
	return nil
}

// parseCode reads a code by number, or by the name its String gives.
func parseCode[T interface {
	~int
	String() string
}](s string) (T, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return T(n), true
	}
	for n := range maxCode {
		if strings.EqualFold(T(n).String(), s) && !strings.Contains(T(n).String(), "(") {
			return T(n), true
		}
	}
	return 0, false
}

// codeNames lists the known names of T's codes.
func codeNames[T interface {
	~int
	String() string
}]() string {
	var names []string
	for n := range maxCode {
		if name := T(n).String(); !strings.Contains(name, "(") {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// orDash is s, or "-" when empty (a column of a table).
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
