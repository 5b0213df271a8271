package managed

import "syscall"

// sysProcAttr puts the server in a process group of its own (its runners join it, and one
// signal stops them all), and asks the kernel to send it SIGTERM when the app dies, so that a
// killed app leaves no server behind; SIGTERM lets the server stop its runners first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

func signalGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }
