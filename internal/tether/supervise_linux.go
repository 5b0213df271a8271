package tether

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// superviseEnv marks the app's binary run as a supervisor.
const superviseEnv = "PROTOTYPER_TETHER_SUPERVISE"

// canSupervise is set by [Supervise]: only a binary that calls it can be run again as a
// supervisor (another would run its own main again: a test binary, its tests).
var canSupervise atomic.Bool

// Supervise runs the supervisor and exits when the binary was started as one by [Start]; it
// returns at once otherwise. main calls it first, before anything else runs (a test binary
// that starts supervised programs, TestMain).
func Supervise() {
	canSupervise.Store(true)
	if os.Getenv(superviseEnv) == "" {
		return
	}
	os.Exit(supervise())
}

// supervise runs the program of its arguments and ends every process it started when the
// program exits or the app goes.
func supervise() int {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	syscall.CloseOnExec(3)
	lifeline := os.NewFile(3, "lifeline")
	if len(os.Args) < 2 {
		return 2
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, superviseEnv+"=") })
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 127
	}
	go func() {
		for sig := range signals {
			_ = cmd.Process.Signal(sig)
		}
	}()
	var killed atomic.Bool
	go func() { // the app went (or ended the program): end everything, now
		_, _ = lifeline.Read(make([]byte, 1))
		killed.Store(true)
		killDescendants()
		os.Exit(137)
	}()
	err := cmd.Wait()
	killDescendants()
	if killed.Load() { // the program may have been reaped by the killing, not by Wait
		return 137
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	return 0
}

// killDescendants kills every process below this one until none is left: as a subreaper it
// inherits the orphans, so each round finds the rest. A process this user may not signal (one
// that became another user's, through sudo or a setuid program) is said on stderr and left;
// and after killGrace it returns whatever is left, so that the supervisor always ends.
func killDescendants() {
	self := os.Getpid()
	refused := map[int]bool{}
	for deadline := time.Now().Add(killGrace); ; time.Sleep(5 * time.Millisecond) {
		left := 0
		for _, pid := range Descendants(self) {
			if refused[pid] {
				continue
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); errors.Is(err, syscall.EPERM) {
				refused[pid] = true
				fmt.Fprintf(os.Stderr, "process %d belongs to another user: Prototyper cannot end it and leaves it running\n", pid)
				continue
			}
			left++
		}
		for { // reap them, so that they leave the process table
			if pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err != nil || pid <= 0 {
				break
			}
		}
		if left == 0 || time.Now().After(deadline) {
			return
		}
	}
}

// killGrace bounds the supervisor's killing: the kernel ends a killed process within moments.
const killGrace = 2 * time.Second

// Descendants are the processes below pid, read from /proc (children before grandchildren).
func Descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf is the parent of pid (0 when it is gone).
func parentOf(pid int) int {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
