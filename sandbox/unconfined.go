package sandbox

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"prototyper/internal/tether"
)

// runUnconfined runs the command as the app's own user, seeing the machine as the app does,
// under the app's supervisor (tether.StartSupervised): every process it starts — one that left
// its group or session (setsid) too — is killed when the command ends, is stopped or times
// out, and when the app ends, kill -9 included.
func runUnconfined(ctx context.Context, command, dir string, opts Options, fn OutputFunc) (*Result, error) {
	closeOnExec()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = commandEnv(homeDir(), opts.Env)
	cmd.WaitDelay = time.Second // then the pipes a process outside the tree still holds are closed
	out := newBoundedOutput(opts.HeadBytes, opts.TailBytes)
	var proc atomic.Pointer[tether.Process]
	var killed atomic.Bool
	// killTree asks the supervisor to end the command's tree and returns at once: it is called
	// from the goroutine that copies the output, which the process's end waits for.
	killTree := func() {
		killed.Store(true)
		if p := proc.Load(); p != nil {
			go p.Kill()
		}
	}
	var mu sync.Mutex
	var fnErr error
	w := func(s Stream) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			out.write(p)
			if fn != nil && fnErr == nil {
				if fnErr = fn(Chunk{Stream: s, Data: p}); fnErr != nil {
					killTree()
				}
			}
			return len(p), fnErr
		})
	}
	cmd.Stdout, cmd.Stderr = w(Stdout), w(Stderr)
	start := time.Now()
	p, err := tether.StartSupervised(cmd)
	if err != nil {
		return nil, err
	}
	proc.Store(p)
	if killed.Load() { // asked before the process was known
		go p.Kill()
	}
	stop := context.AfterFunc(ctx, killTree)
	defer stop()
	var timedOut atomic.Bool
	if opts.Timeout > 0 {
		timer := time.AfterFunc(opts.Timeout, func() { timedOut.Store(true); killTree() })
		defer timer.Stop()
	}
	err = p.Err()
	res := &Result{Duration: time.Since(start), Output: out.result(), TimedOut: timedOut.Load()}
	var exitErr *exec.ExitError
	mu.Lock()
	defer mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case fnErr != nil:
		return nil, fnErr
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return nil, err
	}
	return res, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
