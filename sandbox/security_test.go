package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setuidProbeEnv names a setuid copy of id(1) owned by another user, made by the test that
// reruns this suite as an unprivileged user (only root can make one).
const setuidProbeEnv = "PROTOTYPER_SANDBOX_SETUID_PROBE"

func TestAWriteOutsideTheWorkspaceLandsNowhere(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	// Names of this run's own, so that a file another program left in /tmp or /etc is not
	// taken for the command's write.
	probe := fmt.Sprintf("prototyper-probe-%d-%d", os.Getpid(), time.Now().UnixNano())
	tried := "echo x > /etc/" + probe + "; echo x > /usr/" + probe + "; echo x > " + outside + "/probe; echo x > ../" + probe + "; echo x > /tmp/" + probe + " && echo wrote-private-tmp"
	t.Logf("tried: %s", tried)
	res, rec := run(t, ws, tried, Options{})
	for _, p := range []string{"/etc/" + probe, "/usr/" + probe, filepath.Join(outside, "probe"), filepath.Join(filepath.Dir(ws), probe), "/tmp/" + probe} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("the command wrote %s outside the workspace", p)
		}
	}
	if !strings.Contains(rec.String(), "wrote-private-tmp") {
		t.Errorf("the command's own /tmp is not writable:\n%s", rec)
	}
	if !res.Changes.Empty() {
		t.Errorf("writes outside the workspace appear as changes: %+v", res.Changes.Changes)
	}
}

func TestSecretsOfTheHomeFolderAndTheDatabaseAreNotVisible(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeTree(t, home, map[string]string{
		".ssh/id_ed25519":                   "SECRET-SSH-KEY",
		".mozilla/firefox/p/cookies.sqlite": "SECRET-COOKIES",
		".config/prototyper/prototyper.db":  "SECRET-DATABASE",
		".config/tool/settings":             "tool settings",
		"projects/other/notes.txt":          "SECRET-OTHER-PROJECT",
		"projects/app/main.go":              "package main",
	})
	ws := filepath.Join(home, "projects/app")
	db := filepath.Join(home, ".config/prototyper/prototyper.db")
	tried := "cat ~/.ssh/id_ed25519 " + home + "/.mozilla/firefox/p/cookies.sqlite " + db + " ../other/notes.txt; ls -a ~; cat main.go; cat " + home + "/.config/tool/settings"
	t.Logf("tried: %s", tried)
	// The config folder is readable (a tool's settings), the database in it is hidden.
	_, rec := run(t, ws, tried, Options{ReadOnly: []string{filepath.Join(home, ".config")}, Hidden: []string{filepath.Dir(db)}})
	out := rec.String()
	if strings.Contains(out, "SECRET") {
		t.Fatalf("the command read a secret:\n%s", out)
	}
	if !strings.Contains(out, "package main") || !strings.Contains(out, "tool settings") {
		t.Fatalf("the command could not read the workspace or what it was allowed:\n%s", out)
	}
}

func TestCredentialsStayHiddenWhenTheWorkspaceIsTheHomeFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeTree(t, home, map[string]string{".ssh/id_rsa": "SECRET-SSH-KEY", ".netrc": "SECRET-NETRC", "notes.txt": "visible"})
	tried := "cat .ssh/id_rsa .netrc notes.txt; echo x > .ssh/planted"
	t.Logf("tried: %s (in the home folder as the workspace)", tried)
	res, rec := run(t, home, tried, Options{})
	if strings.Contains(rec.String(), "SECRET") || !strings.Contains(rec.String(), "visible") {
		t.Fatalf("output:\n%s", rec)
	}
	for _, c := range res.Changes.Changes {
		if strings.HasPrefix(c.Path, ".ssh") {
			t.Fatalf("a change to %s would be applied", c.Path)
		}
	}
}

func TestAFileTheAppHasOpenIsNotOpenInTheCommand(t *testing.T) {
	// A file outside the workspace, open for writing without close-on-exec, as one the app
	// inherited from whatever started it would be.
	outside := filepath.Join(t.TempDir(), "log")
	fd, err := syscall.Open(outside, syscall.O_WRONLY|syscall.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	n := strconv.Itoa(fd)
	tried := "[ -e /proc/self/fd/" + n + " ] && echo inherited; echo escaped >&" + n
	t.Logf("tried: %s", tried)
	_, rec := run(t, t.TempDir(), tried, Options{})
	if b, _ := os.ReadFile(outside); len(b) != 0 || strings.Contains(rec.String(), "inherited") {
		t.Fatalf("the command had the app's file %d open; it wrote %q:\n%s", fd, b, rec)
	}
}

func TestTheHostsLoopbackIsReachableOnlyWithNetworkAllowed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(c)
			c.Close()
			got <- string(b)
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	tried := "bash -c 'echo hello >/dev/tcp/127.0.0.1/" + port + "' && echo connected"
	t.Logf("tried: %s", tried)

	_, rec := run(t, t.TempDir(), tried, Options{})
	if strings.Contains(rec.String(), "connected") {
		t.Fatalf("without network the command reached the host's loopback:\n%s", rec)
	}
	_, rec = run(t, t.TempDir(), tried, Options{Network: true})
	if !strings.Contains(rec.String(), "connected") {
		t.Fatalf("with network allowed the command could not connect:\n%s", rec)
	}
	select {
	case msg := <-got:
		if msg != "hello\n" {
			t.Fatalf("the server received %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server received nothing although the command connected")
	}
	select {
	case msg := <-got:
		t.Fatalf("a second connection arrived (%q): the one without network got through", msg)
	default:
	}
}

func TestNothingTheCommandStartedOutlivesIt(t *testing.T) {
	tried := "(trap '' TERM HUP; exec sleep 987601) & setsid sleep 987601 & echo left-children"
	t.Logf("tried: %s", tried)
	_, rec := run(t, t.TempDir(), tried, Options{})
	if !strings.Contains(rec.String(), "left-children") {
		t.Fatalf("the command did not run: %s", rec)
	}
	awaitNoProcessWith(t, "987601", time.Second)
}

func TestStopEndsTheCommandAndEverythingItStartedWithinASecond(t *testing.T) {
	needSandbox(t)
	tried := "sh -c \"trap '' TERM; sleep 987602\" & echo started; wait"
	t.Logf("tried: %s, then Stop", tried)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		_, err := Run(ctx, tried, Options{Workspace: t.TempDir()}, func(c Chunk) error {
			if strings.Contains(string(c.Data), "started") {
				close(started)
			}
			return nil
		})
		done <- err
	}()
	<-started
	for len(processesWith("sleep\x00987602")) == 0 { // the grandchild is running
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	stopped := time.Now()
	awaitNoProcessWith(t, "987602", time.Second)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	t.Logf("gone %v after Stop", time.Since(stopped))
}

func TestForkingWithoutLimitIsCapped(t *testing.T) {
	const maxProcs = 32
	tried := "i=0; while [ $i -lt 2000 ]; do sleep 987603 & i=$((i+1)); echo $i; done"
	t.Logf("tried: %s (MaxProcesses %d)", tried, maxProcs)
	res, rec := run(t, t.TempDir(), tried, Options{MaxProcesses: maxProcs})
	lines := strings.Fields(rec.stdout.String())
	forked := 0
	if len(lines) > 0 {
		forked, _ = strconv.Atoi(lines[len(lines)-1])
	}
	// Root is exempt from RLIMIT_NPROC; the namespace's pid_max caps it instead, which the
	// kernel allows no lower than pidMaxFloor.
	limit := maxProcs
	if os.Getuid() == 0 {
		limit = pidMaxFloor
	}
	if forked >= limit || res.ExitCode == 0 {
		t.Fatalf("the command forked %d processes (limit %d), exit %d:\n%s", forked, limit, res.ExitCode, rec.stderr.String())
	}
	if !strings.Contains(rec.stderr.String(), "fork") {
		t.Fatalf("no fork failure reported:\n%s", rec.stderr.String())
	}
	awaitNoProcessWith(t, "987603", time.Second)
	t.Logf("forked %d before the cap", forked)
}

func TestFillingTheDiskStopsAtTheWriteLimit(t *testing.T) {
	const limit = 8 << 20
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"hidden/": ""})
	tried := "head -c 64M /dev/zero > big || echo workspace-full; head -c 64M /dev/zero > /tmp/big || echo tmp-full; " +
		"head -c 64M /dev/zero > ~/big || echo home-full; head -c 64M /dev/zero > /dev/shm/big || echo shm-full; " +
		"head -c 64M /dev/zero > hidden/big || echo hidden-refused"
	t.Logf("tried: %s (MaxWriteBytes %d)", tried, limit)
	res, rec := run(t, ws, tried, Options{MaxWriteBytes: limit, Hidden: []string{filepath.Join(ws, "hidden")}})
	for _, want := range []string{"workspace-full", "tmp-full", "home-full", "shm-full", "hidden-refused", "No space left on device"} {
		if !strings.Contains(rec.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, rec)
		}
	}
	if res.Changes.Bytes > limit {
		t.Errorf("the change set holds %d bytes, over the limit %d", res.Changes.Bytes, limit)
	}
}

func TestModesOutsideTheWorkspaceCannotChange(t *testing.T) {
	tools := t.TempDir()
	script := filepath.Join(tools, "tool.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tried := "chmod 777 " + script + " || echo refused-tool; chmod 777 /usr/bin/env || echo refused-system"
	t.Logf("tried: %s", tried)
	_, rec := run(t, t.TempDir(), tried, Options{ReadOnly: []string{tools}})
	for _, want := range []string{"refused-tool", "refused-system"} {
		if !strings.Contains(rec.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, rec)
		}
	}
	for p, want := range map[string]os.FileMode{script: 0o755, "/usr/bin/env": 0o755} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (err %v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}

func TestASetuidProgramGainsNoPrivilege(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	tried := "grep NoNewPrivs /proc/self/status; su -c 'id -u' root </dev/null || echo su-refused; id -u"
	var opts Options
	if probe := os.Getenv(setuidProbeEnv); probe != "" {
		tried += "; " + probe + " -u"
		opts.ReadOnly = []string{filepath.Dir(probe)}
	} else if os.Getuid() == 0 {
		dir := t.TempDir()
		probe := filepath.Join(dir, "id")
		makeSetuidCopy(t, "/usr/bin/id", probe, 4321)
		tried += "; " + probe + " -u"
		opts.ReadOnly = []string{dir}
	}
	t.Logf("tried: %s", tried)
	_, rec := run(t, t.TempDir(), tried, opts)
	out := rec.stdout.String()
	if !strings.Contains(out, "NoNewPrivs:\t1") || !strings.Contains(out, "su-refused") {
		t.Fatalf("setuid is not neutralised:\n%s", rec)
	}
	for _, line := range strings.Fields(out)[2:] {
		if line != uid && line != "su-refused" {
			t.Fatalf("a setuid program ran with uid %s, not %s:\n%s", line, uid, rec)
		}
	}
}

// makeSetuidCopy copies src to dst, owned by uid, mode 4755 (root only).
func makeSetuidCopy(tb testing.TB, src, dst string, uid int) {
	tb.Helper()
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, b, 0o755)
	}
	if err == nil {
		err = os.Chown(dst, uid, uid)
	}
	if err == nil {
		err = os.Chmod(dst, 0o4755)
	}
	if err != nil {
		tb.Fatal(fmt.Errorf("making a setuid copy of %s: %w", src, err))
	}
}
