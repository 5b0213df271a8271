package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"

	"prototyper/acp"
	"prototyper/agentloop"
	"prototyper/tools"
)

// acpFlags are the flags of `prototyper acp`.
type acpFlags struct {
	Common
	EndpointFlags
	MCPFlags
	model string
}

// acpCommand serves the Agent Client Protocol on stdin and stdout for an editor; everything
// it says besides the protocol goes to stderr.
func acpCommand(ctx context.Context, args []string, io IO) int {
	var f acpFlags
	fs := commandFlags("acp", io, &f.Common)
	fs.Usage = func() {
		fmt.Fprint(io.Err, usageLines("acp")+`
Speak the Agent Client Protocol on stdin and stdout, for an editor that starts Prototyper as its
agent (Zed's agent_servers, for one). A session is a chat of the store: it opens in the window
too. Diagnostics go to stderr.

Flags:
`)
		printFlags(io.Err, fs)
	}
	f.EndpointFlags.Register(fs)
	f.MCPFlags.Register(fs)
	fs.StringVar(&f.model, "model", "", "model `NAME` of the chats a new session creates (default: the settings')")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return parseExit(err)
	}
	usage := func(msg string) int {
		fmt.Fprintf(io.Err, "prototyper acp: %s; run `prototyper acp --help` for the flags\n", msg)
		return ExitUsage
	}
	if len(words) > 0 {
		return usage(fmt.Sprintf("unexpected argument %q", words[0]))
	}
	fail := func(err error) int {
		printError(io.Err, "acp", err)
		return ExitFailed
	}
	db, server, exit, ok := f.EndpointFlags.openDBAndServer(f.Common, usage, fail)
	if !ok {
		return exit
	}
	defer db.Close()
	mcpServers, err := f.MCPFlags.StoredSet(db)
	if err != nil {
		return usage(err.Error())
	}
	defer mcpServers.Close()
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	log := slog.New(slog.NewTextHandler(io.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	err = acp.Serve(ctx, io.In, io.Out, acp.Config{
		DB:    db,
		Model: f.model,
		Wire: func(emitter agentloop.Emitter, buffers tools.Buffers) *agentloop.Agent {
			return agentloop.Wire(db, server, emitter, agentloop.WireOptions{Workspace: wd, Extra: mcpServers,
				ConfigFiles: f.MCPFlags.Files(), Buffers: buffers})
		},
		Explain: errorLine,
		Log:     log,
		Version: buildVersion(),
	})
	if err != nil {
		return fail(err)
	}
	return ExitCompleted
}

// buildVersion is the version Go stamped in the binary (the module's, or the commit it was
// built from), "dev" when there is none.
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
