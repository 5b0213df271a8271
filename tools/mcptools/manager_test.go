package mcptools_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"prototyper/internal/testenv"
	"prototyper/tools"
	"prototyper/tools/mcptools"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// serveInProcess serves srv on streamable HTTP until the test ends and returns its url.
func serveInProcess(t *testing.T, srv *mcp.Server) string {
	web := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(web.Close)
	return web.URL
}

// TestTheReferenceServersToolsJoinAsMCPToolsAndRun: the tools of
// @modelcontextprotocol/server-everything are offered as mcp__everything__TOOL with their own
// schemas and the ask policy; echo runs, and a long operation's progress notifications reach
// the call's progress function before its result.
func TestTheReferenceServersToolsJoinAsMCPToolsAndRun(t *testing.T) {
	cmd := testenv.MCPEverything(t)
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"everything": map[string]any{"command": cmd}}))
	defer set.Close()
	list, notices := set.ToolsFor(ctx(t), t.TempDir())
	if len(notices) != 0 {
		t.Fatalf("notices: %v", notices)
	}
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range reg.Definitions() {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "mcp__everything__echo") || !slices.Contains(names, "mcp__everything__trigger-long-running-operation") {
		t.Fatalf("tools = %v", names)
	}
	for _, d := range reg.Definitions() {
		if d.DefaultApproval != tools.ApprovalAsk {
			t.Errorf("%s: default approval %s, want ask", d.Name, d.DefaultApproval)
		}
	}
	if _, err := reg.Validate("mcp__everything__echo", json.RawMessage(`{"message":7}`)); err == nil {
		t.Error("echo accepted a number for its string message: its schema is not applied")
	}
	args, err := reg.Validate("mcp__everything__echo", json.RawMessage(`{"message":"hi there"}`))
	if err != nil {
		t.Fatal(err)
	}
	res := reg.Exec(ctx(t), tools.Call{ID: "c1", Name: "mcp__everything__echo", Args: args}, nil)
	if res.IsError || res.Content != "Echo: hi there" {
		t.Errorf("echo = %+v", res)
	}

	args, err = reg.Validate("mcp__everything__trigger-long-running-operation", json.RawMessage(`{"duration":1,"steps":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var updates []any
	res = reg.Exec(ctx(t), tools.Call{ID: "c2", Name: "mcp__everything__trigger-long-running-operation", Args: args}, func(u any) {
		mu.Lock()
		updates = append(updates, u)
		mu.Unlock()
	})
	mu.Lock()
	defer mu.Unlock()
	// the server sends one per step; the last may arrive after the result
	if res.IsError || len(updates) < 1 {
		t.Errorf("long operation: %+v, %d progress updates", res, len(updates))
	}
}

// TestAServerThatCannotStartIsOneSentenceAndTheOthersStillServe: a missing command and a
// server that never answers each give one sentence within the start timeout; the status
// says which failed.
func TestAServerThatCannotStartIsOneSentenceAndTheOthersStillServe(t *testing.T) {
	// the working server is served in process: it starts at once however loaded the machine,
	// where the Node reference server can take more than the 3 s the others are given
	working := mcp.NewServer(&mcp.Implementation{Name: "working", Version: "1"}, nil)
	working.AddTool(&mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	file := testenv.MCPServersFile(t, map[string]any{
		"working": map[string]any{"url": serveInProcess(t, working)},
		"missing": map[string]any{"command": "prototyper-no-such-mcp-server"},
		"silent":  map[string]any{"command": "sleep", "args": []string{"600"}},
		"off":     map[string]any{"command": "x", "disabled": true},
	})
	set := mcptools.NewSet("", file)
	set.StartTimeout = 3 * time.Second
	defer set.Close()
	ws := t.TempDir()
	start := time.Now()
	list, notices := set.ToolsFor(ctx(t), ws)
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the start took %s", took)
	}
	if len(list) == 0 {
		t.Error("the working server's tools are missing")
	}
	joined := strings.Join(notices, "\n")
	if len(notices) != 2 || !strings.Contains(joined, "prototyper-no-such-mcp-server is not installed") || !strings.Contains(joined, "silent did not answer within 3 s") {
		t.Errorf("notices = %q", notices)
	}
	st, err := set.Status(ws)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]mcptools.State{}
	for _, s := range st {
		states[s.Name] = s.State
	}
	want := map[string]mcptools.State{"working": mcptools.StateRunning, "missing": mcptools.StateFailed, "silent": mcptools.StateFailed, "off": mcptools.StateDisabled}
	for n, s := range want {
		if states[n] != s {
			t.Errorf("%s: %s, want %s", n, states[n], s)
		}
	}
}

// TestAServerWhoseProgramIsMissingOrNoProgramSaysSoInWords: a command naming no file, or a
// file that is no program, is a sentence saying so and what to fix, not the raw fork/exec error.
func TestAServerWhoseProgramIsMissingOrNoProgramSaysSoInWords(t *testing.T) {
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := testenv.MCPServersFile(t, map[string]any{
		"alpha": map[string]any{"command": "/nonexistent/alpha"},
		"notes": map[string]any{"command": text},
	})
	set := mcptools.NewSet("", file)
	set.StartTimeout = 3 * time.Second
	defer set.Close()
	_, notices := set.ToolsFor(ctx(t), t.TempDir())
	joined := strings.Join(notices, "\n")
	for _, want := range []string{
		"the MCP server alpha cannot start: there is no program /nonexistent/alpha — install it, or fix the command in " + file,
		"the MCP server notes cannot start: " + text + " is not a program this computer can run — fix the command in " + file,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("notices = %q; want %q", notices, want)
		}
	}
	if strings.Contains(joined, "fork/exec") {
		t.Errorf("notices = %q; want no raw fork/exec error", notices)
	}
}

func TestServerFilesMergeGlobalWorkspaceAndCommandLine(t *testing.T) {
	global := testenv.MCPServersFile(t, map[string]any{"a": map[string]any{"command": "global-a"}, "b": map[string]any{"command": "global-b"}})
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".prototyper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mcptools.WorkspaceFile(ws), []byte(`{"mcpServers":{"b":{"command":"ws-b"},"c":{"url":"http://127.0.0.1:1/mcp","headers":{"X":"y"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	flag := testenv.MCPServersFile(t, map[string]any{"c": map[string]any{"command": "flag-c"}})
	cfg, err := mcptools.LoadFiles(mcptools.NewSet(global, flag).Files(ws)...)
	if err != nil {
		t.Fatal(err)
	}
	if cfg["a"].Command != "global-a" || cfg["b"].Command != "ws-b" || cfg["c"].Command != "flag-c" {
		t.Errorf("config = %+v", cfg)
	}
	// another app's file may hold other keys, and none of servers: it is read, not refused
	other := filepath.Join(t.TempDir(), "claude.json")
	_ = os.WriteFile(other, []byte(`{"globalShortcut": "Ctrl+Space"}`), 0o600)
	if cfg, err := mcptools.LoadFiles(other); err != nil || len(cfg) != 0 {
		t.Errorf("a file of another app with no servers: %v, %v", cfg, err)
	}
	for bad, says := range map[string]string{
		`{"mcpServers":{"x":{}}}`:                 "needs a command",
		`{"mcpServers":{"a__b":{"command":"c"}}}`: "may hold only",
		`not json`:                               "not valid JSON: something unexpected at line 1, column 2",
		"{\"mcpServers\": {\n  x: {}}}":          "not valid JSON: something unexpected at line 2, column 3",
		`{"mcpServers": {"x": {"command": "c"}}`: "they end too early",
		`[]`:                                     "should be a JSON object, not a list",
		`{"mcpServers":{"x":{"command":"c","timeout":-1}}}`:   "negative timeout",
		`{"mcpServers":{"x":{"command":"c","timeout":"60"}}}`: `"timeout" should be a number, not a text`,
		`{"mcpServers":{"x":{"command":"c","args":"-v"}}}`:    `"args" should be a list, not a text`,
	} {
		p := filepath.Join(t.TempDir(), "bad.json")
		_ = os.WriteFile(p, []byte(bad), 0o600)
		if _, err := mcptools.LoadFiles(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want an error naming the file that says %s", bad, err, says)
		}
	}
}

// TestAServerThatDiesIsOneSentenceAndStartsAgainAtTheNextMessage: a server that exits after
// it started is failed in the status, and a call of one of its tools says so at once; the
// next run (the next message) starts it anew, and its tools serve again.
func TestAServerThatDiesIsOneSentenceAndStartsAgainAtTheNextMessage(t *testing.T) {
	server, kill := testenv.MCPEverythingKillable(t)
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"brief": server}))
	defer set.Close()
	ws := t.TempDir()
	list, notices := set.ToolsFor(ctx(t), ws)
	if len(list) == 0 || len(notices) != 0 {
		t.Fatalf("tools %d, notices %v", len(list), notices)
	}
	kill()
	deadline := time.Now().Add(10 * time.Second)
	var st []mcptools.Status
	for time.Now().Before(deadline) {
		st, _ = set.Status(ws)
		if st[0].State == mcptools.StateFailed {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st[0].State != mcptools.StateFailed || st[0].Error != "the MCP server brief stopped — Prototyper starts it again at the next message" {
		t.Fatalf("status = %+v", st)
	}
	start := time.Now()
	_, err := list[0].Execute(ctx(t), tools.Call{ID: "c", Name: list[0].Definition().Name, Args: tools.Args{}}, nil)
	if err == nil || !strings.Contains(err.Error(), "stopped — not run") || time.Since(start) > time.Second {
		t.Errorf("a call after the server died: %v (after %s)", err, time.Since(start))
	}
	list, notices = set.ToolsFor(ctx(t), ws)
	if len(notices) != 0 || len(list) == 0 {
		t.Fatalf("the next run: tools %d, notices %v; want the server started again", len(list), notices)
	}
	if st, _ := set.Status(ws); st[0].State != mcptools.StateRunning {
		t.Errorf("status after the next run = %+v", st)
	}
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	if res := call(t, reg, "mcp__brief__echo", `{"message":"back"}`, nil); res.IsError || res.Content != "Echo: back" {
		t.Errorf("echo after the start again = %+v", res)
	}
}

// TestAStreamableHTTPServerWithHeaders: the reference server on streamable HTTP, reached by
// url behind a gate that refuses a request without the token; each request carries the
// configured headers, ${NAME} taken from the environment.
func TestAStreamableHTTPServerWithHeaders(t *testing.T) {
	endpoint, _ := testenv.MCPEverythingHTTP(t, map[string]string{"Authorization": "Bearer tool-token"})
	t.Setenv("PROTOTYPER_TEST_TOOL_TOKEN", "tool-token")
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"remote": map[string]any{
		"url": endpoint, "headers": map[string]string{"Authorization": "Bearer ${PROTOTYPER_TEST_TOOL_TOKEN}"}}}))
	defer set.Close()
	reg := registryOf(t, set)
	if res := call(t, reg, "mcp__remote__echo", `{"message":"over http"}`, nil); res.IsError || res.Content != "Echo: over http" {
		t.Errorf("echo = %+v", res)
	}
}

// registryOf is the registry of the tools of set's servers for a new workspace; every server
// must start.
func registryOf(t *testing.T, set *mcptools.Set) *tools.Registry {
	t.Helper()
	list, notices := set.ToolsFor(ctx(t), t.TempDir())
	if len(notices) != 0 || len(list) == 0 {
		t.Fatalf("tools %d, notices %v", len(list), notices)
	}
	reg, err := tools.NewRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// call validates args and runs the tool name of reg with the test's context.
func call(t *testing.T, reg *tools.Registry, name, args string, progress tools.ProgressFunc) tools.Result {
	t.Helper()
	return execWith(ctx(t), t, reg, name, args, progress)
}

func execWith(c context.Context, t *testing.T, reg *tools.Registry, name, args string, progress tools.ProgressFunc) tools.Result {
	t.Helper()
	valid, err := reg.Validate(name, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return reg.Exec(c, tools.Call{ID: "c1", Name: name, Args: valid}, progress)
}

// longOperation is the reference server's tool that takes duration seconds and sends a
// progress notification after each of its steps.
const longOperation = "mcp__everything__trigger-long-running-operation"

// longRunning is a long operation that says how it goes every second for ten minutes.
const longRunning = `{"duration":600,"steps":600}`

// onceRunning is a progress function that calls do once, at the first progress: the server
// runs the call then, however long a loaded machine took to send it.
func onceRunning(do func()) tools.ProgressFunc {
	var once sync.Once
	return func(any) { once.Do(do) }
}

// TestACallTheServerNeverAnswersEndsAtItsTimeoutWithOneSentence: a server's "timeout" bounds
// its silence: a call that hears nothing for it ends with one sentence saying what to do,
// and a longer call that keeps sending progress is never cut by it.
func TestACallTheServerNeverAnswersEndsAtItsTimeoutWithOneSentence(t *testing.T) {
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"everything": map[string]any{"command": testenv.MCPEverything(t), "timeout": 1}}))
	defer set.Close()
	reg := registryOf(t, set)
	start := time.Now()
	res := call(t, reg, longOperation, `{"duration":600,"steps":1}`, nil)
	took := time.Since(start)
	if !res.IsError || !strings.Contains(res.Content, "the MCP server everything said nothing about this call for 1 s") ||
		!strings.Contains(res.Content, `raise its "timeout"`) || strings.Contains(res.Content, "\n") {
		t.Errorf("a call the server never answers: %+v", res)
	}
	if took < time.Second || took > 5*time.Second {
		t.Errorf("it ended after %s, want its timeout of 1s", took)
	}
	// each step well within the timeout (a Node timer on a loaded machine can fire late), the
	// whole call more than twice as long
	res = call(t, reg, longOperation, `{"duration":2.4,"steps":8}`, nil)
	if res.IsError || !strings.Contains(res.Content, "Long running operation completed") {
		t.Errorf("a call that says how it goes every 0.3s, with a timeout of 1s: %+v", res)
	}
}

// TestAStoppedCallEndsAtOnceWithOneSentence: when the run stops, a call the server is still
// busy with ends within a second, saying so; the server keeps serving.
func TestAStoppedCallEndsAtOnceWithOneSentence(t *testing.T) {
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"everything": map[string]any{"command": testenv.MCPEverything(t)}}))
	defer set.Close()
	reg := registryOf(t, set)
	c, stop := context.WithCancel(ctx(t))
	defer stop()
	res := execWith(c, t, reg, longOperation, longRunning, onceRunning(stop))
	if !res.IsError || !strings.HasPrefix(res.Content, "stopped: the run was stopped while the MCP server everything ran this call") {
		t.Errorf("a stopped call: %+v", res)
	}
	if c.Err() == nil {
		t.Error("the call ended before the stop")
	}
	if res := call(t, reg, "mcp__everything__echo", `{"message":"still here"}`, nil); res.IsError {
		t.Errorf("after the stop, echo = %+v", res)
	}
}

// TestACallTheServerRefusesEndsAtOnceWithItsReason: a call the server answers with a
// JSON-RPC error (an unknown tool, arguments it refuses) ends as soon as the answer comes,
// with the server's reason: the server runs, there is no end of it to wait for (waiting for
// one takes a second). The reference server answers every failed call with a result marked
// as an error, so a server of the Go SDK that refuses stands in for one that does not.
func TestACallTheServerRefusesEndsAtOnceWithItsReason(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "strict", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "lookup needs a key"}
		})
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"strict": map[string]any{"url": serveInProcess(t, srv)}}))
	defer set.Close()
	reg := registryOf(t, set)
	start := time.Now()
	res := call(t, reg, "mcp__strict__lookup", `{}`, nil)
	if !res.IsError || res.Content != "the MCP server strict refused the call: lookup needs a key" {
		t.Errorf("a call the server refuses: %+v", res)
	}
	if took := time.Since(start); took >= time.Second {
		t.Errorf("the refused call ended after %s: it waited for the end of a server that runs", took)
	}
	if res := call(t, reg, "mcp__strict__lookup", `{}`, nil); res.Content != "the MCP server strict refused the call: lookup needs a key" {
		t.Errorf("the server still serves: %+v", res)
	}
}

// TestAServerThatDiesDuringACallIsOneSentence: a server killed while it runs a call, on
// stdio or on streamable HTTP, ends the call with one sentence within a few seconds (an HTTP
// server is tried again twice first).
func TestAServerThatDiesDuringACallIsOneSentence(t *testing.T) {
	for _, transport := range []string{"stdio", "streamable HTTP"} {
		t.Run(transport, func(t *testing.T) {
			server, kill := dyingServer(t, transport)
			set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{"everything": server}))
			defer set.Close()
			reg := registryOf(t, set)
			start := time.Now()
			res := call(t, reg, longOperation, longRunning, onceRunning(kill))
			if !res.IsError || res.Content != "the MCP server everything stopped during this call, which did not complete — Prototyper starts it again at the next message" {
				t.Errorf("a call whose server died: %+v", res)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the call ended %s after it started, its server killed after its first second", took)
			}
		})
	}
}

// dyingServer is the configuration of the reference server on transport, and a function that
// kills it once it runs.
func dyingServer(t *testing.T, transport string) (server map[string]any, kill func()) {
	if transport == "stdio" {
		return testenv.MCPEverythingKillable(t)
	}
	endpoint, kill := testenv.MCPEverythingHTTP(t, nil)
	return map[string]any{"url": endpoint}, kill
}
