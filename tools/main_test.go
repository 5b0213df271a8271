package tools

import (
	"os"
	"testing"

	"prototyper/sandbox"
)

// TestMain lets the test binary serve as a development server's dialer, and removes the
// trees the search benchmarks made.
func TestMain(m *testing.M) {
	sandbox.DialerMain()
	code := m.Run()
	for _, dir := range searchBenchCleanup {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
