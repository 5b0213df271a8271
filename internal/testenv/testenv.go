// Package testenv decides what a test does when a real component it needs (the Ollama server,
// Xvfb, the desktop binary) is missing: under `make test`, which sets
// PROTOTYPER_REQUIRE_COMPONENTS=1, it fails loudly; under a bare `go test ./...` it skips and
// says how to get the component.
package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Required reports whether missing components are failures (set by `make test`).
func Required() bool { return os.Getenv("PROTOTYPER_REQUIRE_COMPONENTS") == "1" }

// Missing fails or skips tb, saying what is missing and how to install it.
func Missing(tb testing.TB, component, howToInstall string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s is missing (required under `make test`): %s", component, howToInstall)
	}
	tb.Skipf("%s is missing: %s (or run `make test`, which installs it)", component, howToInstall)
}

// LookPath finds a program: the environment variable envVar first (a path), then PATH. When it
// is nowhere, Missing is called.
func LookPath(tb testing.TB, envVar, name, howToInstall string) string {
	tb.Helper()
	if envVar != "" {
		if p := os.Getenv(envVar); p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, name, howToInstall)
	}
	return p
}

// SessionBus starts a private D-Bus session bus for the test and returns its address; it stops
// with the test. Missing dbus-daemon is [Missing]. The services it starts on demand (the
// accessibility bus of at-spi-bus-launcher, its registry) run with env and a runtime folder of
// the test's own: they would otherwise meet every other test's at ~/.cache/at-spi/bus.
func SessionBus(tb testing.TB, env ...string) string {
	tb.Helper()
	daemon := LookPath(tb, "", "dbus-daemon", "install Debian's dbus-daemon (`make test` does)")
	runtimeDir, err := os.MkdirTemp("", "bus-runtime-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(runtimeDir) })
	cmd := exec.Command(daemon, "--session", "--nofork", "--print-address=1")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start dbus-daemon: %v", err)
	}
	tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		tb.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}
