package testenv

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ProcStat is the state (R, S, Z…) and the start time of pid as Linux's /proc tells them
// ("", "" when it is gone). With its start time a pid names one process: a pid used again is
// another one.
func ProcStat(pid int) (state, started string) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	// pid (comm) state …: comm may hold spaces and parentheses, the state follows the last ')'
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return "", ""
	}
	return fields[0], fields[19]
}

// WaitTreeGone waits until none of the processes pids (as they are when it is called) runs
// any more: gone, a zombie, or its pid taken by another process. After timeout it kills those
// left and fails tb naming them.
func WaitTreeGone(tb testing.TB, pids []int, timeout time.Duration) {
	tb.Helper()
	started := map[int]string{}
	for _, pid := range pids {
		_, started[pid] = ProcStat(pid)
	}
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		var left []int
		for _, pid := range pids {
			if state, start := ProcStat(pid); start != "" && start == started[pid] && state != "Z" && state != "X" {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
			tb.Fatalf("processes %v of %v still ran %s after the app was killed", left, pids, timeout)
		}
	}
}

// StartApp starts cmd, a program standing in for the app (often the test binary itself), with
// the test's stderr, and returns its stdout; the test's end kills it, so that a failing test
// leaves no app behind.
func StartApp(tb testing.TB, cmd *exec.Cmd) io.Reader {
	tb.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return stdout
}
