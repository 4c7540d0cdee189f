//go:build !faultmatrix

package bankpay

// fullFaultMatrix: without -tags faultmatrix, TestFaultTable runs every
// scenario against one call of each kind (faultSlice), which keeps
// `go test ./...` quick; .ci/run runs the full matrix.
const fullFaultMatrix = false
