package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"prototyper/sandbox"
	"prototyper/tools/diff"
)

// run_command runs a command line in the workspace through the sandbox ([sandbox.Run]): the
// command sees the workspace through a copy-on-write layer and never writes it. When it
// ends, what it changed is the call's change: the loop keeps the state of every path it
// names ([Call.Checkpoint]), then the change set is applied, so that undo takes a command's
// changes back like a write_file's.

// RunCommand is the name of the command tool.
const RunCommand = "run_command"

// Command limits.
const (
	// DefaultCommandTimeout is a command's timeout when the call gives none.
	DefaultCommandTimeout = 120 * time.Second
	// MaxCommandTimeout is the longest timeout a call may ask for.
	MaxCommandTimeout = 1800 * time.Second
	// commandOutputBytes bounds the output the model reads: this much of the head and of
	// the tail, the middle counted.
	commandOutputBytes = 8 << 10
	// maxListedChanges bounds the changes a result lists with their diffs.
	maxListedChanges = 500
	// maxChangeDiffBytes bounds the diffs of one result together.
	maxChangeDiffBytes = 256 << 10
)

// CheckpointFunc keeps the present state of paths (workspace-relative, parents first) before
// a call changes them; the loop sets it for a tool whose paths are known only once it ran.
// notKept lists the files too large to keep, which the user agreed to change beyond undo.
// An error means the change must not be made; its message says why, for the model.
type CheckpointFunc func(paths []string) (notKept []string, err error)

// Output is a progress update of a running command: a piece of one of its streams, valid
// UTF-8.
type Output struct {
	Stream string // "stdout" or "stderr"
	Text   string
}

// CommandPreview is what the user approves of a run_command call (preview.command).
type CommandPreview struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	// Pattern is the prefix suggested for "always allow" ([CommandPattern]); "" when no
	// prefix is narrow enough (a bare shell or interpreter).
	Pattern string `json:"pattern"`
	// KeepsRunning: the command is a server (start_server) that runs on after the call.
	KeepsRunning bool `json:"keepsRunning,omitempty"`
}

// CommandDetails describe a command's run on its card (details.command).
type CommandDetails struct {
	ExitCode    int   `json:"exitCode"`
	DurationMs  int64 `json:"durationMs"`
	TimedOut    bool  `json:"timedOut"`
	Network     bool  `json:"network"`
	OutputBytes int64 `json:"outputBytes"`
	// CutBytes is how much of the output the model did not read (the middle).
	CutBytes   int64 `json:"cutBytes"`
	Unconfined bool  `json:"unconfined"`
	// Changes are the paths the command changed, applied to the workspace.
	Changes []CommandChange `json:"changes,omitempty"`
	// MoreChanges counts the changes applied but not listed (past the first few hundred).
	MoreChanges int `json:"moreChanges,omitempty"`
	// NotUndoable lists files whose earlier state was too large to keep.
	NotUndoable []string `json:"notUndoable,omitempty"`
	// Refused lists paths the command changed that no tool may change (.git, the app's
	// files): those changes were left out.
	Refused []string `json:"refused,omitempty"`
}

// CommandChange is one path a command changed.
type CommandChange struct {
	Path  string `json:"path"`
	Kind  string `json:"kind"` // sandbox.Created, Modified, Deleted, ModeChanged
	Bytes int64  `json:"bytes,omitempty"`
	Diff  string `json:"diff,omitempty"`
}

// CommandPattern is the prefix suggested for always allowing a command line. It covers no
// more than was asked: the program with the words up to its first one that is no option
// ("npm test", "go build", "python3 app.py", "ls -la"), after the variable assignments that
// precede it, kept ("env CI=1 npm test"). A line whose program runs code it is given (an
// interpreter with an inline-code option such as bash -c or python3 -e, awk, find -exec,
// xargs, sudo, timeout) or whose words before that point the shell expands is suggested
// whole, or not at all if it chains commands. A bare shell or interpreter is never suggested, since it would cover any script:
// for such a line (an interpreter alone, reading its standard input) the pattern is "", as
// for a pattern that would hold a character the user cannot see.
func CommandPattern(command string) string {
	p := commandPattern(command)
	if strings.ContainsFunc(p, unreadable) {
		return "" // the user could not read what they would allow
	}
	return p
}

// unreadable reports whether r draws nothing or reorders what follows (a bidirectional
// control, a zero-width character, a control character).
func unreadable(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || r == 0x2028 || r == 0x2029
}

func commandPattern(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return ""
	}
	whole := strings.Join(f, " ")
	if ChainsCommands(command) {
		whole = "" // no rule covers a line that chains commands: the settings refuse one
	}
	i := 0
	if f[0] == "env" {
		i = 1
		if len(f) > 1 && strings.HasPrefix(f[1], "-") {
			return whole // env's own options (-S splits a string into a command line)
		}
	}
	for i < len(f) && isAssignment(f[i]) {
		i++
	}
	if i == len(f) {
		return whole
	}
	prefix, prog, args := f[:i], f[i], f[i+1:]
	for _, w := range f[:i+1] {
		if strings.ContainsAny(w, shellSpecial) {
			return whole
		}
	}
	name := filepath.Base(prog)
	if runsGivenCode(name) {
		return whole
	}
	cut := -1 // the index in args of the last word of the pattern
	if interpreter(name) {
		switch {
		case len(args) == 0:
			return "" // reading its standard input: any script
		case !strings.HasPrefix(args[0], "-"):
			cut = 0 // the script
		case args[0] == "-m" && len(args) > 1 && strings.HasPrefix(name, "python") && !strings.HasPrefix(args[1], "-"):
			cut = 1 // python3 -m pytest
		default:
			return whole // its options may hold code (-c, -e, -p, -r) or take the next word
		}
	} else {
		cut = len(args) - 1
		for j, w := range args {
			if !strings.HasPrefix(w, "-") {
				cut = j
				break
			}
		}
	}
	words := append(append(slices.Clone(prefix), prog), args[:cut+1]...)
	for _, w := range args[:cut+1] {
		if strings.ContainsAny(w, shellSpecial) {
			return whole
		}
	}
	return strings.Join(words, " ")
}

// shellSpecial are the characters that make the shell read a word as more than itself
// (expansion, redirection, quoting, chaining): a pattern ending at such a word would cover
// lines that differ where it matters.
const shellSpecial = "|&;<>()$`\\\"' \t*?[]{}~#!"

// ChainsCommands reports whether a command line runs more than one command or one of its own
// making: a ;, &, |, backquote or line break, a $(, or a <( or >( (which bash runs as process
// substitutions even as sh). No "always allow" pattern covers such a line (store.CommandMatches),
// and none is suggested for it.
func ChainsCommands(command string) bool {
	return strings.ContainsAny(command, ";&|`\n\r") || strings.Contains(command, "$(") ||
		strings.Contains(command, "<(") || strings.Contains(command, ">(")
}

// isAssignment reports whether w is a variable assignment (NAME=value) before a program.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// interpreters are the shells and language runtimes that run a script named as their first
// word or the code an option gives them.
var interpreters = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox",
	"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php",
	"lua", "luajit", "Rscript", "R", "tclsh", "wish", "julia", "guile", "racket", "ghci", "runghc", "scala", "groovy",
	"jshell", "osascript", "pwsh", "powershell", "elixir", "erl", "escript", "ts-node", "tsx"}

// interpreter reports whether the program name is an interpreter (python3.12 as python3).
func interpreter(name string) bool {
	return slices.Contains(interpreters, strings.TrimRight(name, "0123456789.")) || slices.Contains(interpreters, name)
}

// codeRunners are the programs whose arguments are code or another command line, so that no
// prefix of a line of theirs is narrower than the line.
var codeRunners = []string{"awk", "gawk", "mawk", "nawk", "sed", "find", "xargs", "parallel", "env", "sudo", "doas", "su",
	"runuser", "setpriv", "nice", "ionice", "nohup", "timeout", "time", "exec", "command", "builtin", "eval", "source", ".",
	"stdbuf", "setsid", "strace", "ltrace", "watch", "flock", "unshare", "nsenter", "chroot", "script", "expect",
	"chrt", "taskset", "systemd-run", "dbus-run-session", "xvfb-run", "gdb", "valgrind", "entr", "npx", "bunx", "pnpx"}

// runsGivenCode reports whether the program name is one of [codeRunners].
func runsGivenCode(name string) bool { return slices.Contains(codeRunners, name) }

func (w *Workspace) runCommandTool() Tool {
	return w.commandTool(RunCommand, "Run a command line with sh -c in the workspace folder (or in cwd, a folder inside it), "+
		"for example to install dependencies, build, or run tests: \"npm test\", \"go build ./...\", \"python3 app.py\". "+
		"It runs in a sandbox: only the workspace is visible besides the system folders, and there is no network "+
		"unless the user allows it. Files it changes in the workspace are kept and can be undone. "+
		"The result gives the exit status and the output (stdout and stderr); long output is cut to its head and tail.",
		"The command line, run by sh -c.", false).
		Param("timeout", "number", "Seconds before the command is ended; default 120, at most 1800.", Minimum(1), Maximum(MaxCommandTimeout.Seconds())).
		Handle(w.runCommand)
}

// commandTool starts the definition of a tool that runs a command line (run_command, and
// start_server, whose command keepsRunning): its parameters command (described by
// commandParam) and cwd, a folder of the workspace; it runs alone and asks first. Before it
// runs, a call names no path (a command's paths are known only once it has run, a server's
// never are), and what the user is asked to allow is its command line, its folder and the
// prefix suggested to always allow.
func (w *Workspace) commandTool(name, description, commandParam string, keepsRunning bool) *Builder {
	touches := func(ctx context.Context, call Call) ([]string, error) {
		_, err := w.commandDir(call.Args.String("cwd"))
		return nil, err
	}
	preview := func(ctx context.Context, call Call) (Preview, error) {
		dir, err := w.commandDir(call.Args.String("cwd"))
		if err != nil {
			return Preview{}, err
		}
		cmd := call.Args.String("command")
		return Preview{Path: dir, Command: &CommandPreview{Command: cmd, Cwd: dir, Pattern: CommandPattern(cmd), KeepsRunning: keepsRunning}}, nil
	}
	return New(name, description).
		Param("command", "string", commandParam, Required, MinLength(1)).
		Param("cwd", "string", "Folder to run in, relative to the workspace; default the workspace folder.").
		Mode(Sequential).
		Approval(ApprovalAsk).
		Changes(touches, preview)
}

// commandDir checks the cwd of a call: "" (the workspace) or a folder inside it.
func (w *Workspace) commandDir(cwd string) (string, error) {
	if cwd == "" || cwd == "." {
		return "", nil
	}
	rel, err := clean(cwd)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", nil
	}
	fi, err := w.root.Stat(rel)
	switch {
	case err != nil:
		return "", w.explain(rel, err)
	case !fi.IsDir():
		return "", pathErrorf(ErrWrongKind, rel, "cwd %q is a file, not a folder; give a folder of the workspace", rel)
	}
	return rel, nil
}

// hidden are the paths the command never sees: the app's data folder, its database and the
// files beside it (its lock and its backups, each a copy of every chat), and the
// configuration folders and files. A path inside another is left out: masking it would make
// it appear (empty) in the folder masked already.
func (w *Workspace) hidden() []string {
	var all []string
	all = append(all, w.protected...)
	all = append(all, w.configs...)
	all = append(all, w.databases...)
	for _, db := range w.databases {
		dir, base := filepath.Dir(db), filepath.Base(db)
		if dfi, err := os.Stat(dir); err == nil {
			for _, name := range w.appFileNames(dir, dfi, base) {
				all = append(all, filepath.Join(dir, name))
			}
		}
	}
	all = append(all, w.cfgFiles...)
	var out []string
	for i, p := range all {
		inside := false
		for j, q := range all {
			if i != j && q != p && holds(q, p) {
				inside = true
			}
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real // the command sees the workspace at its resolved path
		}
		if !inside && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (w *Workspace) runCommand(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
	command := call.Args.String("command")
	dir, err := w.commandDir(call.Args.String("cwd"))
	if err != nil {
		return Result{}, err
	}
	timeout := DefaultCommandTimeout
	if call.Args.Has("timeout") {
		timeout = time.Duration(call.Args.Int("timeout", 120)) * time.Second
	}
	opts := sandbox.Options{Workspace: w.dir, Dir: dir, Timeout: timeout, Network: call.Network, Hidden: w.hidden(),
		HeadBytes: commandOutputBytes, TailBytes: commandOutputBytes, StageDir: w.opts.CommandStageDir}
	out := newOutputSplitter(progress)
	res, err := sandbox.Run(ctx, command, opts, out.chunk)
	if errors.Is(err, sandbox.ErrUnavailable) && w.opts.UnconfinedCommands != nil && w.opts.UnconfinedCommands() {
		opts.Unconfined = true
		res, err = sandbox.Run(ctx, command, opts, out.chunk)
	}
	out.flush()
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, cancelledf(ctx.Err(), "the command was stopped; nothing it wrote was applied to the workspace")
		}
		return Result{}, err
	}
	defer res.Changes.Close()
	d := &CommandDetails{ExitCode: res.ExitCode, DurationMs: res.Duration.Milliseconds(), TimedOut: res.TimedOut,
		Network: call.Network, OutputBytes: res.Output.Total, CutBytes: res.Output.Omitted, Unconfined: opts.Unconfined}
	var text strings.Builder
	switch {
	case res.TimedOut:
		fmt.Fprintf(&text, "The command was ended after its timeout of %s (exit status %d).", timeout, res.ExitCode)
	default:
		fmt.Fprintf(&text, "Exit status %d after %s.", res.ExitCode, res.Duration.Round(time.Millisecond))
	}
	if opts.Unconfined {
		text.WriteString(" It ran unconfined: what it changed was written directly and cannot be undone.")
	}
	if o := res.Output.Text(); o != "" {
		text.WriteString("\nOutput:\n")
		text.WriteString(strings.ToValidUTF8(o, "\uFFFD"))
	} else {
		text.WriteString(" No output.")
	}
	if !res.Changes.Empty() {
		if err := w.applyCommandChanges(ctx, call, res.Changes, d); err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return Result{}, err // Stop: nothing it changed was applied
			}
			text.WriteString("\n")
			text.WriteString(err.Error())
			return Result{Content: text.String(), Details: &Details{Command: d}, IsError: true}, nil
		}
		fmt.Fprintf(&text, "\nFiles changed: %s.", summarizeChanges(d))
	}
	return Result{Content: text.String(), Details: &Details{Command: d}}, nil
}

// applyCommandChanges leaves out what no tool may change, describes the rest (with diffs
// against the workspace as it is), has the loop keep the prior state of every path, then
// applies the change set.
func (w *Workspace) applyCommandChanges(ctx context.Context, call Call, cs *sandbox.ChangeSet, d *CommandDetails) error {
	app := w.appFiles()
	kept := cs.Changes[:0]
	var paths []string
	seen := map[string]bool{}
	addPath := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	diffBudget := maxChangeDiffBytes
	for _, c := range cs.Changes {
		if err := ctx.Err(); err != nil {
			return cancelledf(err, "the command was stopped; nothing it wrote was applied to the workspace")
		}
		if err := w.checkWritableIn(c.Path, app); err != nil {
			d.Refused = append(d.Refused, c.Path)
			continue
		}
		if c.Kind == sandbox.Deleted && c.Type == sandbox.Dir {
			tree, err := w.tree(ctx, c.Path)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("Its changes were not applied: %w", err)
			}
			for _, r := range tree {
				addPath(r.Path)
			}
		}
		addPath(c.Path)
		kept = append(kept, c)
		if len(d.Changes) >= maxListedChanges {
			d.MoreChanges++
			continue
		}
		cc := CommandChange{Path: c.Path, Kind: string(c.Kind), Bytes: c.Size}
		if c.Type == sandbox.File && diffBudget > 0 {
			cc.Diff = w.changeDiff(ctx, cs, c)
			if len(cc.Diff) > diffBudget {
				cc.Diff = cc.Diff[:runeStart(cc.Diff, diffBudget)] + "\n" + diff.Truncated
			}
			diffBudget -= len(cc.Diff)
		}
		d.Changes = append(d.Changes, cc)
	}
	cs.Changes = kept
	if len(kept) == 0 {
		return nil
	}
	if call.Checkpoint != nil {
		notKept, err := call.Checkpoint(paths)
		if err != nil {
			d.Changes, d.MoreChanges = nil, 0
			if ctx.Err() != nil {
				return cancelledf(ctx.Err(), "the command was stopped; nothing it wrote was applied to the workspace")
			}
			return err
		}
		d.NotUndoable = notKept
	}
	// Stop before or while applying leaves the workspace as it was: the checkpoint then
	// records the paths as they are, which an undo leaves alone.
	err := ctx.Err()
	if err == nil {
		err = cs.ApplyContext(ctx, w.dir)
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil && (err == ctx.Err() || errors.Is(err, sandbox.ErrTakenBack)):
		d.Changes, d.MoreChanges = nil, 0
		return cancelledf(ctx.Err(), "the command was stopped; nothing it wrote was applied to the workspace")
	case ctx.Err() != nil:
		return fmt.Errorf("The command was stopped while its changes were applied, and they could not all be taken back (%v); undo the run to put the files back as they were.", err)
	}
	return fmt.Errorf("Its changes could not all be applied (%v); undo the run to put the files back as they were.", err)
}

// changeDiff is the diff of one file change against the workspace as it is.
func (w *Workspace) changeDiff(ctx context.Context, cs *sandbox.ChangeSet, c sandbox.Change) string {
	var old, new []byte
	oldName, newName := "a/"+c.Path, "b/"+c.Path
	if c.Kind == sandbox.Created {
		oldName = "/dev/null"
	} else if c.Kind != sandbox.ModeChanged {
		fi, err := w.root.Lstat(c.Path)
		if err != nil || !fi.Mode().IsRegular() {
			return ""
		}
		if fi.Size() > maxDiffInput {
			return fmt.Sprintf("(the previous content, %d bytes, was too large to compare)\n", fi.Size())
		}
		if old, err = readLimited(ctx, w.root, c.Path, c.Path, maxDiffInput); err != nil {
			return ""
		}
	}
	switch c.Kind {
	case sandbox.Deleted:
		newName = "/dev/null"
	case sandbox.ModeChanged:
		return ""
	default:
		if c.Size > maxDiffInput {
			return fmt.Sprintf("(the new content, %d bytes, is too large to compare)\n", c.Size)
		}
		var err error
		if new, err = cs.ReadFile(c); err != nil {
			return ""
		}
	}
	if isBinary(old) || isBinary(new) {
		return fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName)
	}
	return diff.Unified(oldName, newName, string(old), string(new), diff.Options{MaxBytes: w.opts.MaxDiffBytes})
}

// summarizeChanges says in a few words which paths a command changed, for the model.
func summarizeChanges(d *CommandDetails) string {
	var parts []string
	for i, c := range d.Changes {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("and %d more", len(d.Changes)-20+d.MoreChanges))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
	}
	if len(d.Changes) <= 20 && d.MoreChanges > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", d.MoreChanges))
	}
	s := strings.Join(parts, ", ")
	if len(d.Refused) > 0 {
		s += fmt.Sprintf("; left out, since no tool may change them: %s", strings.Join(d.Refused, ", "))
	}
	return s
}

func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// outputSplitter turns a command's chunks into progress updates of valid UTF-8: a sequence
// split between two chunks waits for its end; invalid bytes are replaced.
type outputSplitter struct {
	progress ProgressFunc
	pending  map[sandbox.Stream][]byte
}

func newOutputSplitter(progress ProgressFunc) *outputSplitter {
	return &outputSplitter{progress: progress, pending: map[sandbox.Stream][]byte{}}
}

func (o *outputSplitter) chunk(c sandbox.Chunk) error {
	if o.progress == nil {
		return nil
	}
	b := append(o.pending[c.Stream], c.Data...)
	cut := len(b)
	// an incomplete sequence at the end (at most 3 bytes) waits for the next chunk
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	if cut > 0 {
		o.progress(Output{Stream: string(c.Stream), Text: strings.ToValidUTF8(string(b[:cut]), "\uFFFD")})
	}
	o.pending[c.Stream] = append(o.pending[c.Stream][:0], b[cut:]...)
	return nil
}

func (o *outputSplitter) flush() {
	for s, b := range o.pending {
		if len(b) > 0 && o.progress != nil {
			o.progress(Output{Stream: string(s), Text: strings.ToValidUTF8(string(b), "\uFFFD")})
		}
		delete(o.pending, s)
	}
}
