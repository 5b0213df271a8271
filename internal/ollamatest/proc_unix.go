//go:build unix

package ollamatest

import (
	"os/exec"
	"syscall"
)

// supervised returns a command that runs `bin serve` under a shell in a new process group —
// which the server's runners join — and kills that whole group as soon as its standard input
// reaches end of file: when Stop closes it, and also when the test binary dies without
// cleaning up (a -timeout panic, a kill), since the kernel then closes the pipe. When the
// server exits by itself, the group dies too, so the caller sees the exit at once.
func supervised(bin string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", `("$0" serve </dev/null; kill -KILL 0) & read -r _; kill -KILL 0`, bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killGroup kills the command's whole process group. SIGKILL cannot be caught, so nothing of
// the server outlives it; waiting for the group to vanish would only wait for the zombies of
// orphaned runners to be reaped by init.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
