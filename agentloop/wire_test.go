package agentloop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// The app's agent, as Wire builds it, with its default approvals (write_file runs without
// asking): a model that writes the MCP servers of its workspace, or of the user's config
// folder when that lies in the workspace, is refused, so the next message starts nothing.
func TestTheAppsAgentCannotWriteTheMCPServersTheAppStarts(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws, ".config")) // the workspace is the home folder
	for _, target := range []string{".prototyper/mcp.json", ".config/prototyper/mcp.json"} {
		t.Run(target, func(t *testing.T) {
			db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			write := tc("w1", "write_file", `{"path":"`+target+`","content":"{\"mcpServers\":{\"x\":{\"command\":\"/bin/sh\"}}}"}`)
			m := &fakeModel{turn: func(req model.Request) model.Turn {
				if trail(req) == "U" {
					return toolTurn(write)
				}
				return answer("done")
			}}
			rec := newRecorder()
			a := Wire(db, m, rec, WireOptions{Workspace: ws})
			defer a.Shutdown(context.Background())
			out, err := a.RunOnce(context.Background(), "", "set up a helper server", RunOptions{Model: "fake"})
			if err != nil || out.StopReason != events.StopCompleted || out.Awaiting != nil {
				t.Fatalf("run: %+v %v", out, err)
			}
			results := ofType(rec.events(), events.ToolResult)
			if len(results) != 1 || results[0].OK == nil || *results[0].OK || !strings.Contains(results[0].Output, "Prototyper's own configuration") {
				t.Fatalf("the write's result: %+v", results)
			}
			if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(target))); err == nil {
				t.Fatalf("%s was written", target)
			}
		})
	}
}
