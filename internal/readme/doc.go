// Package readme holds the test that compiles and runs every Go snippet of
// README.md and docs/guide.md against a bankpaytest sandbox, each error a
// snippet's call returns checked (readme_test.go). It has no code.
package readme
