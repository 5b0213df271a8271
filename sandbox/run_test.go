package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOutputArrivesWhileTheCommandRuns(t *testing.T) {
	needSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Chunk
	_, err := Run(ctx, "echo one; echo two >&2; sleep 600", Options{Workspace: t.TempDir()}, func(c Chunk) error {
		seen = append(seen, Chunk{Stream: c.Stream, Data: append([]byte(nil), c.Data...)})
		var out, errOut bool
		for _, s := range seen {
			out = out || s.Stream == Stdout && string(s.Data) == "one\n"
			errOut = errOut || s.Stream == Stderr && string(s.Data) == "two\n"
		}
		if out && errOut {
			cancel() // both lines came while the command still sleeps
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled after both lines arrived; chunks: %q", err, seen)
	}
}

func TestCallbackErrorStopsTheCommand(t *testing.T) {
	needSandbox(t)
	stop := errors.New("enough")
	_, err := Run(context.Background(), "echo one; sleep 600", Options{Workspace: t.TempDir()}, func(Chunk) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("Run = %v, want the callback's error", err)
	}
}

func TestExitStatusAndStartingFolder(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"sub/": ""})
	res, rec := run(t, ws, "pwd; exit 3", Options{Dir: "sub"})
	if res.ExitCode != 3 || res.TimedOut {
		t.Fatalf("exit %d timedOut %v, want 3 false", res.ExitCode, res.TimedOut)
	}
	if got := strings.TrimSpace(rec.String()); got != filepath.Join(ws, "sub") {
		t.Fatalf("pwd = %q, want %q", got, filepath.Join(ws, "sub"))
	}
	if !res.Changes.Empty() {
		t.Fatalf("changes of a command that wrote nothing: %+v", res.Changes.Changes)
	}
}

func TestEnvironmentHoldsOnlyTheAllowListAndWhatTheCallerPasses(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-key")
	t.Setenv("GITHUB_TOKEN", "ghp-secret-token")
	t.Setenv("LC_ALL", "C.UTF-8")
	res, rec := run(t, t.TempDir(), "env", Options{Env: []string{"NODE_ENV=test"}})
	out := rec.String()
	if res.ExitCode != 0 {
		t.Fatalf("env exited %d: %s", res.ExitCode, out)
	}
	for _, secret := range []string{"sk-secret-key", "ghp-secret-token", "OPENAI_API_KEY", "GITHUB_TOKEN"} {
		if strings.Contains(out, secret) {
			t.Errorf("the command's environment holds %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"PATH=", "HOME=", "LC_ALL=C.UTF-8", "NODE_ENV=test"} {
		if !strings.Contains(out, want) {
			t.Errorf("the command's environment lacks %q:\n%s", want, out)
		}
	}
}

func TestTimeoutEndsTheCommandAndKeepsWhatItWrote(t *testing.T) {
	// The timeout must fall after the write: a loaded machine may need a longer one.
	for _, timeout := range []time.Duration{300 * time.Millisecond, 2 * time.Second, 10 * time.Second} {
		res, rec := run(t, t.TempDir(), "echo partial > made.txt; echo written; sleep 600", Options{Timeout: timeout})
		if !res.TimedOut {
			t.Fatalf("TimedOut false after the timeout; exit %d after %v", res.ExitCode, res.Duration)
		}
		if !strings.Contains(rec.String(), "written") {
			continue
		}
		if len(res.Changes.Changes) != 1 || res.Changes.Changes[0].Path != "made.txt" {
			t.Fatalf("changes %+v, want made.txt created", res.Changes.Changes)
		}
		return
	}
	t.Fatal("the command never reached its write before the timeout")
}

func TestAFolderOutsideTheWorkspaceIsRefused(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"..", "../x", "/etc", "link", "missing"} {
		_, err := Run(context.Background(), "true", Options{Workspace: ws, Dir: dir}, nil)
		if !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Dir %q: Run = %v, want ErrOutsideWorkspace", dir, err)
		}
	}
}

func TestWithoutBubblewrapTheErrorSaysWhatToInstall(t *testing.T) {
	_, err := Run(context.Background(), "true", Options{Workspace: t.TempDir(), Bwrap: "/nonexistent/bwrap"}, nil)
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Run = %v, want an UnavailableError", err)
	}
	if !strings.Contains(err.Error(), "install the package \"bubblewrap\"") {
		t.Fatalf("the sentence does not say what to do: %q", err)
	}
}

// The app runs in a user namespace whose limit of nested user namespaces is 0, as on a
// system that refuses them: Run must refuse and run nothing.
func TestWhereUserNamespacesAreRefusedNothingRuns(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	cmd := exec.Command("unshare", "--user", "--map-root-user", "sh", "-c",
		`echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" -test.run '^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=refused", helperWorkspaceEnv+"="+ws)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "unavailable: Commands cannot run confined because this system refuses unprivileged user namespaces") {
		t.Fatalf("helper printed %q, want the unavailable sentence", out)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 0 {
		t.Fatalf("the command ran: the workspace holds %v", entries)
	}
}

func TestUnconfinedRunsInTheWorkspaceOnlyWhenAsked(t *testing.T) {
	ws := t.TempDir()
	res, err := Run(context.Background(), "echo direct > d.txt; echo out", Options{Workspace: ws, Unconfined: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != nil || strings.TrimSpace(res.Output.Text()) != "out" {
		t.Fatalf("unconfined result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "d.txt")); string(b) != "direct\n" {
		t.Fatalf("unconfined write did not land: %q", b)
	}
}

func TestASandboxBubblewrapCannotSetUpIsReportedAndNothingRuns(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"private/sub/": ""})
	// The folder to start in exists, but it is inside a hidden one: bwrap cannot enter it.
	rec := &recorded{}
	_, err := Run(context.Background(), "echo ran", Options{Workspace: ws, Dir: "private/sub", Hidden: []string{filepath.Join(ws, "private")}}, rec.fn)
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) || !strings.Contains(unavailable.Detail, "bwrap") {
		t.Fatalf("Run = %v, want an UnavailableError with bubblewrap's message", err)
	}
	if strings.Contains(rec.String(), "ran") {
		t.Fatalf("the command ran: %s", rec)
	}
	t.Logf("%s (%s)", err, unavailable.Detail)
}

func TestUnconfinedStopsWhatTheCommandLeftInItsGroup(t *testing.T) {
	res, err := Run(context.Background(), "sleep 987604 & echo left", Options{Workspace: t.TempDir(), Unconfined: true, Timeout: time.Minute}, nil)
	if err != nil || res.TimedOut || strings.TrimSpace(res.Output.Text()) != "left" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	awaitNoProcessWith(t, "987604", time.Second)
}

func TestUnconfinedEndsWhatTheCommandStartedOutsideItsGroup(t *testing.T) {
	res, err := Run(context.Background(), "setsid sleep 987605 & echo left", Options{Workspace: t.TempDir(), Unconfined: true, Timeout: time.Minute}, nil)
	if err != nil || strings.TrimSpace(res.Output.Text()) != "left" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	awaitNoProcessWith(t, "987605", time.Second)
}

func TestStoppingAnUnconfinedCommandEndsItsWholeTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, "setsid sleep 987606 & sleep 987607 & echo started; wait", Options{Workspace: t.TempDir(), Unconfined: true}, func(c Chunk) error {
			if strings.Contains(string(c.Data), "started") {
				for len(processesWith("987606")) == 0 || len(processesWith("987607")) == 0 {
					time.Sleep(5 * time.Millisecond)
				}
				cancel() // Stop
			}
			return nil
		})
		done <- err
	}()
	<-ctx.Done()
	stopped := time.Now()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after Stop = %v, want context.Canceled", err)
	}
	t.Logf("Run returned %s after Stop", time.Since(stopped).Round(time.Millisecond))
	awaitNoProcessWith(t, "98760", time.Second)
}
