package tools

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"prototyper/internal/testenv"
)

func serverWorkspace(t *testing.T) (*testWorkspace, *Servers) {
	t.Helper()
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	testenv.LookPath(t, "", "python3", "python3 serves the test pages")
	ss := NewServers()
	t.Cleanup(ss.Close)
	return newTestWorkspaceWith(t, WorkspaceOptions{Commands: true, Servers: ss}), ss
}

func TestAStartedServerRunsOnAfterItsCallAndServesThroughItsForward(t *testing.T) {
	tw, ss := serverWorkspace(t)
	tw.write(t, "index.html", "<p>dev server page</p>")
	var mu sync.Mutex
	var during []string
	res, err := tw.exec(t, t.Context(), StartServer, map[string]any{"command": "echo booting; exec python3 -u -m http.server 8000 --bind 127.0.0.1"},
		func(u any) { mu.Lock(); during = append(during, u.(Output).Text); mu.Unlock() })
	if err != nil || res.IsError {
		t.Fatalf("start_server: %v %s", err, res.Content)
	}
	if res.Details == nil || res.Details.Server == nil || res.Details.Server.Port != 8000 {
		t.Fatalf("details.server: %+v", res.Details)
	}
	mu.Lock()
	if !strings.Contains(strings.Join(during, ""), "booting") {
		t.Errorf("the output before the result did not reach the call: %q", during)
	}
	mu.Unlock()
	if got := ss.List(""); len(got) != 1 || got[0].ID != "t" || got[0].Port != 8000 {
		t.Fatalf("List after the call: %+v", got)
	}
	addr, err := ss.Forward("t")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "<p>dev server page</p>" {
		t.Fatalf("through the forward: %q", body)
	}

	stop, err := tw.exec(t, t.Context(), StopServer, map[string]any{}, nil)
	if err != nil || !strings.Contains(stop.Content, "Stopped the server") || !strings.Contains(stop.Content, "GET /index.html") {
		t.Fatalf("stop_server: %v %q", err, stop.Content)
	}
	if got := ss.List(""); len(got) != 0 {
		t.Fatalf("servers after stop_server: %+v", got)
	}
	if _, err := ss.Forward("t"); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Forward after stop_server: %v", err)
	}
}

// wantNoServer fails t when a server of any chat is still kept.
func wantNoServer(t *testing.T, ss *Servers) {
	t.Helper()
	if got := ss.List(""); len(got) != 0 {
		t.Fatalf("servers: %+v", got)
	}
}

func TestAServerThatNeverListensIsAnErrorWithItsOutput(t *testing.T) {
	tw, ss := serverWorkspace(t)
	res, err := tw.exec(t, t.Context(), StartServer, map[string]any{"command": "echo no such script >&2; exit 2"}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "ended before it listened") ||
		!strings.Contains(res.Content, "status 2") || !strings.Contains(res.Content, "no such script") {
		t.Fatalf("start_server of a command that exits: %v %+v", err, res)
	}
	wantNoServer(t, ss)
}

func TestStoppingTheCallBeforeTheServerListensStopsTheServer(t *testing.T) {
	tw, ss := serverWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	var once sync.Once
	go func() { <-started; cancel() }()
	_, err := tw.exec(t, ctx, StartServer, map[string]any{"command": "echo waiting; exec sleep 1000"},
		func(any) { once.Do(func() { close(started) }) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("start_server stopped: %v", err)
	}
	wantNoServer(t, ss)
}

// A call stopped once the server listens, before the call returned (the chat's Stop looking
// for the chat's servers before this one was kept), still stops the server.
func TestStoppingTheCallAsTheServerStartsListeningStopsTheServer(t *testing.T) {
	tw, ss := serverWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Told once the server listens and is kept, before the call returns. The server's own
	// "Serving HTTP" may reach the test after the call returned: the call watches the ports.
	ss.OnStart = func(ServerInfo) { cancel() }
	_, err := tw.exec(t, ctx, StartServer, map[string]any{"command": "exec python3 -u -m http.server 8001 --bind 127.0.0.1"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("start_server stopped: %v", err)
	}
	wantNoServer(t, ss)
}

// StopChat ends the servers started by calls of that chat and no other.
func TestStopChatEndsTheServersOfThatChatOnly(t *testing.T) {
	tw, ss := serverWorkspace(t)
	for _, c := range []struct{ id, chat, port string }{{"a", "chat-a", "8002"}, {"b", "chat-b", "8003"}} {
		res, err := tw.w.startServer(t.Context(), Call{ID: c.id, Name: StartServer, Chat: c.chat,
			Args: Args{"command": "exec python3 -m http.server " + c.port + " --bind 127.0.0.1"}}, func(any) {})
		if err != nil || res.IsError {
			t.Fatalf("start_server %s: %v %s", c.id, err, res.Content)
		}
	}
	ss.StopChat("chat-a")
	if got := ss.List(""); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("servers after chat-a's stop: %+v", got)
	}
}
