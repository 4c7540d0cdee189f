package dedupsuite

import (
	"os"
	"testing"
)

// Test servers' environment, as scripts/start-stores.sh prints it.
const (
	// PostgresDSNEnv names the test PostgreSQL database's DSN.
	PostgresDSNEnv = "BANKPAY_TEST_POSTGRES_DSN"
	// RedisAddrEnv names the test Redis server's address.
	RedisAddrEnv = "BANKPAY_TEST_REDIS_ADDR"
)

// ServerEnv returns the environment variable name, which locates a test
// server. Without it the test skips, or fails in CI (CI set and not false or
// 0), where .ci/run starts the servers with scripts/start-stores.sh.
func ServerEnv(tb testing.TB, name string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			tb.Fatalf("%s is not set in CI: .ci/run starts the test servers with scripts/start-stores.sh", name)
		}
		tb.Skipf("%s is not set: run eval \"$(scripts/start-stores.sh)\" for the tests against real servers", name)
	}
	return v
}
