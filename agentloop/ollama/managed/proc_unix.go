//go:build unix && !linux

package managed

import "syscall"

// sysProcAttr puts the server in a process group of its own: its runners join it, and one
// signal stops them all. These systems have no parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }
