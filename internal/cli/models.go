package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"prototyper/model/ollama"
	"prototyper/store"
)

// modelsCommand is `prototyper models`: the models on the Ollama server, with their size,
// the capabilities the agent cares about (tools, thinking) and their context length, and
// whether they read images (vision), and how the model did in its latest check on this machine
// (`prototyper check`; new columns go last, so that the earlier ones keep their place).
func modelsCommand(ctx context.Context, args []string, io IO) int {
	var endpoint EndpointFlags
	common, pos, code, done := parseOllamaCommand("models",
		usageLines("models")+"\nLists the models on the model server, with capabilities and context length.\n",
		args, io, endpoint.Register)
	if done {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(io.Err, hint("prototyper models: unexpected argument %q; run `prototyper models --help`\n"), pos[0])
		return ExitUsage
	}
	server, err := endpoint.Server(common, cliRetry)
	if err != nil {
		printError(io.Err, "models", err)
		return ExitUsage
	}
	if server.OpenAI() != nil {
		return openAIModelsCommand(ctx, io, server)
	}
	client, _ := server.Client()
	local, ok := startCommandOllama(ctx, io, "models", client.URL(), common)
	if !ok {
		return ExitFailed
	}
	defer local.stop()

	models, err := client.Catalog(ctx)
	if err != nil {
		return ollamaFailure(ctx, io, "models", err)
	}
	if len(models) == 0 {
		fmt.Fprintf(io.Out, hint("No models on the Ollama server at %s — pull one, e.g. the recommended `prototyper pull %s`.\n"), Sanitize(client.URL()), ollama.RecommendedModel().Name)
		return ExitCompleted
	}
	checks := storedChecks(common)
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tPARAMS\tTOOLS\tTHINKING\tCONTEXT\tVISION\tCHECK")
	for _, m := range models {
		tools, thinking, context, vision := "?", "?", "?", "?"
		if m.ShowErr == nil {
			tools, thinking, vision = yesNo(m.Tools), yesNo(m.Thinking), yesNo(m.Vision)
			if m.ContextLength > 0 {
				context = strconv.Itoa(m.ContextLength)
			}
		} else {
			printError(io.Err, "models", fmt.Errorf("%s: %w", m.Name, m.ShowErr))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(m.Name), humanBytes(m.Size), orDash(cell(m.ParameterSize)), tools, thinking, context, vision,
			checks(m.Name))
	}
	if err := tw.Flush(); err != nil {
		return ExitFailed
	}
	return ExitCompleted
}

// startOllamaCommand begins a command that talks to Ollama: it parses the flags (--ollama,
// --db), checks the positional arguments with badArgs (which returns what is wrong with them,
// or "") and makes the client. When done is true the command ends with code: the user asked
// for help, or a flag, an argument or the address was wrong (and that has been said).
func startOllamaCommand(name, usage string, args []string, io IO, badArgs func(pos []string) string) (client *ollama.Client, common Common, pos []string, code int, done bool) {
	common, pos, code, done = parseOllamaCommand(name, usage, args, io)
	if done {
		return nil, common, nil, code, true
	}
	if problem := badArgs(pos); problem != "" {
		fmt.Fprintf(io.Err, "prototyper %s: %s\n", name, hint(problem))
		return nil, common, nil, ExitUsage, true
	}
	client, err := ollamaClient(common.Ollama, cliRetry)
	if err != nil {
		printError(io.Err, name, err)
		return nil, common, nil, ExitUsage, true
	}
	return client, common, pos, 0, false
}

// parseOllamaCommand parses the flags of a command that talks to a model server (--ollama,
// --db, and those that more registers: a command's own flags) and returns the positional
// arguments. When done is true the command ends with code: the user asked for help, or a flag
// was wrong (the flag package has said so).
func parseOllamaCommand(name, usage string, args []string, io IO, more ...func(*flag.FlagSet)) (common Common, pos []string, code int, done bool) {
	fs := commandFlags(name, io, &common)
	for _, register := range more {
		register(fs)
	}
	fs.Usage = func() {
		fmt.Fprintln(io.Err, usage)
		printFlags(io.Err, fs)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return common, nil, parseExit(err), true
	}
	return common, pos, 0, false
}

// cliRetry keeps a command's wait short when Ollama is not running: about a second of
// retries, enough for a server that is just starting.
var cliRetry = ollama.WithRetry(3, 2*time.Second)

// ollamaClient resolves --ollama (else OLLAMA_HOST, else the default) into a client.
func ollamaClient(flagValue string, opts ...ollama.Option) (*ollama.Client, error) {
	base, err := resolveOllama(flagValue)
	if err != nil {
		return nil, err
	}
	return ollama.New(base, opts...), nil
}

// exampleOllamaURL is what the messages show a valid address to look like.
const exampleOllamaURL = "http://127.0.0.1:11434"

// resolveOllama resolves the Ollama address as Ollama's own client does and checks that it
// is one a request can be made to ("not a url" resolves to a host with spaces in it). An
// address that is not says so in one sentence naming where it came from.
func resolveOllama(flagValue string) (*url.URL, error) {
	base, err := ollama.ResolveHost(flagValue)
	if err == nil {
		_, err = url.ParseRequestURI(base.String())
	}
	if err == nil {
		return base, nil
	}
	if strings.TrimSpace(flagValue) == "" {
		return nil, fmt.Errorf("OLLAMA_HOST must be the address of an Ollama server, such as %s or 127.0.0.1:11434, not %q",
			exampleOllamaURL, os.Getenv("OLLAMA_HOST"))
	}
	return nil, fmt.Errorf("--ollama must be a URL such as %s, not %q", exampleOllamaURL, flagValue)
}

// ollamaFailure prints err as the command's one line and returns its exit status:
// interrupted when the user cancelled, failed otherwise.
func ollamaFailure(ctx context.Context, io IO, cmd string, err error) int {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		fmt.Fprintf(io.Err, "prototyper %s: interrupted\n", cmd)
		return ExitInterrupted
	}
	printError(io.Err, cmd, err)
	return ExitFailed
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// humanBytes writes n in decimal units, as Ollama itself does (522 MB, 1.2 GB).
func humanBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	v, i := float64(n), 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v < 10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + units[i]
	}
	return fmt.Sprintf("%.0f %s", v, units[i])
}

// storedChecks returns what the latest stored model check of a model says ("5/6, 14 tok/s"),
// "-" when there is none or the store cannot be read (the app holds it): the list of models
// does not fail for want of it. A name serves one quantization at a time, so the newest check
// of the name is the one of the model the server holds.
func storedChecks(common Common) func(model string) string {
	none := func(string) string { return "-" }
	path, err := common.DBPath()
	if err != nil {
		return none
	}
	if _, err := os.Stat(path); err != nil {
		return none
	}
	db, err := store.Open(path, store.Options{ReadOnly: true, LockTimeout: settingsLockWait})
	if err != nil {
		return none
	}
	defer db.Close()
	byModel := map[string][]store.ModelCheck{}
	if names, err := db.CheckedModels(); err == nil {
		for _, name := range names {
			byModel[name], _ = db.ModelChecks(name)
		}
	}
	return func(model string) string {
		var latest *store.ModelCheck
		for name, checks := range byModel { // "qwen3" was checked, "qwen3:latest" is listed
			if len(checks) > 0 && ollama.SameModel(name, model) && (latest == nil || checks[0].At.After(latest.At)) {
				latest = &checks[0]
			}
		}
		if latest == nil {
			return "-"
		}
		return checkBadge(*latest)
	}
}
