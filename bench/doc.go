// Package bench holds the SDK's benchmarks: every SDK call paired with a
// hand-written net/http + encoding/json + net/url baseline against the same
// loopback server in the same run, the webhook handler and the signatures
// against hand-written checks, and throughput against the bankpaytest
// sandbox. It has no API; run it with scripts/bench.sh (make bench). See the
// Performance section of the README.
package bench
