package mcptools

import (
	"os/exec"
	"syscall"
)

// endWithParent makes a stdio server end with the app: it leads its own process group (so
// that [killGroup] also ends what it started, e.g. npx's node), and the kernel kills it when
// the app dies.
func endWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends whatever is left of a stdio server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
