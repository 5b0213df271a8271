package tools

import (
	"os"
	"testing"

	"prototyper/internal/tether"
	"prototyper/sandbox"
)

// TestMain lets the test binary serve as a development server's dialer and an unconfined
// command's supervisor, and removes the trees the search benchmarks made.
func TestMain(m *testing.M) {
	tether.Supervise()
	sandbox.DialerMain()
	code := m.Run()
	for _, dir := range searchBenchCleanup {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
