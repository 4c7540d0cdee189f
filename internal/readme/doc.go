// Package readme holds the test that compiles and runs every Go snippet of
// README.md against a bankpaytest sandbox (readme_test.go). It has no code.
package readme
