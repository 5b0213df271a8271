package tether

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// useSupervisor is set by [ModeEnv], or once the kernel refused a namespace: it is not asked
// again.
var useSupervisor atomic.Bool

func init() { useSupervisor.Store(os.Getenv(ModeEnv) == string(ModeSupervisor)) }

// Start starts cmd tied to the app (see the package doc). cmd.SysProcAttr must be nil; its
// Stdin, Stdout and Stderr are best *os.File values or nil (other values are copied by
// goroutines of the app, as [exec.Cmd] does).
func Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil { // exec.ErrNotFound, say: say it as Start would
		return nil, cmd.Err
	}
	if !useSupervisor.Load() {
		p, err := startInNamespace(cmd)
		if err == nil || !refusedNamespace(err) {
			return p, err
		}
		useSupervisor.Store(true)
		cmd = clone(cmd)
	}
	return startSupervised(cmd)
}

// startInNamespace starts cmd as pid 1 of a new PID namespace, inside a new user namespace
// when the app lacks the privilege to make a PID namespace alone.
func startInNamespace(cmd *exec.Cmd) (*Process, error) {
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() != 0 {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	cmd.SysProcAttr = attr
	p := &Process{Mode: ModeNamespace}
	if err := launch(cmd, p); err != nil {
		return nil, err
	}
	return p, nil
}

// refusedNamespace reports whether err is the kernel refusing a namespace rather than a
// failure of the program (not found, not executable).
func refusedNamespace(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.ENOSYS)
}

// clone is a command not started yet with cmd's settings (a Cmd is started once).
func clone(cmd *exec.Cmd) *exec.Cmd {
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Args[0] = cmd.Args[0]
	c.Env, c.Dir = cmd.Env, cmd.Dir
	c.Stdin, c.Stdout, c.Stderr, c.ExtraFiles = cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles
	return c
}

// StartSupervised starts cmd under the supervisor ([ModeSupervisor]) whatever the kernel
// allows: for a program that must see the machine as the app does (its processes, its users),
// which a namespace would hide, and still end with the app. cmd.SysProcAttr must be nil.
func StartSupervised(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	return startSupervised(cmd)
}

// startSupervised starts cmd under the app's binary run as a supervisor ([Supervise]).
func startSupervised(cmd *exec.Cmd) (*Process, error) {
	if !canSupervise.Load() {
		return nil, fmt.Errorf("cannot start %s: this program cannot supervise it (its main does not call tether.Supervise first)", cmd.Path)
	}
	// this very program, even once its file was replaced or removed (an upgrade)
	const self = "/proc/self/exe"
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sup := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	sup.Env = append(env[:len(env):len(env)], superviseEnv+"=1")
	sup.Dir, sup.WaitDelay = cmd.Dir, cmd.WaitDelay
	sup.Stdin, sup.Stdout, sup.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	sup.ExtraFiles = []*os.File{r} // fd 3: its end of the app's lifeline
	sup.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Process{Mode: ModeSupervisor, lifeline: w}
	if err := launch(sup, p); err != nil {
		w.Close()
		return nil, err
	}
	return p, nil
}

func (p *Process) kill() {
	if p.Exited() {
		return
	}
	if p.lifeline != nil {
		_ = p.lifeline.Close() // the supervisor kills the tree and exits
		return
	}
	_ = syscall.Kill(p.Pid, syscall.SIGKILL) // pid 1: the kernel kills its namespace
}
