package agentloop

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

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
	b := newUndoBench(t, func(c *Config) { c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true, Servers: ss}) })
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
