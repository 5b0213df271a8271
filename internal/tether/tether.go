package tether

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Mode is how a [Process] is tied to the app.
type Mode string

// The modes of a [Process].
const (
	ModeNamespace  Mode = "namespace"  // pid 1 of its own PID namespace
	ModeSupervisor Mode = "supervisor" // under the app's binary run as a supervisor
	ModeGroup      Mode = "group"      // a process group of its own (not Linux)
)

// ModeEnv names the environment variable that chooses the supervisor ("supervisor") on Linux.
const ModeEnv = "PROTOTYPER_TETHER"

// Process is a program started by [Start].
type Process struct {
	// Pid is the process the app started: the program itself, or its supervisor.
	Pid  int
	Mode Mode

	done     chan struct{} // closed once the process has exited
	waitErr  error         // set before done is closed
	lifeline *os.File      // the supervisor's pipe: closing it ends the program's tree
}

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the process exited (the error of [exec.Cmd.Wait]); valid once Done is closed.
func (p *Process) Err() error { <-p.done; return p.waitErr }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the program (a supervisor passes it on).
func (p *Process) Signal(sig syscall.Signal) {
	if proc, err := os.FindProcess(p.Pid); err == nil && !p.Exited() {
		_ = proc.Signal(sig)
	}
}

// Kill ends the program and every process it started, and returns once the program (or its
// supervisor) has exited; the rest go with it or within moments.
func (p *Process) Kill() {
	p.kill()
	<-p.done
}

// launch starts cmd from a goroutine locked to its OS thread, which then waits for the
// process: the parent-death signal is sent when the thread that started the child ends, so
// the thread must live exactly as long as the child. It returns once the process started.
func launch(cmd *exec.Cmd, p *Process) error {
	started := make(chan error, 1)
	p.done = make(chan struct{})
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread ends with this goroutine, after the child.
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.Pid = cmd.Process.Pid
		started <- nil
		p.waitErr = cmd.Wait()
		if p.lifeline != nil {
			p.lifeline.Close()
		}
		close(p.done)
	}()
	return <-started
}
