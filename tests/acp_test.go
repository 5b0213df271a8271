package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/store"
)

// acpWriterModel thinks, writes hello.txt, then answers in pieces: what an editor's prompt
// drives through `prototyper acp`.
var acpWriterModel = ollamatest.Model{Name: "acp-writer", Scripts: ollamatest.Scripts{
	"SU": slices.Concat(
		ollamatest.Think("The user wants a file.", " I should write hello.txt."),
		ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello from the editor\n"}),
	),
	"SUAT": slices.Concat(ollamatest.Think("Done."), []string{"Finished ", "with ", "`hello.txt`."}),
}}

// acpClient is the editor: the SDK's client side, recording every update it receives and
// answering permission requests with answer.
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	answer  func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	seen    chan struct{} // a nudge per update, and per permission request
	// hold keeps a permission request unanswered until the agent withdraws it
	hold bool
}

func (c *acpClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.seen <- struct{}{}:
	default:
	}
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer, hold := c.answer, c.hold
	c.mu.Unlock()
	select {
	case c.seen <- struct{}{}:
	default:
	}
	if hold {
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return answer(p), nil
}

func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}

// of returns the updates of one session received so far.
func (c *acpClient) of(id sdk.SessionId) []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range c.updates {
		if n.SessionId == id {
			out = append(out, n.Update)
		}
	}
	return out
}

// acpAgent is a running `prototyper acp` and the editor connected to it.
type acpAgent struct {
	conn   *sdk.ClientSideConnection
	client *acpClient
	end    func() // closes the editor's side and waits for the process to end
	cmd    *exec.Cmd
	init   sdk.InitializeResponse
}

// startACP starts `prototyper acp` on db against the shared server, initialized as an editor
// would; it ends when the test does, if not before.
func startACP(t *testing.T, db string, extra ...string) *acpAgent {
	t.Helper()
	client := &acpClient{seen: make(chan struct{}, 1)}
	a := startACPWith(t, db, client, sdk.ClientCapabilities{}, extra...)
	a.client = client
	return a
}

// startACPWith is startACP with the editor client, which offers caps.
func startACPWith(t *testing.T, db string, client sdk.Client, caps sdk.ClientCapabilities, extra ...string) *acpAgent {
	t.Helper()
	args := append([]string{"acp", "--ollama", ollamatest.Get(t).URL(), "--db", db}, extra...)
	cmd := exec.Command(desktopBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	end := func() {
		once.Do(func() {
			_ = in.Close() // the editor closes the agent's stdin: it ends
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("prototyper acp ended with %v; stderr:\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Errorf("prototyper acp did not end when its stdin closed; stderr:\n%s", stderr.String())
			}
			if stderr.Len() > 0 {
				t.Logf("prototyper acp said on stderr:\n%s", stderr.String())
			}
		})
	}
	t.Cleanup(end)
	conn := sdk.NewClientSideConnection(client, in, out)
	init, err := conn.Initialize(acpCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: caps})
	if err != nil {
		t.Fatalf("initialize: %v; stderr:\n%s", err, stderr.String())
	}
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("initialize announces %+v, want loadSession, images and embedded context", init.AgentCapabilities)
	}
	return &acpAgent{conn: conn, end: end, cmd: cmd, init: init}
}

// acpCtx bounds one request of a test.
func acpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newACPSession opens a session in ws with the model and the mode given.
func newACPSession(t *testing.T, conn *sdk.ClientSideConnection, ws, mode string) sdk.SessionId {
	t.Helper()
	s, err := conn.NewSession(acpCtx(t), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "settings" || len(s.Modes.AvailableModes) < 4 {
		t.Errorf("session/new modes = %+v, want settings among ask, auto and deny", s.Modes)
	}
	if mode != "" {
		if _, err := conn.SetSessionMode(acpCtx(t), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: sdk.SessionModeId(mode)}); err != nil {
			t.Fatalf("session/set_mode %s: %v", mode, err)
		}
	}
	return s.SessionId
}

// prompt sends text (and more blocks) to the session and returns how the prompt ended.
func prompt(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId, blocks ...sdk.ContentBlock) sdk.PromptResponse {
	t.Helper()
	resp, err := conn.Prompt(acpCtx(t), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	return resp
}

// promptEnd is how a prompt sent with promptAsync answered, and when.
type promptEnd struct {
	resp sdk.PromptResponse
	err  error
	at   time.Time
}

// promptAsync sends text as a prompt without waiting for its answer, which arrives on the channel.
func (a *acpAgent) promptAsync(id sdk.SessionId, text string) <-chan promptEnd {
	ended := make(chan promptEnd, 1)
	go func() {
		resp, err := a.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		ended <- promptEnd{resp, err, time.Now()}
	}()
	return ended
}

// waitWhilePrompting waits, as the editor receives updates, until ready holds; it fails the
// test if the prompt ends first or nothing comes within two minutes. what names what ready
// waits for.
func (a *acpAgent) waitWhilePrompting(t *testing.T, ended <-chan promptEnd, what string, ready func() bool) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for !ready() {
		select {
		case <-a.client.seen:
		case r := <-ended:
			t.Fatalf("the prompt ended before any %s: %+v %v", what, r.resp, r.err)
		case <-deadline:
			t.Fatalf("no %s within two minutes", what)
		}
	}
}

// cancelPrompt sends session/cancel for the prompt that ends on ended, requires it to answer
// cancelled and returns how long after the cancel it answered.
func (a *acpAgent) cancelPrompt(t *testing.T, id sdk.SessionId, ended <-chan promptEnd) time.Duration {
	t.Helper()
	cancelledAt := time.Now()
	if err := a.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	r := <-ended
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("the cancelled prompt answered %+v, %v; want stop reason cancelled", r.resp, r.err)
	}
	return r.at.Sub(cancelledAt)
}

// askedCount is how many permission requests the editor has received.
func (c *acpClient) askedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

// chunks is the text of the updates of one kind: the agent's answer or its thinking, or
// the user's message.
func chunks(ups []sdk.SessionUpdate, kind string) string {
	var b strings.Builder
	for _, u := range ups {
		switch {
		case kind == "answer" && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case kind == "thinking" && u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		case kind == "user" && u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			b.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// callStatuses are the statuses a tool call went through, in the order the updates said them,
// and its last content.
func callStatuses(ups []sdk.SessionUpdate) (id sdk.ToolCallId, statuses []sdk.ToolCallStatus, content []sdk.ToolCallContent) {
	for _, u := range ups {
		switch {
		case u.ToolCall != nil:
			id = u.ToolCall.ToolCallId
			statuses = append(statuses, u.ToolCall.Status)
			if u.ToolCall.Content != nil {
				content = u.ToolCall.Content
			}
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == id:
			if u.ToolCallUpdate.Status != nil {
				statuses = append(statuses, *u.ToolCallUpdate.Status)
			}
			if u.ToolCallUpdate.Content != nil {
				content = u.ToolCallUpdate.Content
			}
		}
	}
	return id, statuses, content
}

// diffOf is the new text of the diff contents.
func diffOf(content []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range content {
		if c.Diff != nil {
			b.WriteString(c.Diff.NewText)
		}
	}
	return b.String()
}

// TestACPStreamsAnAnswerShowsItsToolCallRunningBeforeCompletedAndLoadsTheChatAgain: an
// editor's prompt (text and a file of the workspace as a resource link) streams the model's
// thinking and answer, shows write_file pending, then in progress, then completed with its
// diff; the session is a chat of the store, and loaded again by another process it replays
// the same history.
func TestACPStreamsAnAnswerShowsItsToolCallRunningBeforeCompletedAndLoadsTheChatAgain(t *testing.T) {
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	writeFile(t, filepath.Join(ws, "notes.txt"), "the notes\n", 0o644)
	a := startACP(t, db, "--model", acpWriterModel.Name)
	conn, client := a.conn, a.client
	id := newACPSession(t, conn, ws, "")
	resp := prompt(t, conn, id, sdk.TextBlock("Write hello.txt, see"), sdk.ResourceLinkBlock("notes.txt", "file://"+filepath.Join(ws, "notes.txt")))
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	ups := client.of(id)
	if got := chunks(ups, "thinking"); !strings.Contains(got, "I should write hello.txt.") {
		t.Errorf("thinking %q, want the model's", got)
	}
	if got := chunks(ups, "answer"); got != "Finished with `hello.txt`." {
		t.Errorf("answer %q, want the model's whole answer", got)
	}
	answerChunks := 0
	for _, u := range ups {
		if u.AgentMessageChunk != nil {
			answerChunks++
		}
	}
	callID, statuses, content := callStatuses(ups)
	want := []sdk.ToolCallStatus{sdk.ToolCallStatusPending, sdk.ToolCallStatusInProgress, sdk.ToolCallStatusCompleted}
	if !slices.Equal(statuses, want) {
		t.Errorf("write_file went through %v, want %v", statuses, want)
	}
	if got := diffOf(content); got != "hello from the editor\n" {
		t.Errorf("the completed call's diff holds %q, want the file's new text", got)
	}
	wantContent(t, filepath.Join(ws, "hello.txt"), "hello from the editor\n")
	if resp.Usage == nil || resp.Usage.OutputTokens == 0 {
		t.Errorf("the prompt's usage is %+v, want the tokens of its runs", resp.Usage)
	}
	t.Logf("%d answer chunks; call %s", answerChunks, callID)

	// the session is a chat of the store; the editor opens it again in a new process
	a.end()
	list, errOut, code := cliRun(t, "chats", "list", "--db", db)
	if code != 0 || !strings.Contains(list, string(id)) {
		t.Fatalf("chats list (exit %d) lacks the session's chat %s:\n%s%s", code, id, list, errOut)
	}
	again := startACP(t, db)
	if _, err := again.conn.LoadSession(acpCtx(t), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	loaded := again.client.of(id)
	if got := chunks(loaded, "user"); got != "Write hello.txt, see @notes.txt" {
		t.Errorf("the loaded chat's user message is %q, want the prompt with its mention", got)
	}
	if got := chunks(loaded, "answer"); got != "Finished with `hello.txt`." {
		t.Errorf("the loaded chat's answer is %q", got)
	}
	loadedID, loadedStatuses, loadedContent := callStatuses(loaded)
	if loadedID != callID || !slices.Equal(loadedStatuses, []sdk.ToolCallStatus{sdk.ToolCallStatusCompleted}) || diffOf(loadedContent) != "hello from the editor\n" {
		t.Errorf("the loaded chat shows call %s %v with diff %q, want %s completed with its diff", loadedID, loadedStatuses, diffOf(loadedContent), callID)
	}
}

// choose answers every permission request with the option of kind.
func choose(kind sdk.PermissionOptionKind) func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return func(p sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		for _, o := range p.Options {
			if o.Kind == kind {
				return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	}
}

// TestACPAsksPermissionWithTheDiffAndDoesWhatTheEditorChose: in the ask mode write_file waits
// for session/request_permission, which carries the diff the window shows and the options
// allow once, allow always and reject. Allowed, the file is written; rejected, it is not and
// the call fails; always allowed, the workspace's setting keeps write_file, as the window's
// "Always allow" does.
func TestACPAsksPermissionWithTheDiffAndDoesWhatTheEditorChose(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	a := startACP(t, db, "--model", acpWriterModel.Name)
	cases := []struct {
		name      string
		choice    sdk.PermissionOptionKind
		written   bool
		lastState sdk.ToolCallStatus
	}{
		{"allow once", sdk.PermissionOptionKindAllowOnce, true, sdk.ToolCallStatusCompleted},
		{"reject", sdk.PermissionOptionKindRejectOnce, false, sdk.ToolCallStatusFailed},
		{"allow always", sdk.PermissionOptionKindAllowAlways, true, sdk.ToolCallStatusCompleted},
	}
	var alwaysIn string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if c.choice == sdk.PermissionOptionKindAllowAlways {
				alwaysIn = ws
			}
			a.client.mu.Lock()
			a.client.answer, a.client.asked = choose(c.choice), nil
			a.client.mu.Unlock()
			id := newACPSession(t, a.conn, ws, "ask")
			if resp := prompt(t, a.conn, id, sdk.TextBlock("Write hello.txt")); resp.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("stop reason %q, want end_turn", resp.StopReason)
			}
			a.client.mu.Lock()
			asked := a.client.asked
			a.client.mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests, want 1", len(asked))
			}
			var kinds []sdk.PermissionOptionKind
			for _, o := range asked[0].Options {
				kinds = append(kinds, o.Kind)
			}
			if !slices.Equal(kinds, []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways, sdk.PermissionOptionKindRejectOnce}) {
				t.Errorf("the request offers %v, want allow once, allow always, reject", kinds)
			}
			if got := diffOf(asked[0].ToolCall.Content); got != "hello from the editor\n" {
				t.Errorf("the request's diff holds %q, want the text write_file would write", got)
			}
			_, statuses, _ := callStatuses(a.client.of(id))
			if len(statuses) == 0 || statuses[len(statuses)-1] != c.lastState {
				t.Errorf("the call went through %v, want it to end %s", statuses, c.lastState)
			}
			if c.written {
				if slices.Index(statuses, sdk.ToolCallStatusInProgress) < 0 {
					t.Errorf("the allowed call went through %v, never in progress", statuses)
				}
				wantContent(t, filepath.Join(ws, "hello.txt"), "hello from the editor\n")
			} else if _, err := os.Stat(filepath.Join(ws, "hello.txt")); !os.IsNotExist(err) {
				t.Errorf("the rejected call wrote hello.txt (%v)", err)
			}
		})
	}
	a.end()
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	settings, err := st.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !settings.AllowedIn(alwaysIn, "write_file") {
		t.Errorf("after allow always, the settings allow %v, want write_file in %s", settings.AlwaysAllow, alwaysIn)
	}
}

// TestACPCancelEndsThePromptCancelledWithinASecond: session/cancel while the model streams
// stops the run (the window's Stop) and the prompt answers cancelled within a second; the
// partial answer stays in the chat.
func TestACPCancelEndsThePromptCancelledWithinASecond(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	a := startACP(t, db, "--model", longAnswerModel.Name)
	id := newACPSession(t, a.conn, t.TempDir(), "")
	ended := a.promptAsync(id, "Say a lot")
	a.waitWhilePrompting(t, ended, "streamed answer", func() bool { return chunks(a.client.of(id), "answer") != "" })
	took := a.cancelPrompt(t, id, ended)
	t.Logf("session/cancel to the prompt's answer: %v", took)
	if took > time.Second {
		t.Errorf("the prompt answered %v after session/cancel, want within a second", took)
	}
	partial := chunks(a.client.of(id), "answer")
	if strings.Contains(partial, "word1499") {
		t.Errorf("the whole answer streamed despite the cancel")
	}
}

// acpReaderModel reads notes.txt, then answers.
var acpReaderModel = ollamatest.Model{Name: "acp-reader", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("read_file", map[string]any{"path": "notes.txt"}),
	"SUAT": []string{"Read ", "the notes."},
}}

// bufferClient is an editor that offers fs/read_text_file and holds unsaved text.
type bufferClient struct {
	*acpClient
	unsaved map[string]string
	reads   []string
	writes  []string
}

func (c *bufferClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.reads = append(c.reads, p.Path)
	c.mu.Unlock()
	if text, ok := c.unsaved[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(b)}, err
}

// TestACPReadsFilesThroughTheEditorThatOffersTo: an editor that offers fs/read_text_file is
// asked for the file read_file reads, and the model gets its unsaved text, not the disk's.
func TestACPReadsFilesThroughTheEditorThatOffersTo(t *testing.T) {
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	notes := filepath.Join(ws, "notes.txt")
	writeFile(t, notes, "saved notes\n", 0o644)
	client := &bufferClient{acpClient: &acpClient{seen: make(chan struct{}, 1)}, unsaved: map[string]string{notes: "unsaved notes\n"}}
	conn := startACPWith(t, db, client, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}}, "--model", acpReaderModel.Name).conn
	id := newACPSession(t, conn, ws, "")
	if resp := prompt(t, conn, id, sdk.TextBlock("Read the notes")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	_, statuses, content := callStatuses(client.of(id))
	var shown string
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			shown += c.Content.Content.Text.Text
		}
	}
	if !strings.Contains(shown, "unsaved notes") || len(statuses) == 0 || statuses[len(statuses)-1] != sdk.ToolCallStatusCompleted {
		t.Errorf("read_file went through %v and read %q; want it completed with the editor's unsaved text", statuses, shown)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if !slices.Contains(client.reads, notes) {
		t.Errorf("the editor was asked for %v, want %s", client.reads, notes)
	}
}

// acpCommanderModel runs a command that prints a line, then answers.
var acpCommanderModel = ollamatest.Model{Name: "acp-commander", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("run_command", map[string]any{"command": "echo hello from a command"}),
	"SUAT": []string{"Ran ", "it."},
}}

// TestACPAsksToRunACommandWithItsLineAndShowsItsOutput: run_command asks with the command
// line, offers to always allow commands of its prefix, and once allowed shows its output as
// the call's content.
func TestACPAsksToRunACommandWithItsLineAndShowsItsOutput(t *testing.T) {
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", acpCommanderModel.Name)
	a.client.mu.Lock()
	a.client.answer = choose(sdk.PermissionOptionKindAllowOnce)
	a.client.mu.Unlock()
	id := newACPSession(t, a.conn, t.TempDir(), "")
	if resp := prompt(t, a.conn, id, sdk.TextBlock("Run echo")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	a.client.mu.Lock()
	asked := a.client.asked
	a.client.mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asked))
	}
	var preview string
	for _, c := range asked[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			preview += c.Content.Content.Text.Text
		}
	}
	if !strings.Contains(preview, "echo hello from a command") {
		t.Errorf("the request shows %q, want the command line", preview)
	}
	var always string
	for _, o := range asked[0].Options {
		if o.Kind == sdk.PermissionOptionKindAllowAlways {
			always = o.Name
		}
	}
	if !strings.Contains(always, `"echo`) {
		t.Errorf("allow always reads %q, want the command's prefix", always)
	}
	_, statuses, content := callStatuses(a.client.of(id))
	var shown string
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			shown += c.Content.Content.Text.Text
		}
	}
	if !slices.Contains(statuses, sdk.ToolCallStatusInProgress) || statuses[len(statuses)-1] != sdk.ToolCallStatusCompleted || !strings.Contains(shown, "hello from a command") {
		t.Errorf("the command went through %v showing %q; want it in progress, then completed with its output", statuses, shown)
	}
}

// TestACPSendsThePromptsImageToTheModel: an image block of the prompt reaches a model that can
// see, as the window's attached images do.
func TestACPSendsThePromptsImageToTheModel(t *testing.T) {
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", seeingModel.Name)
	id := newACPSession(t, a.conn, t.TempDir(), "")
	img := base64.StdEncoding.EncodeToString(screenshotPNG(t))
	if resp := prompt(t, a.conn, id, sdk.TextBlock("What is this?"), sdk.ImageBlock(img, "image/png")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	if got := chunks(a.client.of(id), "answer"); got != "I see one image in your message." {
		t.Errorf("answer %q, want the model's answer to one image", got)
	}
}

// TestACPCancelWhileAPermissionRequestWaitsEndsThePromptAndRunsNothing: session/cancel while
// the editor has not answered a permission request withdraws it, closes the paused run (its
// call not run) and answers the prompt cancelled within a second.
func TestACPCancelWhileAPermissionRequestWaitsEndsThePromptAndRunsNothing(t *testing.T) {
	ws := t.TempDir()
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", acpWriterModel.Name)
	a.client.mu.Lock()
	a.client.hold = true
	a.client.mu.Unlock()
	id := newACPSession(t, a.conn, ws, "ask")
	ended := a.promptAsync(id, "Write hello.txt")
	a.waitWhilePrompting(t, ended, "permission request", func() bool { return a.client.askedCount() > 0 })
	if took := a.cancelPrompt(t, id, ended); took > time.Second {
		t.Errorf("the prompt answered %v after session/cancel, want within a second", took)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); !os.IsNotExist(err) {
		t.Errorf("the call whose request was withdrawn wrote hello.txt (%v)", err)
	}
	// the chat is free again: the next prompt runs
	a.client.mu.Lock()
	a.client.hold, a.client.answer = false, choose(sdk.PermissionOptionKindAllowOnce)
	a.client.mu.Unlock()
	if resp := prompt(t, a.conn, id, sdk.TextBlock("Write hello.txt")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt ended %q, want end_turn", resp.StopReason)
	}
}

func (c *bufferClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.writes = append(c.writes, p.Path)
	c.unsaved[p.Path] = p.Content // the buffer holds it, and is saved, as Zed does
	c.mu.Unlock()
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

// TestACPWritesReachTheEditorNeverThrowAwayItsUnsavedTextAndUndoTakesThemBack: with an editor
// that offers fs/write_text_file, write_file writes the disk (checkpointed) and hands the new
// text to the editor; `prototyper undo` then takes the file back. A file whose editor holds
// unsaved text is not written: the call fails and says why.
func TestACPWritesReachTheEditorNeverThrowAwayItsUnsavedTextAndUndoTakesThemBack(t *testing.T) {
	clean, dirty, db := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	dirtyFile := filepath.Join(dirty, "hello.txt")
	writeFile(t, dirtyFile, "saved\n", 0o644)
	client := &bufferClient{acpClient: &acpClient{seen: make(chan struct{}, 1)}, unsaved: map[string]string{dirtyFile: "saved\ntyped, not saved\n"}}
	a := startACPWith(t, db, client, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		"--model", acpWriterModel.Name)
	conn := a.conn

	id := newACPSession(t, conn, clean, "")
	prompt(t, conn, id, sdk.TextBlock("Write hello.txt"))
	cleanFile := filepath.Join(clean, "hello.txt")
	wantContent(t, cleanFile, "hello from the editor\n")
	client.mu.Lock()
	if !slices.Contains(client.writes, cleanFile) || client.unsaved[cleanFile] != "hello from the editor\n" {
		t.Errorf("the editor was handed %v, want %s with its new text", client.writes, cleanFile)
	}
	client.mu.Unlock()

	other := newACPSession(t, conn, dirty, "")
	prompt(t, conn, other, sdk.TextBlock("Write hello.txt"))
	wantContent(t, dirtyFile, "saved\n")
	_, statuses, content := callStatuses(client.of(other))
	var said string
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			said += c.Content.Content.Text.Text
		}
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != sdk.ToolCallStatusFailed || !strings.Contains(said, "not saved") {
		t.Errorf("the write over unsaved text went through %v saying %q; want it failed, saying the editor's changes are not saved", statuses, said)
	}

	a.end()
	if out, errOut, code := cliRun(t, "undo", "--db", db, "--chat", string(id)); code != 0 {
		t.Fatalf("undo (exit %d):\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(cleanFile); !os.IsNotExist(err) {
		t.Errorf("after undo, hello.txt is still there (%v)", err)
	}
}
