package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"prototyper/acp"
	"prototyper/agentloop"
	"prototyper/model/vocab"
	"prototyper/store"
)

// chatsCommand is `prototyper chats list | show ID | export ID --format md|json`. It opens the
// store read-only, so it runs beside other readers but not beside the app, which holds the
// file's lock: then it says Prototyper is already running.
func chatsCommand(ctx context.Context, args []string, io IO) int {
	_ = ctx
	var common Common
	var format string
	var asJSON bool
	fs := commandFlags("chats", io, &common)
	fs.StringVar(&format, "format", "md", "export `FORMAT`: md (Markdown to paste into an issue) or json")
	fs.BoolVar(&asJSON, "json", false, "list: print the chats as JSON")
	fs.Usage = func() {
		fmt.Fprint(io.Err, usageLines("chats")+"\n")
		printFlags(io.Err, fs)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return parseExit(err)
	}
	usage := func(msg string) int {
		fmt.Fprintf(io.Err, "prototyper chats: %s\n", hint(msg))
		fs.Usage()
		return ExitUsage
	}
	if len(pos) == 0 {
		return usage("say what to do: list, show ID or export ID")
	}
	verb, rest := pos[0], pos[1:]
	switch verb {
	case "list":
		if len(rest) != 0 {
			return usage("list takes no argument")
		}
	case "show", "export":
		if len(rest) != 1 {
			return usage(verb + " takes one chat ID (see `prototyper chats list`)")
		}
		if verb == "export" && format != "md" && format != "json" {
			return usage(fmt.Sprintf("unknown --format %q: use md or json", format))
		}
	default:
		return usage(fmt.Sprintf("unknown action %q", verb))
	}

	path, err := common.DBPath()
	if err != nil {
		printError(io.Err, "chats", err)
		return ExitFailed
	}
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrNoDatabase) && verb == "list" {
		switch _, statErr := os.Stat(path); {
		case asJSON:
			fmt.Fprintln(io.Out, "[]")
		case statErr == nil: // a file a process died in before it wrote anything
			fmt.Fprintln(io.Out, "No chats yet.")
		default:
			fmt.Fprintf(io.Out, "No chats yet (no database at %s).\n", path)
		}
		return ExitCompleted
	}
	if err != nil {
		printError(io.Err, "chats", err)
		return ExitFailed
	}
	defer db.Close()

	if verb == "list" {
		err = listChats(db, asJSON, io.Out)
	} else {
		var t store.Transcript
		var undone agentloop.Undone
		t, err = loadTranscript(db, rest[0])
		if err == nil {
			undone, err = loadUndone(db, t.Chat)
		}
		switch {
		case err != nil:
		case verb == "show":
			err = writeShow(io.Out, t, undone)
		case format == "json":
			err = writeJSON(io.Out, t)
		default:
			err = writeMarkdown(io.Out, t, undone)
		}
	}
	if err != nil {
		printError(io.Err, "chats", err)
		return ExitFailed
	}
	return ExitCompleted
}

func listChats(db *store.DB, asJSON bool, w io.Writer) error {
	chats, err := db.ListChats()
	if err != nil {
		return err
	}
	if asJSON {
		if chats == nil {
			chats = []store.Chat{}
		}
		return writeJSONValue(w, chats)
	}
	if len(chats) == 0 {
		_, err := fmt.Fprintln(w, "No chats yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tMODEL\tTITLE")
	for _, c := range chats {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", cell(c.ID), c.UpdatedAt.Local().Format("2006-01-02 15:04"),
			c.MessageCount, orDash(cell(c.Model)), orDash(cell(c.Title)))
	}
	return tw.Flush()
}

// loadTranscript reads a chat by its ID or by a prefix of it that only one chat has. The
// store reads the runs that a dead process left live as interrupted: the read-only handle
// proves that no process is running them.
func loadTranscript(db *store.DB, id string) (store.Transcript, error) {
	t, err := db.Transcript(id)
	if errors.Is(err, store.ErrNotFound) {
		var c store.Chat
		if c, err = chatByPrefix(db, id); err == nil {
			t, err = db.Transcript(c.ID)
		}
	}
	return t, err
}

func chatByPrefix(db *store.DB, prefix string) (store.Chat, error) {
	chats, err := db.ListChats()
	if err != nil {
		return store.Chat{}, err
	}
	var found []store.Chat
	for _, c := range chats {
		if prefix != "" && strings.HasPrefix(c.ID, prefix) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return store.Chat{}, &store.NotFoundError{Kind: "chat", ID: prefix}
	}
	return store.Chat{}, fmt.Errorf("%d chats start with %q: give more of the ID", len(found), prefix)
}

// loadUndone reads what of the chat's changes stands undone, as the window shows it.
func loadUndone(db *store.DB, c store.Chat) (agentloop.Undone, error) {
	changes, err := db.Changes(c.ID)
	if err != nil {
		return agentloop.Undone{}, err
	}
	return agentloop.UndoneOf(changes, c.Workspace), nil
}

// writeJSON writes the transcript with its exact text: JSON escapes control characters,
// and writeJSONValue the rest that a terminal would act on.
func writeJSON(w io.Writer, t store.Transcript) error { return writeJSONValue(w, t) }

// writeJSONValue writes v as indented JSON in which the characters a terminal acts on that
// encoding/json leaves as they are (DEL, C1 controls, bidirectional controls) are escaped
// too: the JSON decodes to the same text and is safe to print. (Only the newlines of the
// indentation are controls outside strings, and terminalControl lets them be.)
func writeJSONValue(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := b.String()
	if strings.ContainsFunc(out, terminalControl) {
		var e strings.Builder
		for _, r := range out {
			if terminalControl(r) {
				fmt.Fprintf(&e, "\\u%04x", r)
			} else {
				e.WriteRune(r)
			}
		}
		out = e.String()
	}
	_, err := io.WriteString(w, out)
	return err
}

// toolStatus says what became of a call, in the state the window draws its card in
// ([agentloop.Undone.State]): a pending record with no live run to finish it was interrupted.
func toolStatus(t store.Transcript, undone agentloop.Undone, r store.ToolCallRecord) string {
	switch undone.State(r, ofLiveRun(t, r)) {
	case agentloop.CardDenied:
		s := "denied by " + r.Approval.By
		if r.Approval.Reason != "" {
			s += ": " + r.Approval.Reason
		}
		return s
	case agentloop.CardNotRun:
		return "not run (" + r.NotRun + ")"
	case agentloop.CardAwaitingApproval:
		return "awaiting approval"
	case agentloop.CardInterrupted:
		return "interrupted (no result recorded)"
	case agentloop.CardRunning:
		return "running"
	case agentloop.CardPending:
		return "waiting to run"
	case agentloop.CardStopped:
		return fmt.Sprintf("stopped while it ran, %d ms", r.DurationMs)
	case agentloop.CardCompleted:
		return fmt.Sprintf("ok, %d ms", r.DurationMs)
	case agentloop.CardUndone:
		return fmt.Sprintf("ok, %d ms; undone since", r.DurationMs)
	}
	return fmt.Sprintf("failed, %d ms", r.DurationMs)
}

// ofLiveRun reports whether the run that made r is live in t.
func ofLiveRun(t store.Transcript, r store.ToolCallRecord) bool {
	for _, run := range t.Runs {
		if run.ID == r.RunID {
			return run.Live
		}
	}
	return false
}

// toolRecords indexes a transcript's tool-call records by call id.
func toolRecords(t store.Transcript) map[string]store.ToolCallRecord {
	recs := make(map[string]store.ToolCallRecord, len(t.ToolCalls))
	for _, r := range t.ToolCalls {
		recs[r.ID] = r
	}
	return recs
}

// writeShow prints a transcript for reading on a terminal: everything it prints is sanitized.
func writeShow(w io.Writer, t store.Transcript, undone agentloop.Undone) error {
	ew := &errWriter{w: w, sanitize: true}
	c := t.Chat
	ew.printf("%s\n%s · %d messages · model %s · workspace %s\n", orDash(c.Title), c.ID, c.MessageCount, orDash(c.Model), orDash(c.Workspace))
	recs := toolRecords(t)
	ends := runEnds(t, recs)
	for _, m := range t.Messages {
		if _, ok := recs[m.ToolCallID]; ok && m.Role == store.RoleTool {
			continue // shown with its call
		}
		ew.printf("\n── %s · %s%s\n", m.Role, m.CreatedAt.Local().Format("2006-01-02 15:04:05"), streamNote(m))
		if m.Thinking != "" {
			ew.printf("  (thinking, %s)\n%s\n", seconds(m.ThinkingMs), indent(m.Thinking, "  │ "))
		}
		if m.Content != "" {
			ew.printf("%s\n", m.Content)
		}
		for _, call := range m.ToolCalls {
			ew.printf("→ %s %s\n", call.Name, compactJSON(call.Args))
			if r, ok := recs[call.ID]; ok {
				ew.printf("  %s\n", toolStatus(t, undone, r))
				if r.Output != "" {
					ew.printf("%s\n", indent(r.Output, "  │ "))
				}
			}
		}
		if line := undone.Runs[m.RunID]; line != "" && ends[m.RunID] == m.ID {
			ew.printf("(%s)\n", line)
		}
	}
	return ew.err
}

// runEnds gives each run the last of its messages shown (a tool result is shown with its
// call): the line saying its changes were undone follows it.
func runEnds(t store.Transcript, recs map[string]store.ToolCallRecord) map[string]string {
	ends := map[string]string{}
	for _, m := range t.Messages {
		if _, ok := recs[m.ToolCallID]; ok && m.Role == store.RoleTool {
			continue
		}
		if m.RunID != "" {
			ends[m.RunID] = m.ID
		}
	}
	return ends
}

// writeMarkdown writes a transcript as Markdown, sanitized like show: it is as often read on
// the terminal as pasted, and an escape sequence is noise in an issue.
func writeMarkdown(w io.Writer, t store.Transcript, undone agentloop.Undone) error {
	ew := &errWriter{w: w, sanitize: true}
	c := t.Chat
	ew.printf("# %s\n\n", orDash(c.Title))
	ew.printf("- Chat: `%s`, %d messages\n", c.ID, c.MessageCount)
	if c.Model != "" {
		ew.printf("- Model: `%s`\n", c.Model)
	}
	if c.Workspace != "" {
		ew.printf("- Workspace: `%s`\n", c.Workspace)
	}
	ew.printf("- Created %s, updated %s\n", c.CreatedAt.UTC().Format(time.RFC3339), c.UpdatedAt.UTC().Format(time.RFC3339))
	recs := toolRecords(t)
	ends := runEnds(t, recs)
	for _, m := range t.Messages {
		if _, ok := recs[m.ToolCallID]; ok && m.Role == store.RoleTool {
			continue
		}
		title := roleTitle(m.Role)
		if m.Role == store.RoleTool && m.ToolName != "" {
			title += " `" + m.ToolName + "`"
		}
		ew.printf("\n## %s · %s%s\n\n", title, m.CreatedAt.UTC().Format(time.RFC3339), streamNote(m))
		if m.Thinking != "" {
			took := "" // a time is known only for thinking timed as it streamed
			if m.ThinkingMs > 0 {
				took = " (" + seconds(m.ThinkingMs) + ")"
			}
			ew.printf("<details>\n<summary>Thinking%s</summary>\n\n%s\n\n</details>\n\n", took, quoteLines(m.Thinking))
		}
		if m.Content != "" {
			ew.printf("%s\n\n", strings.TrimRight(m.Content, "\n"))
		}
		for _, call := range m.ToolCalls {
			status := "no record"
			r, ok := recs[call.ID]
			if ok {
				status = toolStatus(t, undone, r)
			}
			ew.printf("**Tool call `%s`** (`%s`): %s\n\n", call.Name, call.ID, status)
			ew.printf("Arguments:\n\n%s\n\n", fenced("json", prettyJSON(call.Args)))
			if ok && (r.Output != "" || !r.Pending) {
				ew.printf("<details>\n<summary>Result</summary>\n\n%s\n\n</details>\n\n", fenced("", r.Output))
			}
		}
		if m.Usage != nil {
			ew.printf("<sub>%s · %s prompt tokens, %s generated, %s</sub>\n", orDash(m.DoneReason),
				vocab.TokenCount(m.Usage.PromptTokens), vocab.TokenCount(m.Usage.EvalTokens), vocab.TokenRate(m.Usage.TokensPerSec))
		}
		if line := undone.Runs[m.RunID]; line != "" && ends[m.RunID] == m.ID {
			ew.printf("\n_%s_\n", line)
		}
	}
	return ew.err
}

func roleTitle(role string) string {
	if role == "" {
		return "Message"
	}
	return strings.ToUpper(role[:1]) + role[1:]
}

func streamNote(m store.Message) string {
	if m.Role == store.RoleAssistant && !m.Complete {
		return " (incomplete: the stream did not finish)"
	}
	return ""
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(lang, text string) string {
	fence := acp.Fence(text)
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence
}

func quoteLines(s string) string { return indent(strings.TrimRight(s, "\n"), "> ") }

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// prettyJSON indents arguments keeping the model's key order, their text as written (a "<"
// stored as "\u003c" reads "<"); anything else comes back as is.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return unescapeHTML(b.String())
}

// unescapeHTML turns back the escapes Go's JSON encoder writes for <, > and & (valid JSON
// either way); an escaped backslash before "u003c" is left as it is.
func unescapeHTML(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out.WriteByte(s[i])
			continue
		}
		if c, ok := htmlEscapes[s[i:min(i+6, len(s))]]; ok {
			out.WriteString(c)
			i += 5
			continue
		}
		out.WriteString(s[i : i+2]) // an escape of its own, its second byte included
		i++
	}
	return out.String()
}

var htmlEscapes = map[string]string{`\u003c`: "<", `\u003e`: ">", `\u0026`: "&"}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func seconds(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errWriter keeps the first write error so that a long report checks it once; with sanitize
// set, what it prints is fit for a terminal (the formats themselves hold no control codes).
type errWriter struct {
	w        io.Writer
	sanitize bool
	err      error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if e.sanitize {
		s = Sanitize(s)
	}
	_, e.err = io.WriteString(e.w, s)
}
