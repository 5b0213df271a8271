package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure one [Run]. The zero value of every field but Workspace is usable.
type Options struct {
	// Workspace is the folder the command sees (read-write, through the copy-on-write
	// layer) at its own path. Required.
	Workspace string
	// Dir is the folder the command starts in, relative to Workspace ("" is the workspace).
	Dir string
	// Timeout ends the command (and everything it started) after this long; its changes up
	// to then are still returned. Zero means no timeout.
	Timeout time.Duration
	// Network shares the host's network with the command. Without it the command has only
	// a loopback interface of its own.
	Network bool
	// Env holds variables ("NAME=value") set for the command besides PATH, HOME, LANG,
	// LC_* and TERM, which are taken from the app's environment. Nothing else is passed.
	Env []string
	// ReadOnly lists host folders or files the command may read (a toolchain under the
	// home folder, say); they appear at their own paths, read-only.
	ReadOnly []string
	// Hidden lists paths never visible to the command even where ReadOnly or the workspace
	// would show them (the app's database and config folder).
	Hidden []string
	// MaxProcesses caps the processes the command may have at once. Default 512.
	MaxProcesses int
	// MaxWriteBytes caps what the command may write into the workspace (its upper layer)
	// and, separately, into its /tmp and its home. Default 1 GiB.
	MaxWriteBytes int64
	// HeadBytes and TailBytes bound [Result.Output]. Default 16 KiB each.
	HeadBytes, TailBytes int
	// StageDir is where the change set's new file contents are kept until
	// [ChangeSet.Close]. Default os.TempDir().
	StageDir string
	// Bwrap is the bubblewrap executable. Default: "bwrap" on PATH.
	Bwrap string
	// Unconfined runs the command directly in the workspace, with none of the confinement
	// and no change set: its writes land at once. Set it only when the user knowingly chose
	// that for this machine.
	Unconfined bool
}

func (o *Options) defaults() {
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = 512
	}
	if o.MaxWriteBytes <= 0 {
		o.MaxWriteBytes = 1 << 30
	}
	if o.HeadBytes <= 0 {
		o.HeadBytes = 16 << 10
	}
	if o.TailBytes <= 0 {
		o.TailBytes = 16 << 10
	}
	if o.StageDir == "" {
		o.StageDir = os.TempDir()
	}
	if o.Bwrap == "" {
		o.Bwrap = "bwrap"
	}
}

// Result is what a command did.
type Result struct {
	// ExitCode is the command's exit status; 128+N when signal N ended it.
	ExitCode int
	// TimedOut is true when Options.Timeout ended the command.
	TimedOut bool
	// Duration is the time from start to end.
	Duration time.Duration
	// Output is stdout and stderr, bounded.
	Output Output
	// Changes is what the command created, changed and deleted in the workspace, not yet
	// applied. Nil when Options.Unconfined. Close it when done.
	Changes *ChangeSet
}

// pidMaxFloor is the smallest pid_max a kernel accepts.
const pidMaxFloor = 301

// Run runs "sh -c command" confined (see the package comment) and returns when the command
// and everything it started have ended. Output reaches fn as it comes (fn may be nil).
// Cancelling ctx kills the command and all it started at once and returns ctx's error with
// no change set. Where the confinement cannot be set up, Run returns an [*UnavailableError]
// and runs nothing.
func Run(ctx context.Context, command string, opts Options, fn OutputFunc) (*Result, error) {
	opts.defaults()
	ws, dir, err := resolveDir(opts.Workspace, opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.Unconfined {
		return runUnconfined(ctx, command, dir, opts, fn)
	}
	bwrap, err := exec.LookPath(opts.Bwrap)
	if err != nil {
		return nil, &UnavailableError{Reason: "Commands cannot run confined because bubblewrap is not installed: install the package \"bubblewrap\" (sudo apt install bubblewrap) and try again.", Detail: err.Error()}
	}
	for _, tool := range []string{"unshare", "prlimit", "timeout", "sh", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, &UnavailableError{Reason: fmt.Sprintf("Commands cannot run confined because %s is missing: install util-linux and coreutils and try again.", tool), Detail: err.Error()}
		}
	}
	stage, err := os.MkdirTemp(opts.StageDir, "prototyper-run-")
	if err != nil {
		return nil, fmt.Errorf("cannot make the command's stage folder in %s: %w", opts.StageDir, err)
	}
	mnt := filepath.Join(stage, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	var secs string
	if opts.Timeout > 0 {
		secs = strconv.FormatFloat(opts.Timeout.Seconds(), 'f', 3, 64)
	} else {
		secs = "0"
	}
	args := []string{"--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private",
		"sh", "-c", outerScript, "prototyper-sandbox",
		mnt, ws, strconv.FormatInt(opts.MaxWriteBytes, 10), strconv.Itoa(max(opts.MaxProcesses+16, pidMaxFloor)), secs, strconv.Itoa(opts.MaxProcesses)}
	args = append(args, bwrapArgs(bwrap, ws, dir, mnt, command, opts)...)

	res, err := runOuter(ctx, args, mnt, ws, stage, opts, fn)
	if err != nil || res.Changes == nil {
		os.RemoveAll(stage)
	}
	return res, err
}

// resolveDir makes the workspace absolute (links resolved) and checks that dir is a folder
// inside it.
func resolveDir(workspace, dir string) (ws, abs string, err error) {
	if workspace == "" {
		return "", "", fmt.Errorf("no workspace folder given: %w", ErrOutsideWorkspace)
	}
	ws, err = filepath.Abs(workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return "", "", fmt.Errorf("the workspace folder %s cannot be opened: %w", workspace, err)
	}
	if filepath.IsAbs(dir) || !filepath.IsLocal(filepath.Clean("./"+dir)) && filepath.Clean(dir) != "." {
		return "", "", fmt.Errorf("folder %q: %w; give a folder relative to the workspace", dir, ErrOutsideWorkspace)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", "", fmt.Errorf("the workspace folder %s cannot be opened: %w", workspace, err)
	}
	defer root.Close()
	rel := filepath.Clean("./" + dir)
	fi, err := root.Stat(rel) // a link leaving the workspace fails here
	if err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("folder %q: %w; give an existing folder of the workspace", dir, ErrOutsideWorkspace)
	}
	return ws, filepath.Join(ws, rel), nil
}

// bwrapArgs builds the confinement of the command itself.
func bwrapArgs(bwrap, ws, dir, mnt, command string, opts Options) []string {
	a := []string{bwrap,
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session",
		"--uid", strconv.Itoa(os.Getuid()), "--gid", strconv.Itoa(os.Getgid()),
	}
	if !opts.Network {
		a = append(a, "--unshare-net")
	}
	// The system folders, read-only; everything else of the host (homes, other projects,
	// /tmp, /var, /run, /mnt, /srv) is absent.
	for _, p := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				a = append(a, "--symlink", t, p)
			}
		default:
			a = append(a, "--ro-bind", p, p)
		}
	}
	if opts.Network { // the resolver of systemd-resolved is linked from /etc/resolv.conf
		a = append(a, "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	size := strconv.FormatInt(opts.MaxWriteBytes, 10)
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/tmp")
	home := homeDir()
	a = append(a, "--size", size, "--tmpfs", home)
	for _, p := range opts.ReadOnly {
		a = append(a, "--ro-bind", p, p)
	}
	a = append(a, "--bind", filepath.Join(mnt, "merged"), ws)
	for _, p := range opts.Hidden {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", p)
		} else if err == nil {
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	a = append(a, "--chdir", dir, "--clearenv")
	for _, kv := range commandEnv(home, opts.Env) {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return append(a, "--", "/bin/sh", "-c", command)
}

func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && h != "/" {
		return filepath.Clean(h)
	}
	return "/home/sandbox"
}

// commandEnv is the command's whole environment: the allow-list from the app's own, then
// the caller's explicit variables.
func commandEnv(home string, extra []string) []string {
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "TERM" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(env, extra...)
}

// runOuter starts the namespaces, streams the output, and collects the change set.
func runOuter(ctx context.Context, args []string, mnt, ws, stage string, opts Options, fn OutputFunc) (*Result, error) {
	cmd := exec.Command("unshare", args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if os.Getenv("PATH") == "" {
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
	}
	// The app's death kills unshare, whose --kill-child kills the namespace's first
	// process, which takes every process of the namespace with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	release, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{statusW}
	start := time.Now()
	err = cmd.Start()
	statusW.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &UnavailableError{Reason: "Commands cannot run confined because unshare could not start: install util-linux and try again.", Detail: err.Error()}
	}
	killed := make(chan struct{})
	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { cmd.Process.Kill(); close(killed) }) }
	stopWatch := context.AfterFunc(ctx, kill)
	defer stopWatch()

	out := newBoundedOutput(opts.HeadBytes, opts.TailBytes)
	var outMu sync.Mutex
	var fnErr error
	var pumps sync.WaitGroup
	pump := func(r *os.File, s Stream) {
		defer pumps.Done()
		defer r.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				outMu.Lock()
				out.write(buf[:n])
				if fn != nil && fnErr == nil {
					if fnErr = fn(Chunk{Stream: s, Data: buf[:n]}); fnErr != nil {
						kill()
					}
				}
				outMu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	pumps.Add(2)
	go pump(outR, Stdout)
	go pump(errR, Stderr)

	// Read the status lines until the command ended or the outer process died.
	var detail []string
	exitCode, setupFailed, ready := -1, "", false
	sc := bufio.NewScanner(statusR)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "ready":
			ready = true
		case strings.HasPrefix(line, "setup "):
			setupFailed = strings.TrimPrefix(line, "setup ")
		case strings.HasPrefix(line, "exit "):
			exitCode, _ = strconv.Atoi(strings.TrimPrefix(line, "exit "))
		default:
			detail = append(detail, line)
		}
		if exitCode >= 0 || setupFailed != "" {
			break
		}
	}
	var changes *ChangeSet
	var walkErr error
	if exitCode >= 0 && ctx.Err() == nil && fnErr == nil {
		// The namespace still holds the upper layer: read it through its root.
		upper := filepath.Join(fmt.Sprintf("/proc/%d/root", cmd.Process.Pid), mnt, "upper")
		changes, walkErr = collect(upper, ws, filepath.Join(stage, "files"))
	}
	release.Close()
	pumps.Wait()
	waitErr := cmd.Wait()
	dur := time.Since(start)

	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case fnErr != nil:
		return nil, fnErr
	case setupFailed != "" || !ready:
		return nil, unavailable(setupFailed, strings.Join(detail, "\n"), waitErr)
	case exitCode < 0:
		return nil, fmt.Errorf("the command's sandbox ended unexpectedly: %v", waitErr)
	case walkErr != nil:
		return nil, fmt.Errorf("reading what the command changed: %w", walkErr)
	}
	res := &Result{ExitCode: exitCode, Duration: dur, Output: out.result(), Changes: changes}
	// timeout(1) kills with SIGKILL: 137, the same as a command that killed itself, told
	// apart by the clock.
	res.TimedOut = opts.Timeout > 0 && exitCode == 128+int(syscall.SIGKILL) && dur >= opts.Timeout
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

// runUnconfined runs the command as an ordinary child in its own process group.
func runUnconfined(ctx context.Context, command, dir string, opts Options, fn OutputFunc) (*Result, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = commandEnv(homeDir(), opts.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdin = nil
	out := newBoundedOutput(opts.HeadBytes, opts.TailBytes)
	var mu sync.Mutex
	var fnErr error
	w := func(s Stream) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			out.write(p)
			if fn != nil && fnErr == nil {
				fnErr = fn(Chunk{Stream: s, Data: p})
			}
			return len(p), fnErr
		})
	}
	cmd.Stdout, cmd.Stderr = w(Stdout), w(Stderr)
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer stop()
	err := cmd.Wait()
	res := &Result{Duration: time.Since(start), Output: out.result()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut, res.ExitCode = true, 128+int(syscall.SIGKILL)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case fnErr != nil:
		return nil, fnErr
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil:
		return nil, err
	}
	return res, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
