package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"prototyper/internal/testenv"
)

// Every test of this package runs again as an ordinary user, with a workspace, a home and a
// /tmp of that user's own (testenv.AsUnprivileged says why).
func TestEveryCaseHoldsForAnUnprivilegedUser(t *testing.T) {
	needSandbox(t)
	u := testenv.AsUnprivileged(t, "PROTOTYPER_SANDBOX_UNPRIVILEGED")
	// A setuid-root program the user can run: it must not make the command root.
	probeDir := filepath.Join(u.Base, "probe")
	os.Mkdir(probeDir, 0o755)
	probe := filepath.Join(probeDir, "id")
	makeSetuidCopy(t, "/usr/bin/id", probe, 0)
	u.Env = append(u.Env, setuidProbeEnv+"="+probe)
	u.Run("-test.skip", "TestEveryCaseHoldsForAnUnprivilegedUser|Benchmark")
}
