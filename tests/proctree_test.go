package tests

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startCLI starts the app's binary with args (HOME a folder of the test's) and kills it, if
// it still runs, when the test ends.
func startCLI(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(desktopBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// procStat is the state and the start time of pid ("", "" when it is gone).
func procStat(pid int) (state, started string) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return "", ""
	}
	return fields[0], fields[19]
}

// waitTreeGone waits until none of the processes pids (read now) runs any more: gone, a
// zombie, or its pid taken by another process. It fails the test, and kills them, after
// timeout.
func waitTreeGone(t *testing.T, pids []int, timeout time.Duration) {
	t.Helper()
	started := map[int]string{}
	for _, pid := range pids {
		_, started[pid] = procStat(pid)
	}
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		var left []int
		for _, pid := range pids {
			if state, start := procStat(pid); start != "" && start == started[pid] && state != "Z" && state != "X" {
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
			t.Fatalf("processes %v of %v still ran %s after the app was killed", left, pids, timeout)
		}
	}
}
