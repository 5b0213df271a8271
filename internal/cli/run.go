package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// runFlags are the flags of `prototyper run`.
type runFlags struct {
	Common
	EndpointFlags
	MCPFlags
	workspace, model, chat, think, approve, decide, reason string
	summarize                                              string
	maxSteps                                               int
	json                                                   bool
	firstByte                                              time.Duration
	maxAnswer                                              byteSize
	images                                                 fileList
}

// byteSize is a flag of a size in bytes, written 8MiB, 512KiB, 1GiB or as bytes.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Set(v string) error {
	num, unit := strings.TrimSpace(v), int64(1)
	for suffix, u := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(num, suffix) {
			num, unit = strings.TrimSpace(strings.TrimSuffix(num, suffix)), u
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/unit {
		return fmt.Errorf("%q is not a size: write it as 8MiB, 512KiB or a number of bytes", v)
	}
	*b = byteSize(n * unit)
	return nil
}

// fileList is a repeatable flag of file paths.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

func runCommand(ctx context.Context, args []string, io IO) int {
	var f runFlags
	fs := flag.NewFlagSet("prototyper run", flag.ContinueOnError)
	fs.SetOutput(io.Err)
	fs.Usage = func() {
		fmt.Fprint(io.Err, usageLines("run")+`
One agent run in the terminal, on the same loop and store as the window. Flags may come
before or after the PROMPT; after --, every word is the prompt's.
Exit status: 0 completed, 1 failed, 2 usage, 3 stopped at max steps, 4 paused awaiting
approval (or an answer to --summarize ask), 5 stopped as a loop, 130 interrupted.

Flags:
`)
		printFlags(io.Err, fs)
	}
	f.Common.Register(fs)
	f.EndpointFlags.Register(fs)
	f.MCPFlags.Register(fs)
	fs.StringVar(&f.workspace, "workspace", "", "workspace `DIR` of a new chat (default: the current folder)")
	fs.StringVar(&f.model, "model", "", "Ollama model `NAME` (default: the chat's, else the settings')")
	fs.StringVar(&f.chat, "chat", "", "continue the chat `ID` (`prototyper chats list` shows them)")
	fs.StringVar(&f.think, "think", "", "thinking: off, on, low, medium or high (default: the model's)")
	fs.StringVar(&f.approve, "approve", "", "tool approval for every tool: auto, ask or deny (default: the settings')")
	fs.StringVar(&f.decide, "decide", "", "answer the paused calls of --chat: allow or deny, then resume")
	fs.StringVar(&f.reason, "reason", "", "the reason given with --decide (the model reads it on deny)")
	fs.StringVar(&f.summarize, "summarize", "", "when older messages no longer fit the model's context: ask (on a terminal; "+
		"without one the run pauses), always (the model summarizes them) or never (they are left out) "+
		"(default: the settings' on a terminal, always without one)")
	fs.IntVar(&f.maxSteps, "max-steps", agentloop.DefaultMaxSteps, "cap on model calls in this run")
	fs.BoolVar(&f.json, "json", false, "print every event as one JSON line on stdout")
	fs.Var(&f.images, "image", "send the image `FILE` (PNG, JPEG, GIF, WebP) with the prompt, to a model that can see; repeatable")
	fs.Var(&f.maxAnswer, "max-answer-size", "the most one answer (text, thinking and tool calls) may hold, e.g. 8MiB; "+
		"past it the answer is cut (default: the settings', else 8MiB)")
	fs.DurationVar(&f.firstByte, "first-byte-timeout", vocab.DefaultFirstByteTimeout,
		"how long to wait for the model's first byte, loading included, e.g. 90s or 10m (0: no limit)")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return parseExit(err)
	}
	prompt := strings.TrimSpace(strings.Join(words, " "))
	usage := func(msg string) int {
		fmt.Fprintf(io.Err, hint("prototyper run: %s; run `prototyper run --help` for the flags\n"), msg)
		return ExitUsage
	}
	switch {
	case f.decide != "" && f.chat == "":
		return usage("--decide needs --chat ID, the chat whose run is paused")
	case f.decide != "" && f.decide != agentloop.DecisionAllow && f.decide != agentloop.DecisionDeny:
		return usage("--decide is allow or deny")
	case f.decide != "" && prompt != "":
		return usage("--decide resumes the paused run and takes no PROMPT; send the prompt in a run of its own after it")
	case f.summarize != "" && f.decide != "":
		return usage("--summarize answers an offer to summarize, --decide a tool call: give one of them")
	case prompt == "" && f.decide == "" && (f.summarize == "" || f.chat == ""):
		return usage("give a PROMPT")
	case f.maxSteps < 1:
		return usage("--max-steps must be at least 1")
	case f.firstByte < 0:
		return usage("--first-byte-timeout must be a duration such as 90s or 10m, or 0 for no limit")
	case f.maxAnswer != 0 && (store.Settings{MaxAnswerBytes: int64(f.maxAnswer)}).Validate() != nil:
		return usage("--max-answer-size must be between 64KiB and 1GiB")
	case len(f.images) > 0 && prompt == "":
		return usage("--image goes with a PROMPT")
	}
	var images [][]byte
	for _, path := range f.images {
		b, err := os.ReadFile(path)
		if err != nil {
			return usage(fmt.Sprintf("--image %s cannot be read: %v", path, errors.Unwrap(err)))
		}
		images = append(images, b)
	}
	firstByteGiven := false
	fs.Visit(func(fl *flag.Flag) { firstByteGiven = firstByteGiven || fl.Name == "first-byte-timeout" })
	if _, err := ollama.ParseThink(f.think); err != nil {
		return usage(err.Error())
	}
	if f.approve != "" {
		if _, err := agentloop.ParseApproval(f.approve); err != nil {
			return usage(err.Error())
		}
	}
	if f.summarize != "" {
		if _, err := store.ParseOlderTurns(f.summarize); err != nil {
			return usage(err.Error())
		}
	}
	fail := func(err error) int {
		printError(io.Err, "run", err)
		return ExitFailed
	}

	workspace := f.workspace
	if workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fail(err)
		}
		workspace = wd
	}
	db, server, exit, ok := f.EndpointFlags.openDBAndServer(f.Common, usage, fail)
	if !ok {
		return exit
	}
	defer db.Close()
	if server.OpenAI() == nil {
		settings, _ := db.Settings()
		client, _ := server.Client()
		local, err := startLocalOllama(ctx, io.Err, "run", client.URL(), settings, filepath.Dir(db.Path()))
		if err != nil {
			return fail(err)
		}
		defer local.stop()
	}
	mcpServers, err := f.MCPFlags.StoredSet(db)
	if err != nil {
		return usage(err.Error())
	}
	defer mcpServers.Close()
	if err := notAllowedMCP(mcpServers, db, f.chat, workspace); err != nil {
		return fail(err)
	}

	var sink events.Sink
	term := newTerminal(io.Out, io.Err, isTerminal(io.Out))
	if server.Endpoint().Provider == store.ProviderOpenAI {
		term.server = "the model server"
	}
	if f.json {
		sink = events.NewJSONLines(io.Out)
	} else {
		sink = events.AckOnDelivery(term)
	}
	bridge, err := events.NewBridge(sink)
	if err != nil {
		return fail(err)
	}
	term.start()
	closed := false
	closeOutput := func() {
		if !closed {
			closed = true
			_ = bridge.Close()
			term.stop()
		}
	}
	defer closeOutput()

	var approver agentloop.Approver
	var offerer agentloop.Offerer
	summarize := f.summarize
	if in, ok := io.In.(*os.File); ok && isTerminal(in) {
		// asked only for calls that wait for approval: with --approve auto, calls the model
		// wrote as text (they never run unasked)
		asker := &terminalApprover{in: bufio.NewReader(in), out: io.Err, flush: term.quiet}
		approver = asker
		offerer = asker
		term.offersAsked = true // the asker says the offer's sentence with its question
	} else if summarize == "" {
		summarize = store.SummarizeAlways // nobody to ask: as before offers existed
	}
	agent := agentloop.Wire(db, server, bridge, agentloop.WireOptions{Workspace: workspace, Extra: mcpServers, ConfigFiles: f.MCPFlags.Files()})
	opts := agentloop.RunOptions{
		Model: f.model, Think: f.think, MaxSteps: f.maxSteps, Approve: f.approve, Approver: approver,
		Summarize: summarize, Offerer: offerer,
		Workspace: workspace, Decide: f.decide, Reason: f.reason, Images: images, MaxAnswerBytes: int(f.maxAnswer),
	}
	if firstByteGiven {
		opts.FirstByteTimeout = f.firstByte
		if f.firstByte == 0 {
			opts.FirstByteTimeout = noLimit
		}
	}
	out, runErr := agent.RunOnce(ctx, f.chat, prompt, opts)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = agent.Shutdown(shutdownCtx)
	cancel()
	closeOutput()

	if runErr != nil && out.StopReason == "" {
		if server.OpenAI() != nil {
			return fail(runErr)
		}
		client, _ := server.Client()
		return fail(noModelError(ctx, client, runErr))
	}
	switch out.StopReason {
	case events.StopCompleted:
		if out.Note != "" {
			fmt.Fprintf(io.Err, "prototyper run: %s (chat %s)\n", Sanitize(out.Note), out.ChatID)
		}
		return ExitCompleted
	case events.StopLength:
		fmt.Fprintf(io.Err, "prototyper run: the answer was cut at the length limit after %d continuations (chat %s)\n", 3, out.ChatID)
		return ExitCompleted
	case events.StopMaxSteps:
		fmt.Fprintf(io.Err, hint("prototyper run: stopped after %d model calls (--max-steps); continue with `prototyper run --chat %s PROMPT`\n"), f.maxSteps, out.ChatID)
		return ExitMaxSteps
	case events.StopLoop:
		fmt.Fprintf(io.Err, "prototyper run: %s (chat %s)\n", Sanitize(out.Note), out.ChatID)
		return ExitLoop
	case events.StopAwaitingApproval:
		for _, a := range out.Awaiting {
			fmt.Fprintf(io.Err, "prototyper run: %s%s waits for approval\n", callLabel(a.Name, a.Args), originLabel(a.Origin))
		}
		fmt.Fprintf(io.Err, hint("prototyper run: paused; resume with `prototyper run --chat %s --decide allow|deny`\n"), out.ChatID)
		return ExitAwaitApproval
	case events.StopAwaitingSummary:
		fmt.Fprintf(io.Err, hint("prototyper run: paused; answer with `prototyper run --chat %s --summarize always|never` "+
			"(always: the model summarizes the older messages; never: they are left out)\n"), out.ChatID)
		return ExitAwaitApproval
	case events.StopAborted:
		if out.Answered {
			fmt.Fprintf(io.Err, "prototyper run: interrupted; the partial answer is saved in chat %s\n", out.ChatID)
		} else {
			fmt.Fprintf(io.Err, hint("prototyper run: interrupted before the model answered; continue with `prototyper run --chat %s PROMPT`\n"), out.ChatID)
		}
		return ExitInterrupted
	}
	if runErr == nil {
		runErr = errors.New("the run failed")
	}
	return fail(runErr)
}

// noLimit stands for --first-byte-timeout 0: a wait longer than any run.
const noLimit = time.Duration(1<<63 - 1)

// isTerminal reports whether w is a terminal (not a pipe, a file or /dev/null).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalApprover asks on the terminal for each call that needs approval.
type terminalApprover struct {
	mu    sync.Mutex
	in    *bufio.Reader
	out   io.Writer
	flush func()
}

// ApproveCommand asks about a command: "y" runs it without network, "net" with the host's
// network, "a" (or "a net") also allows, for good, the commands starting with its pattern in
// this workspace; Enter, "n" or a reason denies it.
func (t *terminalApprover) ApproveCommand(ctx context.Context, req agentloop.ApprovalRequest) (agentloop.CommandDecision, error) {
	pattern := ""
	if req.Preview != nil && req.Preview.Command != nil {
		pattern = req.Preview.Command.Pattern
	}
	always := "" // no pattern is narrow enough for a bare shell or interpreter
	if pattern != "" {
		always = fmt.Sprintf(" / a, a net: always allow %q here", Sanitize(pattern))
	}
	answer, err := t.ask(ctx, previewText(req.Preview)+fmt.Sprintf(
		"Run it%s? [y: yes, no network / net: yes, with network%s / N or a reason: no] ", originLabel(req.Origin), always))
	if err != nil {
		return agentloop.CommandDecision{}, err
	}
	said := strings.Join(strings.Fields(strings.ToLower(answer)), " ")
	if pattern == "" && slices.Contains([]string{"a", "always", "a net", "always net", "a network"}, said) {
		return agentloop.CommandDecision{Decision: agentloop.DecisionDeny, Reason: "the user said no"}, nil
	}
	switch said {
	case "y", "yes":
		return agentloop.CommandDecision{Decision: agentloop.DecisionAllow}, nil
	case "net", "network", "y net":
		return agentloop.CommandDecision{Decision: agentloop.DecisionAllow, Network: true}, nil
	case "a", "always":
		return agentloop.CommandDecision{Decision: agentloop.DecisionAllow, Pattern: pattern}, nil
	case "a net", "always net", "a network":
		return agentloop.CommandDecision{Decision: agentloop.DecisionAllow, Network: true, Pattern: pattern}, nil
	case "", "n", "no":
		return agentloop.CommandDecision{Decision: agentloop.DecisionDeny, Reason: "the user said no"}, nil
	default: // the reason reaches the model
		return agentloop.CommandDecision{Decision: agentloop.DecisionDeny, Reason: answer}, nil
	}
}

func (t *terminalApprover) Approve(ctx context.Context, req agentloop.ApprovalRequest) (string, string, error) {
	if req.Question != "" {
		answer, err := t.ask(ctx, previewText(req.Preview)+Sanitize(req.Question)+" [y/N] ")
		if err != nil {
			return "", "", err
		}
		if a := strings.ToLower(answer); a == "y" || a == "yes" {
			return agentloop.DecisionAllow, "", nil
		}
		return agentloop.DecisionDeny, "the user said no", nil
	}
	answer, err := t.ask(ctx, previewText(req.Preview)+
		fmt.Sprintf("Allow %s %s%s? [y/N, or a reason to deny] ", Sanitize(req.Name), Sanitize(summarizeArgs(req.Args)), originLabel(req.Origin)))
	if err != nil {
		return "", "", err
	}
	switch strings.ToLower(answer) {
	case "y", "yes":
		return agentloop.DecisionAllow, "", nil
	case "", "n", "no":
		return agentloop.DecisionDeny, "the user said no", nil
	default: // the reason reaches the model
		return agentloop.DecisionDeny, answer, nil
	}
}

// ask prints question and returns the line the user types, trimmed (ctx's error when it
// ends first).
func (t *terminalApprover) ask(ctx context.Context, question string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flush()
	fmt.Fprint(t.out, question)
	line := make(chan string, 1)
	go func() {
		s, _ := t.in.ReadString('\n')
		line <- s
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return "", ctx.Err()
	case s := <-line:
		return strings.TrimSpace(s), nil
	}
}

// OfferSummary asks on the terminal whether the model summarizes the older messages that no
// longer fit (Enter: yes), after the offer's sentence, printed with the question (as
// Approve prints its preview) so that the question never comes without it.
func (t *terminalApprover) OfferSummary(ctx context.Context, _ string, offer store.SummaryOffer) (string, error) {
	answer, err := t.ask(ctx, "? "+Sanitize(agentloop.OfferSentence(offer))+"\nSummarize them? [Y/n: leave them out] ")
	if err != nil {
		return "", err
	}
	switch strings.ToLower(answer) {
	case "n", "no", "l", "leave":
		return store.SummaryChoiceLeaveOut, nil
	}
	return store.SummaryChoiceSummarize, nil
}

// terminal renders events for a person: thinking dim, text as it arrives, a spinner per
// running tool call that turns into ✓ or ✗ with its duration, "waiting for Ollama (or the
// model server) to load MODEL… Ns" while a model loads. Without a terminal it writes plain lines and no escape
// codes. Whatever came from the model, a tool or the server is passed through [Sanitize]
// first: only the renderer's own escape codes reach the terminal (--json keeps the exact
// text).
type terminal struct {
	mu       sync.Mutex
	out, err io.Writer
	tty      bool
	mode     string // "", "thinking", "text": what the current line holds
	midLine  bool
	spinning string // the call whose spinner is the current line
	spinText string
	spinNote string // what the spinning call last said of its progress
	// progressAt is when a line last said the progress of a running call not on the spinner
	// line: one a second at most
	progressAt map[string]time.Time
	labels     map[string]string // tool call id → "name args", for its result line
	notes      map[string]bool   // system messages (instructions, summaries): said in one line, their text not printed
	loading    string            // the model being loaded, while its status line shows
	server     string            // what the loading line calls the model server ("": Ollama)
	since      time.Time         // when its request was sent
	frame      int
	done       chan struct{}
	ticker     *time.Ticker

	// offersAsked: a terminal asker answers the summary offers and prints their sentence
	// with its question, so the offer's event says nothing more
	offersAsked bool
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newTerminal(out, err io.Writer, tty bool) *terminal {
	return &terminal{out: out, err: err, tty: tty, done: make(chan struct{}), labels: map[string]string{}, notes: map[string]bool{},
		progressAt: map[string]time.Time{}}
}

func (t *terminal) start() {
	if !t.tty {
		return
	}
	t.ticker = time.NewTicker(100 * time.Millisecond)
	go func() {
		for {
			select {
			case <-t.done:
				return
			case <-t.ticker.C:
				t.mu.Lock()
				switch {
				case t.spinning != "":
					t.frame++
					t.drawSpinner()
				case t.loading != "":
					t.frame++
					t.drawLoading()
				}
				t.mu.Unlock()
			}
		}
	}()
}

func (t *terminal) stop() {
	if t.ticker != nil {
		t.ticker.Stop()
		close(t.done)
		t.ticker = nil
	}
	t.mu.Lock()
	t.endLine()
	t.mu.Unlock()
}

// quiet ends the current line, so that a prompt starts on its own.
func (t *terminal) quiet() {
	t.mu.Lock()
	t.endLine()
	t.mu.Unlock()
}

func (t *terminal) style(code, s string) string {
	if !t.tty {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// loadingText is the status line of a model being loaded.
func (t *terminal) loadingText() string {
	return fmt.Sprintf("%s %ds", t.waitingText(), int(time.Since(t.since).Seconds()))
}

// waitingText says which model the server is loading.
func (t *terminal) waitingText() string {
	server := t.server
	if server == "" {
		server = "Ollama"
	}
	return fmt.Sprintf("waiting for %s to load %s…", server, t.loading)
}

// drawLoading redraws the loading status line in place (a terminal only).
func (t *terminal) drawLoading() {
	fmt.Fprintf(t.out, "\r\x1b[K%s %s", spinnerFrames[t.frame%len(spinnerFrames)], t.style("2", t.loadingText()))
}

// drawSpinner redraws the spinning call's line in place, with its progress (a terminal only).
func (t *terminal) drawSpinner() {
	note := ""
	if t.spinNote != "" {
		note = t.style("2", " · "+t.spinNote)
	}
	fmt.Fprintf(t.out, "\r\x1b[K%s %s%s", spinnerFrames[t.frame%len(spinnerFrames)], t.spinText, note)
}

// progressEvery is how often at most a line says a running call's progress, when the call
// is not on the spinner line (which shows its latest progress as it redraws).
const progressEvery = time.Second

// showProgress says, on a terminal only, how far a running call is: on its spinner line,
// or in a line of its own at most once per progressEvery. Without a terminal nothing is
// written (--json has every tool.progress event).
func (t *terminal) showProgress(e events.Event) {
	text := progressText(e.Update)
	if !t.tty || text == "" {
		return
	}
	if t.spinning == e.ToolCallID {
		t.spinNote = text
		return
	}
	label, running := t.labels[e.ToolCallID]
	if !running || time.Since(t.progressAt[e.ToolCallID]) < progressEvery {
		return
	}
	t.progressAt[e.ToolCallID] = time.Now()
	line := t.style("2", "  … "+label+" · "+text)
	if t.spinning == "" {
		t.endLine()
		fmt.Fprintln(t.out, line)
		return
	}
	// above the spinner line, which goes on below it
	fmt.Fprintf(t.out, "\r\x1b[K%s\n", line)
	t.drawSpinner()
}

// progressText is what a tool.progress update says, as the window's card says it: an MCP
// server's message and "progress/total"; "" for an update of another shape.
func progressText(update any) string {
	raw, err := json.Marshal(update)
	if err != nil {
		return ""
	}
	var p struct {
		Progress *float64 `json:"progress"`
		Total    float64  `json:"total"`
		Message  string   `json:"message"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	var parts []string
	if m := cell(p.Message); m != "" {
		parts = append(parts, m)
	}
	if p.Progress != nil {
		n := strconv.FormatFloat(*p.Progress, 'f', -1, 64)
		if p.Total > 0 {
			n += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, " · ")
}

// endLine finishes whatever the current line holds; a loading status line is erased.
func (t *terminal) endLine() {
	if t.loading != "" {
		if t.tty {
			fmt.Fprint(t.out, "\r\x1b[K")
		}
		t.loading = ""
	}
	if t.spinning != "" {
		fmt.Fprintln(t.out)
		t.spinning = ""
	}
	if t.mode == "thinking" && t.tty {
		fmt.Fprint(t.out, "\x1b[0m")
	}
	if t.midLine {
		fmt.Fprintln(t.out)
	}
	t.mode, t.midLine = "", false
}

// Deliver renders one batch.
func (t *terminal) Deliver(batch []events.Event) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range batch {
		t.render(e)
	}
	return nil
}

func (t *terminal) render(e events.Event) {
	switch e.Type {
	case events.ThinkingDelta:
		if t.mode != "thinking" {
			t.endLine()
			if t.tty {
				fmt.Fprint(t.out, "\x1b[2m")
			}
			t.mode = "thinking"
		}
		t.write(e.Text)
	case events.MessageStarted:
		if e.Role != store.RoleSystem {
			return
		}
		t.notes[e.MessageID] = true
		t.endLine()
		switch e.Kind {
		case events.KindSummary:
			fmt.Fprintln(t.err, t.style("2", fmt.Sprintf("(the model summarized %d earlier messages to fit its context)", e.DroppedMessages)))
		default:
			fmt.Fprintln(t.err, t.style("2", fmt.Sprintf("(project instructions from %s go with every message)", cell(e.Name))))
		}
	case events.TextDelta:
		if t.notes[e.MessageID] {
			return
		}
		if t.mode != "text" {
			t.endLine()
			t.mode = "text"
		}
		t.write(e.Text)
	case events.ToolCall:
		switch e.State {
		case events.ToolStateRunning:
			t.endLine()
			t.spinText, t.spinNote = callLabel(e.Name, e.Args), ""
			t.labels[e.ToolCallID] = t.spinText
			if t.tty {
				fmt.Fprintf(t.out, "%s %s", spinnerFrames[0], t.spinText)
				t.spinning = e.ToolCallID
			} else {
				fmt.Fprintf(t.out, "… %s\n", t.spinText)
			}
		case events.ToolStateAwaitingApproval:
			t.endLine()
			fmt.Fprintf(t.out, "? %s%s waits for approval\n", callLabel(e.Name, e.Args), originLabel(e.Origin))
		}
	case events.ToolProgress:
		t.showProgress(e)
	case events.ToolOutput:
		if t.mode != "output" {
			t.endLine()
			t.mode = "output"
		}
		t.write(e.Text)
	case events.ToolResult:
		// a call that did not run (the user replied or stopped, the loop guard refused it),
		// or that the user stopped while it ran, is no failure: a neutral mark, what became
		// of it for its time, and why
		mark := t.style("32", "✓")
		if e.NotRun != "" || e.Stopped {
			mark = t.style("2", "–")
		} else if e.OK == nil || !*e.OK {
			mark = t.style("31", "✗")
		}
		var ms int64
		if e.DurationMs != nil {
			ms = *e.DurationMs
		}
		took := formatDuration(ms)
		switch {
		case e.NotRun != "":
			took = "not run"
		case e.Stopped:
			took = "stopped after " + took
		}
		delete(t.progressAt, e.ToolCallID)
		label := t.labels[e.ToolCallID]
		if label == "" {
			label = cell(e.Name)
		}
		delete(t.labels, e.ToolCallID)
		line := fmt.Sprintf("%s %s (%s)", mark, label, took)
		if t.spinning == e.ToolCallID {
			fmt.Fprintf(t.out, "\r\x1b[K%s %s (%s)", mark, t.spinText, took)
			t.spinning = ""
			fmt.Fprintln(t.out)
		} else {
			t.endLine()
			fmt.Fprintln(t.out, line)
		}
		if d, ok := e.Details.(*tools.Details); ok && d.Command != nil {
			fmt.Fprintln(t.out, t.style("2", "  "+commandSummary(d.Command)))
		}
		switch {
		case e.NotRun == events.NotRunCopied: // its output speaks to the model
			fmt.Fprintln(t.out, t.style("2", "  "+textCopiedNotRun))
		case e.OK == nil || !*e.OK:
			fmt.Fprintln(t.out, t.style("2", "  "+firstLine(Sanitize(e.Output))))
		}
	case events.ToolApprovalResolved:
		if e.Decision == agentloop.DecisionDeny {
			t.endLine()
			fmt.Fprintf(t.out, "%s %s denied by %s\n", t.style("31", "✗"), cell(e.Name), e.By)
		}
	case events.Checkpoint:
		for _, p := range e.NotUndoable {
			t.endLine()
			fmt.Fprintln(t.err, t.style("33", notUndoableText(cell(p))))
		}
	case events.ContextTruncated:
		t.endLine()
		fmt.Fprintln(t.err, t.style("2", fmt.Sprintf("(left out %d older messages to fit %s tokens)", e.DroppedMessages, vocab.TokenCount(e.NumCtx))))
	case events.SummaryOffered:
		if t.offersAsked {
			break
		}
		t.endLine()
		fmt.Fprintf(t.err, "? %s\n", Sanitize(e.Message))
	case events.SummaryAnswered:
		if e.Choice == store.SummaryChoiceLeaveOut {
			t.endLine()
			fmt.Fprintln(t.err, t.style("2", "(the older messages are left out)"))
		}
	case events.ContextCut:
		t.endLine()
		fmt.Fprintln(t.err, t.style("33", Sanitize(e.Message)))
	case events.Retry:
		t.endLine()
		fmt.Fprintf(t.err, "%s; retrying in %s (attempt %d)\n", cell(e.Reason), formatDuration(e.DelayMs), e.Attempt)
	case events.ModelLoading:
		t.endLine()
		t.loading, t.since = cell(e.Model), time.Now().Add(-agentloop.LoadingNotice)
		if t.tty {
			t.drawLoading()
		} else {
			fmt.Fprintln(t.err, t.waitingText())
		}
	case events.ModelLoaded:
		if t.loading != "" && !t.tty && e.LoadMs != nil {
			fmt.Fprintf(t.err, "%s loaded in %s\n", t.loading, formatDuration(*e.LoadMs))
		}
		t.endLine()
	// error events are not rendered: the run's error is the one line printed at its end;
	// only tools that could not be offered, an AGENTS.md that was not read and a model now
	// asked for calls written as text are said as they are found, the run going on
	case events.Error:
		if e.Code == agentloop.CodeToolsUnavailable || e.Code == agentloop.CodeInstructionsRefused || e.Code == agentloop.CodeCallsWritten {
			t.endLine()
			fmt.Fprintf(t.err, "%s %s\n", t.style("33", "!"), cell(e.Message))
		}
	case events.MessageCompleted, events.RunFinished:
		t.endLine()
	}
}

// write prints a piece of the model's text, without the terminal controls it may hold.
func (t *terminal) write(text string) {
	text = Sanitize(text)
	if text == "" {
		return
	}
	fmt.Fprint(t.out, text)
	t.midLine = !strings.HasSuffix(text, "\n")
}

// commandSummary says in one line how a command ended and what it changed.
func commandSummary(d *tools.CommandDetails) string {
	s := fmt.Sprintf("exit status %d", d.ExitCode)
	if d.TimedOut {
		s = "ended by its timeout, " + s
	}
	if d.Network {
		s += ", with network"
	}
	if d.Unconfined {
		s += ", unconfined"
	}
	if n := len(d.Changes) + d.MoreChanges; n > 0 {
		s += fmt.Sprintf(", %d path(s) changed", n)
	}
	return s
}

func formatDuration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// callLabel is a call as one line of the terminal: its tool and its arguments in short.
// textCopiedNotRun says, under its line, why a call written as text did not run.
const textCopiedNotRun = "the model copied this call from a file or tool output it read; it was not run"

// originLabel says where a call came from, after its label, when that is not the model's
// own tool call.
func originLabel(origin string) string {
	if origin == events.OriginText {
		return " (written as text by the model)"
	}
	return ""
}

func callLabel(name string, args json.RawMessage) string {
	return cell(strings.TrimSpace(name + " " + summarizeArgs(args)))
}

// summarizeArgs shows a call's arguments in a line: the path when there is one, else the
// compact JSON, cut.
func summarizeArgs(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		if p, ok := m["path"].(string); ok {
			return p
		}
	}
	s := string(raw)
	if s == "{}" || s == "" {
		return ""
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// previewText is the change a call would make, as the terminal shows it above the question.
func previewText(p *tools.Preview) string {
	if p == nil {
		return ""
	}
	if p.Fails != "" {
		return "This call cannot succeed as it is: " + Sanitize(p.Fails) + "\n"
	}
	var b strings.Builder
	if c := p.Command; c != nil {
		folder := "the workspace folder"
		if c.Cwd != "" {
			folder = Sanitize(c.Cwd)
		}
		fmt.Fprintf(&b, "This runs, in the sandbox, in %s:\n  %s\n", folder, Sanitize(c.Command))
		return b.String()
	}
	switch {
	case len(p.Removes) > 0:
		fmt.Fprintf(&b, "This deletes %d path(s), %s:\n", len(p.Removes), sizeLabel(p.Bytes))
		for i, r := range p.Removes {
			if i == 20 {
				fmt.Fprintf(&b, "  … and %d more\n", len(p.Removes)-i)
				break
			}
			fmt.Fprintf(&b, "  %s (%s, %s)\n", Sanitize(r.Path), r.Kind, sizeLabel(r.Bytes))
		}
	case p.Created:
		fmt.Fprintf(&b, "This creates %s (%s):\n", Sanitize(p.Path), sizeLabel(p.Bytes))
	default:
		fmt.Fprintf(&b, "This changes %s (%s after):\n", Sanitize(p.Path), sizeLabel(p.Bytes))
	}
	if p.Diff != "" {
		b.WriteString(Sanitize(p.Diff))
		if !strings.HasSuffix(p.Diff, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, path := range p.NotUndoable {
		b.WriteString(notUndoableText(Sanitize(path)) + "\n")
	}
	return b.String()
}

func sizeLabel(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// notUndoableText says that the change of a file too large to keep cannot be undone.
func notUndoableText(path string) string {
	return path + " is too large to keep: this change cannot be undone"
}
