//go:build faultmatrix

package bankpay

// fullFaultMatrix: built with -tags faultmatrix (.ci/run does), TestFaultTable
// runs every call of the endpoints table in every scenario.
const fullFaultMatrix = true
