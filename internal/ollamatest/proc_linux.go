package ollamatest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in its own process group, which its runners join, so Stop
// can end them all; if the test binary dies first, the server gets SIGTERM and stops its runners.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// signalGroup sends SIGTERM (or SIGKILL) to the server's whole process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
