package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

	// started is told the pid of unshare once it runs ([Start] finds the server's network
	// namespace below it).
	started func(pid int)
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
	stage, err := newStageDir(opts.StageDir)
	if err != nil {
		return nil, fmt.Errorf("cannot make the command's stage folder in %s: %w", opts.StageDir, err)
	}
	mnt := stage.mnt()
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
		stage.remove()
		return res, err
	}
	res.Changes.stage = stage // Close removes the folder and drops its lock
	return res, nil
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
