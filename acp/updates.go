package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf16"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/events"
	"prototyper/tools"
)

// updateSink is the bridge's sink: each event of a chat with a session becomes its session
// updates, written (and flushed) before Deliver returns. It paints on delivery: the bridge
// then counts a batch's running calls as painted once their in_progress updates are on the
// wire, and holds their results until then, however fast the tool.
type updateSink struct{ s *Server }

func (updateSink) PaintsOnDelivery() bool { return true }

// Deliver writes the batch's updates in order. Approval requests and summary offers are
// handed to their session's answerer, after the updates of the batch before them.
func (u updateSink) Deliver(batch []events.Event) error {
	conn := u.s.peer()
	var firstErr error
	for _, e := range batch {
		sess := u.s.sessionOfChat(e.ChatID)
		if sess == nil {
			continue
		}
		for _, up := range sess.updates(e) {
			err := conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(sess.chatID), Update: up})
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
		sess.follow(e)
	}
	return firstErr
}

// sessionOfChat is the session of a chat, or nil when the editor has none open.
func (s *Server) sessionOfChat(chatID string) *session {
	if chatID == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[chatID]
}

// follow moves the session's turn on by e: the runs it starts and ends, the questions it asks.
func (sess *session) follow(e events.Event) {
	t := sess.current()
	switch e.Type {
	case events.RunStarted:
		if t != nil {
			t.started(e.RunID)
		}
	case events.RunFinished:
		if t != nil {
			t.finished(e)
		}
	case events.ToolApprovalRequest, events.SummaryOffered:
		sess.asks <- e
	}
}

// outputTail bounds the command output a tool call's update carries: its last bytes.
const outputTail = 64 << 10

// updates are the session updates that show e.
func (sess *session) updates(e events.Event) []sdk.SessionUpdate {
	switch e.Type {
	case events.ThinkingDelta:
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(e.Text)}
	case events.TextDelta:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(e.Text)}
	case events.ToolCall:
		return sess.callUpdates(e)
	case events.ToolOutput:
		v := sess.call(e.ToolCallID, e.Name, e.Args)
		sess.mu.Lock()
		v.output = append(v.output, e.Text...)
		if len(v.output) > outputTail {
			v.output = v.output[len(v.output)-outputTail:]
		}
		text := fenced(string(v.output))
		sess.mu.Unlock()
		return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}))}
	case events.ToolResult:
		return []sdk.SessionUpdate{sess.resultUpdate(e)}
	case events.Error, events.ContextCut:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText("\n\n" + e.Message + "\n")}
	case events.RunFinished:
		if e.Message != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentMessageText("\n\n" + e.Message + "\n")}
		}
	}
	return nil
}

// call is the view of a tool call, made the first time.
func (sess *session) call(id, name string, args []byte) *callView {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	v, ok := sess.calls[id]
	if !ok {
		v = &callView{name: name, args: args}
		sess.calls[id] = v
	}
	return v
}

// callUpdates show a tool.call: the call's start the first time, then its status.
func (sess *session) callUpdates(e events.Event) []sdk.SessionUpdate {
	sess.mu.Lock()
	_, known := sess.calls[e.ToolCallID]
	sess.mu.Unlock()
	sess.call(e.ToolCallID, e.Name, e.Args)
	status := sdk.ToolCallStatusPending
	if e.State == events.ToolStateRunning {
		status = sdk.ToolCallStatusInProgress
	}
	ws := sess.workspace()
	if !known {
		return []sdk.SessionUpdate{sdk.StartToolCall(sdk.ToolCallId(e.ToolCallID), title(e.Name, e.Args),
			sdk.WithStartKind(kindOf(e.Name)), sdk.WithStartStatus(status), sdk.WithStartRawInput(rawInput(e.Args)),
			sdk.WithStartLocations(locations(ws, e.Args)))}
	}
	return []sdk.SessionUpdate{sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID), sdk.WithUpdateStatus(status))}
}

// resultUpdate closes a tool call: completed or failed, with its diff, or what it said.
func (sess *session) resultUpdate(e events.Event) sdk.SessionUpdate {
	status := sdk.ToolCallStatusFailed
	if e.OK != nil && *e.OK {
		status = sdk.ToolCallStatusCompleted
	}
	var d tools.Details
	if e.Details != nil {
		if b, err := json.Marshal(e.Details); err == nil {
			_ = json.Unmarshal(b, &d)
		}
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID), sdk.WithUpdateStatus(status),
		sdk.WithUpdateContent(resultContent(sess.workspace(), d, e.Output, sess.takeOutput(e.ToolCallID))),
		sdk.WithUpdateRawOutput(map[string]any{"output": e.Output}))
}

// takeOutput is the command output shown for a call, let go of: the call has finished.
func (sess *session) takeOutput(id string) string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	v := sess.calls[id]
	if v == nil {
		return ""
	}
	out := string(v.output)
	v.output = nil
	return out
}

// resultContent is what a finished call shows: the diff of the change it made, else the
// command's output, else what it told the model.
func resultContent(workspace string, d tools.Details, output, commandOutput string) []sdk.ToolCallContent {
	if d.Diff != "" && d.Path != "" {
		if c := diffContent(absPath(workspace, d.Path), d.Diff); len(c) > 0 {
			return c
		}
	}
	if commandOutput != "" {
		return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(fenced(commandOutput)))}
	}
	if output == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(output))}
}

// workspace is the folder of the session's chat ("" when it cannot be read).
func (sess *session) workspace() string {
	c, err := sess.s.cfg.DB.Chat(sess.chatID)
	if err != nil {
		return ""
	}
	return c.Workspace
}

// absPath is the absolute path of a workspace path (the protocol's paths are absolute).
func absPath(workspace, rel string) string {
	if workspace == "" || filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(workspace, filepath.FromSlash(rel))
}

// callArgs are the arguments of the workspace tools that name what a call is about.
type callArgs struct {
	Path    string `json:"path"`
	Command string `json:"command"`
	Query   string `json:"query"`
	Pattern string `json:"pattern"`
}

func argsOf(raw []byte) callArgs {
	var a callArgs
	_ = json.Unmarshal(raw, &a)
	return a
}

// title is a call's one line: the command line of a command, else the tool and its path,
// with the characters a user cannot see marked (tools.Visible).
func title(name string, raw []byte) string {
	return tools.Visible(rawTitle(name, raw))
}

func rawTitle(name string, raw []byte) string {
	a := argsOf(raw)
	switch {
	case name == tools.RunCommand && a.Command != "":
		return a.Command
	case a.Path != "":
		return name + " " + a.Path
	case a.Query != "":
		return name + " " + a.Query
	case a.Pattern != "":
		return name + " " + a.Pattern
	}
	return name
}

// fenced is text in a Markdown code block whose fence is longer than any run of backticks in
// it: a command line or its output cannot close the block and have what follows read as the
// editor's own text (or a link or an image it fetches).
func fenced(text string) string {
	fence := Fence(text)
	return fence + "\n" + text + "\n" + fence
}

// Fence is the Markdown code fence for text: longer than any run of backticks in it (and at
// least three), so that text cannot close it.
func Fence(text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// rawInput is a call's arguments as the editor may show them, as they are: each format
// character (a bidirectional override, a zero-width space, a tag), C1 control and line or
// paragraph separator, which valid JSON holds only inside a string, becomes its JSON escape
// (\u202e). The value is the same; what is read is what it is.
func rawInput(raw []byte) json.RawMessage {
	unseen := func(r rune) bool {
		return unicode.Is(unicode.Cf, r) || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029
	}
	if !bytes.ContainsFunc(raw, unseen) {
		return raw
	}
	var b bytes.Buffer
	for _, r := range string(raw) {
		if !unseen(r) {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.Bytes()
}

// kindOf is the protocol's kind of a tool, for the editor's icon.
func kindOf(name string) sdk.ToolKind {
	switch name {
	case "read_file", "list_dir":
		return sdk.ToolKindRead
	case "write_file", "edit_file":
		return sdk.ToolKindEdit
	case "delete_path":
		return sdk.ToolKindDelete
	case tools.RunCommand:
		return sdk.ToolKindExecute
	}
	if strings.Contains(name, "search") || strings.Contains(name, "find") {
		return sdk.ToolKindSearch
	}
	return sdk.ToolKindOther
}

// locations are the files a call is about, for the editor to follow (it opens them): only a
// path of the workspace, never one the model gave that leaves it.
func locations(workspace string, raw []byte) []sdk.ToolCallLocation {
	a := argsOf(raw)
	rel := path.Clean(a.Path)
	if a.Path == "" || workspace == "" || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil
	}
	return []sdk.ToolCallLocation{{Path: absPath(workspace, rel)}}
}

// diffContent is a unified diff as the protocol's diff contents, one per hunk: each the old
// and new text of the hunk's lines (context included), so that the editor shows the change
// where it is. A created file has no old text.
func diffContent(file, unified string) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	created := false
	var oldText, newText strings.Builder
	inHunk := false
	flush := func() {
		if !inHunk {
			return
		}
		if created {
			out = append(out, sdk.ToolDiffContent(file, newText.String()))
		} else {
			out = append(out, sdk.ToolDiffContent(file, newText.String(), oldText.String()))
		}
		oldText.Reset()
		newText.Reset()
	}
	for _, line := range strings.SplitAfter(unified, "\n") {
		switch {
		case !inHunk && strings.HasPrefix(line, "--- "):
			created = strings.HasPrefix(line, "--- /dev/null")
		case strings.HasPrefix(line, "@@"):
			flush()
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(line, " "):
			oldText.WriteString(line[1:])
			newText.WriteString(line[1:])
		case strings.HasPrefix(line, "-"):
			oldText.WriteString(line[1:])
		case strings.HasPrefix(line, "+"):
			newText.WriteString(line[1:])
		}
	}
	flush()
	return out
}
