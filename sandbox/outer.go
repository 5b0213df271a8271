package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// outer is one run of [outerScript] under unshare(1): the process that holds the
// namespaces, the pipes of the command's output, and the status the script reports.
type outer struct {
	cmd     *exec.Cmd
	release *os.File // closing it lets the script, and with it the namespaces, end
	status  *os.File
	start   time.Time

	killOnce sync.Once

	outMu sync.Mutex // guards out and fnErr: both streams deliver in turn
	out   *boundedOutput
	fn    OutputFunc
	fnErr error
	pumps sync.WaitGroup
}

// report is what the script said on its status pipe.
type report struct {
	ready      bool     // the mounts are in place and bwrap starts
	setupStep  string   // the step that failed before bwrap, if any
	bwrapEnded bool     // bwrap reported the command's exit status
	exitCode   int      // the status of bwrap (the command's when bwrapEnded); -1 if none
	detail     []string // what failing steps printed
}

// startOuter starts unshare with args; the command's output goes to fn and a bounded copy.
func startOuter(args []string, opts Options, fn OutputFunc) (*outer, error) {
	closeOnExec()
	o := &outer{out: newBoundedOutput(opts.HeadBytes, opts.TailBytes), fn: fn}
	o.cmd = exec.Command("unshare", args...)
	o.cmd.Env = []string{"PATH=" + toolPath()}
	// The app's death kills unshare, whose --kill-child kills the namespace's first
	// process, which takes every process of the namespace with it.
	o.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	var files []*os.File // the ends the child gets, closed here once it has them
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, w)
		}
		return r, w, err
	}
	stdinR, release, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	files = append(files, stdinR)
	o.release = release
	statusR, statusW, err := pipe()
	if err != nil {
		release.Close()
		return nil, err
	}
	o.status = statusR
	outR, outW, err := pipe()
	if err != nil {
		o.closeParentEnds()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		outR.Close()
		o.closeParentEnds()
		return nil, err
	}
	o.cmd.Stdin, o.cmd.Stdout, o.cmd.Stderr = stdinR, outW, errW
	o.cmd.ExtraFiles = []*os.File{statusW} // fd 3
	o.start = time.Now()
	if err := o.cmd.Start(); err != nil {
		outR.Close()
		errR.Close()
		o.closeParentEnds()
		return nil, &UnavailableError{Reason: "Commands cannot run confined because unshare could not start: install util-linux and try again.", Detail: err.Error()}
	}
	o.pumps.Add(2)
	go o.pump(outR, Stdout)
	go o.pump(errR, Stderr)
	return o, nil
}

func (o *outer) closeParentEnds() {
	o.release.Close()
	o.status.Close()
}

// kill ends every process of the run at once.
func (o *outer) kill() { o.killOnce.Do(func() { o.cmd.Process.Kill() }) }

// pump delivers one stream to fn, a chunk per read, through one reused buffer.
func (o *outer) pump(r *os.File, s Stream) {
	defer o.pumps.Done()
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.deliver(s, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (o *outer) deliver(s Stream, p []byte) {
	o.outMu.Lock()
	defer o.outMu.Unlock()
	o.out.write(p)
	if o.fn != nil && o.fnErr == nil {
		if o.fnErr = o.fn(Chunk{Stream: s, Data: p}); o.fnErr != nil {
			o.kill()
		}
	}
}

func (o *outer) callbackErr() error {
	o.outMu.Lock()
	defer o.outMu.Unlock()
	return o.fnErr
}

// awaitEnd reads the status pipe until bwrap ended, a setup step failed, or the script died.
func (o *outer) awaitEnd() report {
	rep := report{exitCode: -1}
	sc := bufio.NewScanner(o.status)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "ready":
			rep.ready = true
		case strings.HasPrefix(line, "setup "):
			rep.setupStep = strings.TrimPrefix(line, "setup ")
			return rep
		case strings.HasPrefix(line, "exit "):
			rep.exitCode, _ = strconv.Atoi(strings.TrimPrefix(line, "exit "))
			return rep
		case strings.HasPrefix(line, "{") && strings.Contains(line, `"exit-code"`):
			rep.bwrapEnded = true // bwrap's --json-status-fd: the command itself ran and ended
		case strings.HasPrefix(line, "{"): // bwrap's other status lines
		default:
			rep.detail = append(rep.detail, line)
		}
	}
	return rep
}

// upper is the overlay's upper folder, seen from outside through the namespace's root
// while the script waits.
func (o *outer) upper(mnt string) string {
	return filepath.Join(fmt.Sprintf("/proc/%d/root", o.cmd.Process.Pid), mnt, "upper")
}

// finish lets the script end and waits for every process and pipe of the run.
func (o *outer) finish() (Output, time.Duration, error) {
	o.release.Close()
	o.pumps.Wait()
	err := o.cmd.Wait()
	o.status.Close()
	return o.out.result(), time.Since(o.start), err
}

// runOuter runs the prepared unshare command line to its end and collects the change set.
func runOuter(ctx context.Context, args []string, mnt, ws string, stage *stageDir, opts Options, fn OutputFunc) (*Result, error) {
	o, err := startOuter(args, opts, fn)
	if err != nil {
		return nil, err
	}
	stopWatch := context.AfterFunc(ctx, o.kill)
	defer stopWatch()
	if opts.started != nil {
		opts.started(o.cmd.Process.Pid)
	}

	rep := o.awaitEnd()
	var changes *ChangeSet
	var collectErr error
	if rep.exitCode >= 0 && ctx.Err() == nil && o.callbackErr() == nil {
		changes, collectErr = collect(ctx, o.upper(mnt), ws, stage.files())
	}
	output, dur, waitErr := o.finish()

	res := &Result{ExitCode: rep.exitCode, Duration: dur, Output: output, Changes: changes}
	// timeout(1) kills bwrap with SIGKILL: 137, the same as a command that killed itself
	// would give, told apart by bwrap's own report and the clock.
	res.TimedOut = opts.Timeout > 0 && !rep.bwrapEnded && rep.exitCode == 128+int(syscall.SIGKILL) && dur >= opts.Timeout
	var err2 error
	switch {
	case ctx.Err() != nil:
		err2 = ctx.Err()
	case o.callbackErr() != nil:
		err2 = o.callbackErr()
	case rep.setupStep != "" || !rep.ready:
		err2 = unavailable(rep.setupStep, strings.Join(rep.detail, "\n"), waitErr)
	case rep.exitCode < 0:
		err2 = fmt.Errorf("the command's sandbox ended unexpectedly: %v", waitErr)
	case !rep.bwrapEnded && !res.TimedOut:
		err2 = &UnavailableError{
			Reason: "Commands cannot run confined because bubblewrap could not set up the sandbox: check the folders given to it, or turn on running commands unconfined in the settings.",
			Detail: strings.TrimSpace(output.Text()),
		}
	case collectErr != nil:
		err2 = fmt.Errorf("reading what the command changed: %w", collectErr)
	}
	if err2 != nil {
		changes.Close()
		return nil, err2
	}
	return res, nil
}

// unavailable turns a failed setup step into the sentence for the user.
func unavailable(step, detail string, waitErr error) error {
	if detail == "" && waitErr != nil {
		detail = waitErr.Error()
	}
	reason := "Commands cannot run confined because this system refuses unprivileged user namespaces: allow them (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0) or turn on running commands unconfined in the settings."
	switch step {
	case "overlay":
		reason = "Commands cannot run confined because this kernel cannot mount an overlay in a user namespace (Linux 5.11 or later is needed): update the kernel or turn on running commands unconfined in the settings."
	case "bind":
		reason = "Commands cannot run confined because the workspace folder cannot be mounted in the sandbox: choose a folder on a local disk."
	}
	return &UnavailableError{Reason: reason, Detail: strings.TrimSpace(step + " " + detail)}
}

// toolPath is the PATH unshare, mount, timeout, prlimit and bwrap are looked up in.
func toolPath() string {
	if p := os.Getenv("PATH"); p != "" {
		return p
	}
	return "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
}

// closeOnExec marks every open file of the app close-on-exec. Go opens its own files so,
// but a file the app inherited from whatever started it, or one a C library opened, would
// otherwise be open in the command: a way out of the sandbox (a socket, a pipe, a file
// outside the workspace open for writing). Files handed to a child on purpose (ExtraFiles,
// stdio) are duplicated onto their numbers in the child, which clears the flag there.
func closeOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC)
		}
	}
}
