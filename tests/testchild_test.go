package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"prototyper/store"
)

// The crash tests run this test binary again as a child that works on a database until the
// parent kills it. A child says what failed on its stderr, starting "child", and exits 3; the
// parent reads a failed child apart from a killed one by those words.

// startTestChild starts this test binary again running only the test named test, with env
// added to its environment; its stdout is the returned pipe and its stderr goes to errBuf.
func startTestChild(t *testing.T, test, env string) (cmd *exec.Cmd, stdout io.ReadCloser, errBuf *bytes.Buffer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	errBuf = &bytes.Buffer{}
	cmd.Stderr = errBuf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, errBuf
}

// readChildLines reads a child's stdout until it closes: ready gets a value once the child
// prints the line "ready", and out then gets every whole line it printed (a line the kill cut
// short, without its newline, is no promise and is left out). lines counts them as they come.
func readChildLines(stdout io.Reader, lines *lineCounter) (ready <-chan struct{}, out <-chan []byte) {
	readyc, outc := make(chan struct{}, 1), make(chan []byte, 1)
	go func() {
		var all bytes.Buffer
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				close(lines.ended)
				outc <- all.Bytes()
				return
			}
			all.Write(line)
			if string(line) == "ready\n" {
				readyc <- struct{}{}
			}
			if lines.n.Add(1) == lines.target {
				close(lines.reached)
			}
		}
	}()
	return readyc, outc
}

// lineCounter counts a child's whole lines as readChildLines reads them, for a kill timed by the
// child's progress rather than the clock: a loaded machine works more slowly, and a kill timed by
// the clock alone could then always land before the work the test is about.
type lineCounter struct {
	n       atomic.Int64
	target  int64
	reached chan struct{} // closed at the target-th line
	ended   chan struct{} // closed once the child's stdout closed
}

// newLineCounter counts up to target lines.
func newLineCounter(target int64) *lineCounter {
	return &lineCounter{target: target, reached: make(chan struct{}), ended: make(chan struct{})}
}

// await waits until the child printed its target lines, then a random moment of up to 2 ms, so
// that the kill lands inside the child's next piece of work. It gives up after two minutes, or
// when the child's stdout closed first (a child that failed: its exit says so).
func (c *lineCounter) await(t *testing.T, r *rand.Rand) {
	t.Helper()
	select {
	case <-c.reached:
		time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
	case <-c.ended:
	case <-time.After(2 * time.Minute):
		t.Errorf("the child printed %d lines in two minutes, not %d", c.n.Load(), c.target)
	}
}

// killTestChild kills the child cmd with SIGKILL (again, if it was), waits for it, and fails t
// when the child said it failed (errBuf).
func killTestChild(t *testing.T, cmd *exec.Cmd, errBuf *bytes.Buffer) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if strings.Contains(errBuf.String(), "child") {
		t.Fatalf("the child failed: %s", errBuf.String())
	}
}

// openChildDB opens the database at path in a child, with opts; a child that cannot open it
// says so and exits 3.
func openChildDB(path string, opts store.Options) *store.DB {
	db, err := store.Open(path, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	return db
}
