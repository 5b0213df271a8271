package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverPort is the port the test servers listen on inside their namespace; it doubles as a
// marker of their processes.
const serverPort = 38761

// httpServer is a command serving its folder on serverPort of its namespace's loopback.
var httpServer = fmt.Sprintf("exec python3 -m http.server %d --bind 127.0.0.1", serverPort)

// startServer starts command in ws and stops it when the test ends.
func startServer(tb testing.TB, ws, command string) (*Server, *recorded) {
	tb.Helper()
	needSandbox(tb)
	if _, err := exec.LookPath("python3"); err != nil {
		tb.Skip("python3 serves the test pages")
	}
	rec := &recorded{}
	s, err := Start(context.Background(), command, Options{Workspace: ws}, rec.fn)
	if err != nil {
		tb.Fatalf("Start(%q): %v", command, err)
	}
	tb.Cleanup(s.Stop)
	return s, rec
}

// awaitPort waits until the server listens on port; it fails if the server ends first.
func awaitPort(tb testing.TB, s *Server, rec *recorded, port int) {
	tb.Helper()
	for {
		for _, p := range s.Ports() {
			if p == port {
				return
			}
		}
		select {
		case <-s.Done():
			tb.Fatalf("the server ended before listening on %d:\n%s", port, rec)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func get(tb testing.TB, url string) string {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestAServerInTheSandboxIsReachedThroughItsForward(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"index.html": "<h1>served from the sandbox</h1>"})
	s, rec := startServer(t, ws, httpServer)
	awaitPort(t, s, rec, serverPort)
	if got := s.Ports(); len(got) != 1 || got[0] != serverPort {
		t.Fatalf("Ports() = %v, want [%d]", got, serverPort)
	}
	addr, err := s.Forward(serverPort)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Forward(serverPort); again != addr {
		t.Fatalf("a second Forward of the same port gave %s, the first %s", again, addr)
	}
	for range 3 { // each request is a connection of its own through the dialer
		if body := get(t, "http://"+addr+"/index.html"); body != "<h1>served from the sandbox</h1>" {
			t.Fatalf("the page through the forward: %q", body)
		}
	}
	// The host's own listener on the same port is not the server's: nothing in the host's
	// network answers for it, and the host does not see the server's port.
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", serverPort)); err == nil {
		c.Close()
		t.Fatalf("the server's port is open on the host's loopback")
	}
}

func TestAServerHasNoNetworkButItsOwnLoopback(t *testing.T) {
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	hostPort := host.Addr().(*net.TCPAddr).Port
	ws := t.TempDir()
	probe := fmt.Sprintf(`python3 -c 'import socket
for a in [("127.0.0.1", %d), ("1.1.1.1", 53)]:
    try:
        socket.create_connection(a, timeout=2); print("reached", a)
    except OSError as e:
        print("unreachable", a)
'; `, hostPort)
	s, rec := startServer(t, ws, probe+httpServer)
	awaitPort(t, s, rec, serverPort)
	out := rec.String()
	if strings.Contains(out, "reached") || strings.Count(out, "unreachable") != 2 {
		t.Fatalf("the server's network reached beyond its loopback:\n%s", out)
	}
	// The dialer connects in the server's namespace: the host's port is not there.
	if _, err := s.Dial(context.Background(), hostPort); !errors.Is(err, errDialRefused) {
		t.Fatalf("Dial of a port only the host listens on: %v, want %v", err, errDialRefused)
	}
}

func TestStoppingAServerEndsItAndDropsWhatItWrote(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"index.html": "page"})
	before := snapshot(t, ws)
	s, rec := startServer(t, ws, "echo cache > build-cache.txt; "+httpServer)
	awaitPort(t, s, rec, serverPort)
	addr, err := s.Forward(serverPort)
	if err != nil {
		t.Fatal(err)
	}
	if body := get(t, "http://"+addr+"/build-cache.txt"); body != "cache\n" {
		t.Fatalf("the server does not see what it wrote: %q", body)
	}
	s.Stop()
	res, err := s.Wait()
	if err != nil || res.ExitCode != -1 {
		t.Fatalf("Wait after Stop: %+v, %v", res, err)
	}
	awaitNoProcessWith(t, fmt.Sprint(serverPort), 2*time.Second)
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("the forward still accepts connections after Stop")
	}
	if _, err := s.Forward(serverPort); !errors.Is(err, ErrServerEnded) {
		t.Fatalf("Forward after Stop: %v", err)
	}
	if after := snapshot(t, ws); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the workspace changed: before %v, after %v", before, after)
	}
}

func TestAServerThatExitsSaysHowAndWhatItWroteIsCounted(t *testing.T) {
	ws := t.TempDir()
	s, _ := startServer(t, ws, "echo starting; echo x > a.txt; echo y > b.txt; exit 3")
	res, err := s.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Changed != 2 || !strings.Contains(res.Output.Text(), "starting") {
		t.Fatalf("Wait: exit %d, changed %d, output %q", res.ExitCode, res.Changed, res.Output.Text())
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("the server's write reached the workspace: %v", err)
	}
}

// serverHelperMain is the app for the crash test of servers: it starts a server, reaches it
// once through its forward (so that the dialer runs too) and waits to be killed.
func serverHelperMain(ws string) {
	s, err := Start(context.Background(), httpServer, Options{Workspace: ws}, nil)
	if err != nil {
		fmt.Println("ended:", err)
		return
	}
	for !containsPort(s.Ports(), serverPort) {
		time.Sleep(10 * time.Millisecond)
	}
	addr, err := s.Forward(serverPort)
	if err != nil {
		fmt.Println("ended:", err)
		return
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		fmt.Println("ended:", err)
		return
	}
	resp.Body.Close()
	fmt.Println("started " + addr)
	select {}
}

func containsPort(ports []int, port int) bool {
	for _, p := range ports {
		if p == port {
			return true
		}
	}
	return false
}

// dialers lists the pids of the servers' dialers that run.
func dialers() []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, []byte(dialerEnv+"=1")) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestKillingTheAppEndsItsServerAndTheServersDialer(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	app, lines := startHelperApp(t, "server", ws)
	var addr string
	for lines.Scan() {
		if a, ok := strings.CutPrefix(lines.Text(), "started "); ok {
			addr = a
			break
		}
		if strings.HasPrefix(lines.Text(), "ended:") {
			t.Fatalf("the app could not start its server: %s", lines.Text())
		}
	}
	if addr == "" || len(processesWith(fmt.Sprint(serverPort))) == 0 || len(dialers()) == 0 {
		t.Fatalf("the server (%q) or its dialer (%v) does not run", addr, dialers())
	}
	app.Process.Kill() // kill -9
	app.Wait()
	awaitNoProcessWith(t, fmt.Sprint(serverPort), 2*time.Second)
	deadline := time.Now().Add(2 * time.Second)
	for len(dialers()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the dialer outlived the app: %v", dialers())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
