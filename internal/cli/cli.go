// Package cli is Prototyper's command line: the subcommands of the design's command table
// (run, chats, models, pull, check, undo, redo, mcp, acp) and the flags of the desktop window. main.go calls [Main] for a
// subcommand and [ParseDesktopFlags] otherwise; the window's session (package desktop) takes
// the flags and the few helpers both share ([FirstNonBlank], [OllamaResidency], [OpenAIModels],
// [SettingsServers], [StoredTrust]).
// Nothing here imports Wails or the window's session.
//
// Text that came from a model, a tool or a server is passed through [Sanitize] before it
// reaches a terminal; JSON output keeps the exact text. A failure is one line on stderr.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"prototyper/store"
)

// Exit statuses of the design's command table.
const (
	ExitCompleted     = 0
	ExitFailed        = 1
	ExitUsage         = 2
	ExitMaxSteps      = 3
	ExitAwaitApproval = 4
	ExitLoop          = 5 // stopped as a loop: the model kept repeating the same calls
	ExitInterrupted   = 130
)

// IO is where a subcommand reads and writes; tests pass buffers.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Common holds the flags every subcommand accepts.
type Common struct {
	Ollama string // --ollama URL; empty means OLLAMA_HOST, else http://127.0.0.1:11434
	DB     string // --db FILE; empty means PROTOTYPER_DB, else the user config dir
}

// Register adds --ollama and --db to fs.
func (c *Common) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Ollama, "ollama", "", "Ollama server `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	fs.StringVar(&c.DB, "db", "", "database `FILE` (default: PROTOTYPER_DB, else the user config dir)")
}

// DBPath resolves the database path: --db, then PROTOTYPER_DB, then the user config dir.
func (c *Common) DBPath() (string, error) {
	return ResolveDBPath(c.DB)
}

// OpenDB opens the database DBPath resolves, with opts; settings saved through it are
// judged by [checkSettings] too, unless opts has a CheckSettings of its own.
func (c *Common) OpenDB(opts store.Options) (*store.DB, error) {
	path, err := c.DBPath()
	if err != nil {
		return nil, err
	}
	if opts.CheckSettings == nil {
		opts.CheckSettings = checkSettings
	}
	return store.Open(path, opts)
}

// commandFlags is the flag set of `prototyper NAME`: it says its errors on io.Err, and has
// the flags every command accepts (--ollama, --db), into common.
func commandFlags(name string, io IO, common *Common) *flag.FlagSet {
	fs := flag.NewFlagSet("prototyper "+name, flag.ContinueOnError)
	fs.SetOutput(io.Err)
	common.Register(fs)
	return fs
}

// parseInterleaved parses flags placed before, between or after the positional arguments
// (`run "fix the bug" --db other.db`, `chats export ID --format md`), which flag.Parse alone
// stops at: people put flags after the arguments, and a flag read as text would run on a
// database or folder the user did not name. `--` ends the flags: what follows is positional
// even when it starts with a dash.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseExit is the exit code of a command whose flags did not parse: completed when the
// user asked for help (the usage is printed), usage for a wrong flag (the flag package has
// said which).
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitCompleted
	}
	return ExitUsage
}

// ResolveDBPath resolves a database path the way every command does.
func ResolveDBPath(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env := os.Getenv("PROTOTYPER_DB"); env != "" {
		return env, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the user config folder (%v): pass --db FILE or set PROTOTYPER_DB", err)
	}
	return filepath.Join(dir, "prototyper", "prototyper.db"), nil
}

type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, io IO) int
}

var subcommands = []subcommand{
	{"run", "one agent run in the terminal, same loop, same store", runCommand},
	{"chats", "read the chats in the store", chatsCommand},
	{"models", "models on the model server, with capabilities and context length", modelsCommand},
	{"pull", "pull a model with a progress bar", pullCommand},
	{"check", "check whether a model works on this machine; kept for `prototyper models`", checkCommand},
	{"undo", "put back the files a run changed", undoCommand(false)},
	{"redo", "take back the last undo", undoCommand(true)},
	{"acp", "serve an editor through the Agent Client Protocol on stdin and stdout", acpCommand},
	{"mcp", "the MCP servers, their state and their tools; allow a workspace's own", mcpCommand},
}

// synopses are the usage lines of each command, said by the command table ([Usage]) and by
// the command's own --help ([usageLines]) alike.
var synopses = map[string][]string{
	"run": {
		"run [flags] PROMPT",
		"run --chat ID --decide allow|deny [--reason TEXT]",
		"run --chat ID --summarize always|never",
	},
	"chats":  {"chats list [--json] | show ID | export ID [--format md|json]"},
	"models": {"models [--ollama URL] [--provider openai --base-url URL] [--api-key-env NAME]"},
	"pull":   {"pull [--ollama URL] NAME"},
	"check":  {"check [--ollama URL] [--provider openai --base-url URL] [--api-key-env NAME] [--json] MODEL"},
	"undo":   {"undo --chat ID [--run ID | --message ID] [--force] [--keep] [--json]"},
	"redo":   {"redo --chat ID [--force] [--keep] [--json]"},
	"acp":    {"acp [--model NAME] [--ollama URL] [--provider openai --base-url URL] [--api-key-env NAME] [--mcp-config FILE]"},
	"mcp": {
		"mcp list [--workspace DIR] [--mcp-config FILE] [--json]",
		"mcp allow [--workspace DIR]",
	},
}

// usageLines is the "Usage:" block of the command name, its synopses one a line.
func usageLines(name string) string {
	var b strings.Builder
	for i, s := range synopses[name] {
		if i == 0 {
			b.WriteString("Usage: prototyper " + s + "\n")
		} else {
			b.WriteString("       prototyper " + s + "\n")
		}
	}
	return b.String()
}

// IsSubcommand reports whether arg names a subcommand (or asks for help), so that main.go
// knows not to open a window.
func IsSubcommand(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	for _, s := range subcommands {
		if s.name == arg {
			return true
		}
	}
	return false
}

// Main runs the subcommand named by args[0] and returns its exit status. SIGINT and SIGTERM
// cancel the context it passes on.
func Main(args []string, io IO) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		Usage(io.Out)
		return ExitCompleted
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, s := range subcommands {
		if s.name == args[0] {
			return s.run(ctx, args[1:], io)
		}
	}
	fmt.Fprintf(io.Err, hint("prototyper: unknown command %q; run `prototyper --help` for the list\n"), args[0])
	return ExitUsage
}

// Usage prints the command table.
func Usage(w io.Writer) {
	fmt.Fprint(w, `Prototyper: build things with local models, in a workspace folder, with a local Ollama.

Usage:
  prototyper [--workspace DIR] [--model NAME] [--ollama URL] [--db FILE]
             [--provider ollama|openai] [--base-url URL] [--api-key-env NAME] [--mcp-config FILE]
        open the desktop window
`)
	for _, s := range subcommands {
		for _, line := range synopses[s.name] {
			fmt.Fprintf(w, "  prototyper %s\n", line)
		}
		fmt.Fprintf(w, "        %s\n", s.summary)
	}
	fmt.Fprint(w, `
--ollama URL and --db FILE apply to every command; --provider openai --base-url URL speaks to any
OpenAI-compatible server, --api-key-env NAME names the variable holding its key. Run `+"`prototyper COMMAND --help`"+` for its flags.
Exit status: 0 completed, 1 failed, 2 usage, 3 stopped at max steps, 4 paused awaiting approval,
5 stopped as a loop, 130 interrupted.
`)
}

// DesktopOptions are the flags of the desktop window.
type DesktopOptions struct {
	Common
	EndpointFlags
	MCPFlags
	Workspace string
	Model     string
}

// ErrHelp is returned by ParseDesktopFlags when the user asked for help (usage already printed).
var ErrHelp = flag.ErrHelp

// ErrUsageReported is returned by ParseDesktopFlags for a flag it could not parse: the error
// and the usage were already printed, so the caller only exits with [ExitUsage].
var ErrUsageReported = errors.New("usage error already reported")

// ParseDesktopFlags parses the window's flags. It opens nothing and reaches no network, so that
// Wails' binding generation, which runs the binary, trips over nothing.
func ParseDesktopFlags(args []string, errOut io.Writer) (DesktopOptions, error) {
	var o DesktopOptions
	fs := flag.NewFlagSet("prototyper", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() { Usage(errOut) }
	o.Common.Register(fs)
	o.EndpointFlags.Register(fs)
	o.MCPFlags.Register(fs)
	fs.StringVar(&o.Workspace, "workspace", "", "workspace `DIR` the agent works in")
	fs.StringVar(&o.Model, "model", "", "Ollama model `NAME`")
	extra, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", ErrUsageReported, err)
	}
	if len(extra) > 0 {
		return o, fmt.Errorf(hint("unexpected argument %q; run `prototyper --help` for the commands"), extra[0])
	}
	if o.Ollama != "" {
		if _, err := resolveOllama(o.Ollama); err != nil {
			return o, err
		}
	}
	return o, nil
}

// FirstNonBlank is the first of vals that is not blank, or "": a choice given (a flag, a
// field of the settings panel) wins over the one saved unless it is only spaces.
func FirstNonBlank(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
