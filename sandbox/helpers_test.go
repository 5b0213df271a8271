package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/internal/testenv"
	"prototyper/internal/tether"
)

// TestMain lets the test binary stand in for the app in the crash tests (see helperMain) and
// serve as a server's dialer.
func TestMain(m *testing.M) {
	tether.Supervise() // an unconfined command runs under this binary as its supervisor
	DialerMain()
	if os.Getenv(helperEnv) != "" {
		helperMain()
		return
	}
	os.Exit(m.Run())
}

// needSandbox fails (under make test) or skips when bubblewrap is missing.
func needSandbox(tb testing.TB) {
	tb.Helper()
	testenv.LookPath(tb, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
}

// recorded is what a run printed, as the callback saw it.
type recorded struct {
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func (r *recorded) fn(c Chunk) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Stream == Stdout {
		r.stdout.Write(c.Data)
	} else {
		r.stderr.Write(c.Data)
	}
	return nil
}

func (r *recorded) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdout.String() + r.stderr.String()
}

// run runs command in ws and fails the test when the sandbox cannot run it.
func run(tb testing.TB, ws, command string, opts Options) (*Result, *recorded) {
	tb.Helper()
	needSandbox(tb)
	opts.Workspace = ws
	rec := &recorded{}
	res, err := Run(context.Background(), command, opts, rec.fn)
	if err != nil {
		tb.Fatalf("Run(%q): %v", command, err)
	}
	tb.Cleanup(func() { res.Changes.Close() })
	return res, rec
}

// writeTree makes files (path → content; a content ending in "/" is a folder) under dir.
func writeTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// snapshot describes a tree: each path's type, mode, and bytes or link target.
func snapshot(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			out[rel] = "link " + t
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			content := string(b)
			if len(b) > 64 { // a digest keeps a failure's message readable
				content = fmt.Sprintf("%d bytes, sha256 %x", len(b), sha256.Sum256(b))
			}
			out[rel] = "file " + fi.Mode().Perm().String() + " " + content
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// processesWith lists the pids of processes whose command line contains marker.
func processesWith(marker string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// awaitNoProcessWith fails unless every process with marker is gone within limit.
func awaitNoProcessWith(tb testing.TB, marker string, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			out, _ := exec.Command("ps", "-o", "pid,ppid,stat,cmd", "-p", strings.Join(left, ",")).CombinedOutput()
			tb.Fatalf("processes of the command still run %v after it ended:\n%s", limit, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
