package agentloop

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// newServerBench is an undo bench whose toolbox has start_server and stop_server with servers
// of its own, allowed without asking.
func newServerBench(t *testing.T) (*undoBench, *tools.Servers) {
	t.Helper()
	needSandbox(t)
	ss := tools.NewServers()
	t.Cleanup(ss.Close)
	b := newUndoBench(t, func(c *Config) {
		c.Files = tools.WorkspaceOptions{Commands: true, Servers: ss} // as Wire: the same options
		c.Tools = WorkspaceTools(c.Files)
	})
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error {
		s.ToolApproval = map[string]string{tools.StartServer: ApproveAuto}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b, ss
}

// A run's start_server call ends with the server listening; the run ends, the server goes on
// and serves; the next run's stop_server ends it. Neither changes the workspace nor checkpoints.
func TestAServerStartedByARunOutlivesItUntilStopServer(t *testing.T) {
	b, ss := newServerBench(t)
	b.write("index.html", "<p>page</p>", 0o644)
	b.run(tc("s1", tools.StartServer, `{"command":"python3 -m http.server 8732 --bind 127.0.0.1"}`))

	evs := b.rec.events()
	var res events.Event
	for _, e := range ofType(evs, events.ToolResult) {
		if e.ToolCallID == "s1" {
			res = e
		}
	}
	raw, _ := json.Marshal(res.Details)
	var d struct {
		Server tools.ServerInfo `json:"server"`
	}
	json.Unmarshal(raw, &d)
	if res.OK == nil || !*res.OK || d.Server.Port != 8732 || d.Server.ID != "s1" {
		t.Fatalf("start_server's result: %+v (details %s)", res, raw)
	}
	if cps := ofType(evs, events.Checkpoint); len(cps) != 0 {
		t.Errorf("a server's start checkpointed %+v", cps)
	}
	if len(ofType(evs, events.RunFinished)) != 1 {
		t.Fatalf("the run did not end while its server runs")
	}

	addr, err := ss.Forward("s1")
	if err != nil {
		t.Fatalf("the server after its run: %v", err)
	}
	resp, err := http.Get("http://" + addr + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "<p>page</p>" {
		t.Fatalf("the server served %q", body)
	}

	b.run(tc("s2", tools.StopServer, `{}`))
	if got := ss.List(""); len(got) != 0 {
		t.Fatalf("servers after stop_server: %+v", got)
	}
	b.want("index.html", "<p>page</p>", 0o644)
}

// startServersInTwoChats has one run of a chat start a server and one run of another chat
// start another in the same workspace; it returns the chats' ids.
func startServersInTwoChats(t *testing.T, b *undoBench, ss *tools.Servers) (chatA, chatB string) {
	t.Helper()
	chatA = b.run(tc("a1", tools.StartServer, `{"command":"python3 -m http.server 8734 --bind 127.0.0.1"}`)).ChatID
	b.chat = ""
	chatB = b.run(tc("b1", tools.StartServer, `{"command":"python3 -m http.server 8735 --bind 127.0.0.1"}`)).ChatID
	if chatA == chatB {
		t.Fatal("both runs were of one chat")
	}
	if got := ss.List(""); len(got) != 2 {
		t.Fatalf("servers after both runs: %+v", got)
	}
	return chatA, chatB
}

// wantServers fails unless exactly the servers ids run, and each one serves.
func wantServers(t *testing.T, ss *tools.Servers, ids ...string) {
	t.Helper()
	var got []string
	for _, s := range ss.List("") {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("servers running: %v, want %v", got, ids)
	}
	for _, id := range ids {
		addr, err := ss.Forward(id)
		if err != nil {
			t.Fatalf("server %s: %v", id, err)
		}
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("server %s does not serve: %v", id, err)
		}
		resp.Body.Close()
	}
}

// The chat's Stop, after its run ended, ends the server that run started, and only that one:
// another chat's server in the same workspace serves on.
func TestAChatsStopEndsTheServersItsRunsStartedOnly(t *testing.T) {
	b, ss := newServerBench(t)
	chatA, chatB := startServersInTwoChats(t, b, ss)

	start := time.Now()
	if err := b.a.Stop(chatA); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop took %s", time.Since(start))
	wantServers(t, ss, "b1")
	if _, err := ss.Forward("a1"); !errors.Is(err, tools.ErrNoServer) {
		t.Fatalf("the stopped chat's server: %v", err)
	}

	if err := b.a.Stop(chatB); err != nil {
		t.Fatal(err)
	}
	wantServers(t, ss)
}

// Deleting a chat ends the servers its runs started; another chat's server serves on.
func TestDeletingAChatEndsTheServersItsRunsStarted(t *testing.T) {
	b, ss := newServerBench(t)
	chatA, _ := startServersInTwoChats(t, b, ss)

	if err := b.a.DeleteChat(t.Context(), chatA); err != nil {
		t.Fatal(err)
	}
	wantServers(t, ss, "b1")
}

func TestAServerOnTheDenyListIsRefusedLikeACommand(t *testing.T) {
	b, ss := newServerBench(t)
	b.run(tc("s1", tools.StartServer, `{"command":"sudo python3 -m http.server 8733"}`))
	var res events.Event
	for _, e := range ofType(b.rec.events(), events.ToolResult) {
		if e.ToolCallID == "s1" {
			res = e
		}
	}
	if res.OK == nil || *res.OK || !strings.Contains(res.Output, `"sudo"`) || !strings.Contains(res.Output, "commandDeny") {
		t.Fatalf("result %+v, want a refusal naming the pattern and where to change it", res)
	}
	if got := ss.List(""); len(got) != 0 {
		t.Fatalf("a refused server runs: %+v", got)
	}
}
