//go:build !linux

package ollamatest

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, kill bool) {
	if kill {
		_ = cmd.Process.Kill()
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
}
