package agentloop

import (
	"testing"

	"prototyper/internal/testenv"
)

// The command cases of the loop run again as an ordinary user, with a home and a /tmp of
// that user's own (testenv.AsUnprivileged says why).
func TestEveryCommandCaseHoldsForAnUnprivilegedUser(t *testing.T) {
	needSandbox(t)
	u := testenv.AsUnprivileged(t, "PROTOTYPER_LOOP_UNPRIVILEGED")
	u.Run("-test.run", "TestACommand|TestStopEndsACommand|TestWithoutTheSandbox|TestATerminalIsAsked")
}
