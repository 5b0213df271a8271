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
)

// runUnconfined runs the command as an ordinary child in its own process group, which is
// killed when the command ends, is stopped or times out. A process that left the group
// (setsid) survives: nothing but the sandbox can promise otherwise.
func runUnconfined(ctx context.Context, command, dir string, opts Options, fn OutputFunc) (*Result, error) {
	closeOnExec()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = commandEnv(homeDir(), opts.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second // then the pipes a child still holds are closed
	killGroup := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out := newBoundedOutput(opts.HeadBytes, opts.TailBytes)
	var mu sync.Mutex
	var fnErr error
	w := func(s Stream) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			out.write(p)
			if fn != nil && fnErr == nil {
				if fnErr = fn(Chunk{Stream: s, Data: p}); fnErr != nil {
					killGroup()
				}
			}
			return len(p), fnErr
		})
	}
	cmd.Stdout, cmd.Stderr = w(Stdout), w(Stderr)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, killGroup)
	defer stop()
	var timedOut atomic.Bool
	if opts.Timeout > 0 {
		timer := time.AfterFunc(opts.Timeout, func() { timedOut.Store(true); killGroup() })
		defer timer.Stop()
	}
	err := cmd.Wait()
	killGroup() // what the command left running in its group
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
