package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
)

// commandCrashSleep marks the processes of the crash test's command: nothing else runs a
// sleep of this length.
const commandCrashSleep = "297.25"

// commandCrashModel runs a command that changes the workspace, then ignores SIGTERM, forks
// a child that ignores it too, says "started" and sleeps.
var commandCrashModel = ollamatest.Model{Name: "e2e-command-crash", Scripts: ollamatest.Scripts{
	"SU": ollamatest.ToolCall("run_command", map[string]any{"command": "echo made > made.txt; echo changed > keep.txt; rm gone.txt; " +
		"trap '' TERM; (trap '' TERM; sleep " + commandCrashSleep + ") & echo started; sleep " + commandCrashSleep}),
	"SUAT": []string{"Done."},
}}

// crashUser is who runs the app in the crash test: the test's own user, and also an
// unprivileged one when the tests run as root.
type crashUser struct {
	name     string
	uid, gid int // -1: the test's own
}

func crashUsers(t *testing.T) []crashUser {
	users := []crashUser{{name: "self", uid: -1, gid: -1}}
	if os.Getuid() != 0 {
		return users
	}
	const name = "prototyper-sandbox-test"
	u, err := user.Lookup(name)
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v\n%s", err, out)
		}
		if u, err = user.Lookup(name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return append(users, crashUser{name: name, uid: uid, gid: gid})
}

// TestKillingRunWhileACommandRunsLeavesNoProcessAndTheWorkspaceUnchanged: `prototyper run`
// killed with SIGKILL while its command (which ignores SIGTERM and forked a child) runs
// leaves no process of the command behind, and the workspace as it was: the command's
// changes are applied only after it ends.
func TestKillingRunWhileACommandRunsLeavesNoProcessAndTheWorkspaceUnchanged(t *testing.T) {
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	srv := ollamatest.Get(t)
	bin := desktopBinary(t)
	for _, u := range crashUsers(t) {
		t.Run(u.name, func(t *testing.T) {
			base, err := os.MkdirTemp("", "prototyper-command-crash-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			os.Chmod(base, 0o755)
			ws, home, tmp := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "tmp")
			for _, d := range []string{ws, home, tmp} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("as the user left it\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "gone.txt"), []byte("still here\n"), 0o600)
			cmd := exec.Command(bin, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(base, "p.db"), "--workspace", ws,
				"--model", commandCrashModel.Name, "--approve", "auto", "Run it")
			cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+tmp, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
			if u.uid >= 0 {
				filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.gid) })
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}}
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			started := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 1<<20), 1<<20)
				for sc.Scan() {
					var e struct{ Type, Text string }
					if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == "tool.output" && strings.Contains(e.Text, "started") {
						started <- true
						return
					}
				}
				started <- false
			}()
			select {
			case ok := <-started:
				if !ok {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the run ended before its command said it started; stderr:\n%s", stderr.String())
				}
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("no output of the command within two minutes; stderr:\n%s", stderr.String())
			}
			// both sleeps (the command's and its child's) run before the kill, or their absence
			// afterwards would prove nothing
			for seen := time.Now(); len(commandSleepers()) < 2; time.Sleep(10 * time.Millisecond) {
				if time.Since(seen) > time.Minute {
					t.Fatalf("the command's two processes never showed; stderr:\n%s", stderr.String())
				}
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			// the kernel ends the namespaces' processes as the app dies; wait for that, no longer
			// than a loaded machine could need
			deadline := time.Now().Add(20 * time.Second)
			for len(commandSleepers()) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if left := commandSleepers(); len(left) > 0 {
				t.Fatalf("processes left after the kill: %v", left)
			}
			wantContent(t, filepath.Join(ws, "keep.txt"), "as the user left it\n")
			wantContent(t, filepath.Join(ws, "gone.txt"), "still here\n")
			if _, err := os.Lstat(filepath.Join(ws, "made.txt")); err == nil {
				t.Error("made.txt exists: the killed command's change reached the workspace")
			}
		})
	}
}

// commandSleepers lists the processes of the crash test's command (pid: command line).
func commandSleepers() []string {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 2 && filepath.Base(args[0]) == "sleep" && args[1] == commandCrashSleep {
			out = append(out, fmt.Sprintf("%s: %s", filepath.Base(filepath.Dir(p)), strings.Join(args, " ")))
		}
	}
	return out
}
