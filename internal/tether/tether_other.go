//go:build !linux

package tether

import (
	"os/exec"
)

// Start starts cmd in a process group of its own (see the package doc).
func Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	setGroup(cmd)
	p := &Process{Mode: ModeGroup}
	if err := launch(cmd, p); err != nil {
		return nil, err
	}
	return p, nil
}

// StartSupervised is [Start] here: no supervisor is started.
func StartSupervised(cmd *exec.Cmd) (*Process, error) { return Start(cmd) }

// Supervise does nothing here: no supervisor is started.
func Supervise() {}

func (p *Process) kill() {
	if !p.Exited() {
		killGroup(p.Pid)
	}
}
