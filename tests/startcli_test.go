package tests

import (
	"os"
	"os/exec"
	"testing"
)

// startCLI starts the app's binary with args (HOME a folder of the test's) and kills it, if
// it still runs, when the test ends.
func startCLI(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(desktopBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}
