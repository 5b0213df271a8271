package sandbox

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

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
