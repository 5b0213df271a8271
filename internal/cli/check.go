package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
	"prototyper/modelcheck"
	"prototyper/store"
)

// checkCommand is `prototyper check MODEL`: the model check (package modelcheck) on this
// machine, printed per case and in sum, and recorded in the store per model, quantisation and
// context size, where `prototyper models` shows it.
func checkCommand(ctx context.Context, args []string, io IO) int {
	var endpoint EndpointFlags
	var asJSON bool
	common, pos, code, done := parseOllamaCommand("check",
		usageLines("check")+"\nChecks whether MODEL works on this machine: six short agent tasks in a scratch folder,\n"+
			"with the time to first token, the speeds and the memory the model takes. The result is kept\n"+
			"for `prototyper models`.\n",
		args, io, endpoint.Register, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print the report as JSON") })
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprint(io.Err, hint("prototyper check: name one MODEL; run `prototyper check --help`\n"))
		return ExitUsage
	}
	server, err := endpoint.Server(common, cliRetry)
	if err != nil {
		printError(io.Err, "check", err)
		return ExitUsage
	}
	if server.OpenAI() == nil {
		client, _ := server.Client()
		local, ok := startCommandOllama(ctx, io, "check", client.URL(), common)
		if !ok {
			return ExitFailed
		}
		defer local.stop()
	}
	opts := modelcheck.Options{Model: pos[0], Residency: OllamaResidency(server)}
	if !asJSON {
		opts.Progress = func(c modelcheck.CaseResult) {
			mark := "pass"
			if !c.Passed {
				mark = "FAIL: " + Sanitize(c.Why)
			}
			fmt.Fprintf(io.Err, "  %-26s %s\n", c.Name, mark)
		}
	}
	rep, err := modelcheck.Run(ctx, server, opts)
	if err != nil {
		return ollamaFailure(ctx, io, "check", err)
	}
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return ExitFailed
		}
		return keepCheck(io, common, rep)
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tPASSED\tCALLS\tWELL FORMED\tFIRST TOKEN\tPROMPT TOK/S\tANSWER TOK/S\tCONTEXT")
	row := func(name, passed string, m modelcheck.Measures) {
		used, size := vocab.TokenCounts(m.ContextTokens, m.NumCtx)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d ms\t%s\t%s\t%s/%s\n", name, passed, m.Calls, m.WellFormed,
			m.FirstTokenMs, vocab.Rate(m.PromptTokensPerSec), vocab.Rate(m.AnswerTokensPerSec), used, size)
	}
	for _, c := range rep.Cases {
		row(c.Name, yesNo(c.Passed), c.Measures)
	}
	row("all", fmt.Sprintf("%d/%d", rep.Passed, rep.Total), rep.Measures)
	if err := tw.Flush(); err != nil {
		return ExitFailed
	}
	fmt.Fprintf(io.Out, "%s on this machine: %s in %.1f s", Sanitize(rep.Model), checkBadge(rep.Record()), float64(rep.DurationMs)/1000)
	if rep.MemoryBytes > 0 {
		fmt.Fprintf(io.Out, ", %s loaded", humanBytes(rep.MemoryBytes))
	}
	fmt.Fprintln(io.Out)
	if rep.WrittenCalls {
		fmt.Fprintln(io.Out, "It writes its calls as text, and they work: its chats ask it for calls in that form.")
	}
	return keepCheck(io, common, rep)
}

// keepCheck stores rep for `prototyper models`. The store is opened only now, after the
// report is out: the check runs while the window holds the store, and says then that its
// result was not kept.
func keepCheck(io IO, common Common, rep modelcheck.Report) int {
	db, err := common.OpenDB(store.Options{})
	if err == nil {
		err = db.PutModelCheck(rep.Record())
		db.Close()
	}
	if err != nil {
		printError(io.Err, "check", fmt.Errorf("the result was not kept for `prototyper models`: %w", err))
		return ExitFailed
	}
	return ExitCompleted
}

// checkBadge is a check's result in a few words: "5/6, 14 tok/s".
func checkBadge(c store.ModelCheck) string {
	return fmt.Sprintf("%d/%d, %s", c.Passed, c.Total, vocab.TokenRate(c.AnswerTokensPerSec))
}

// OllamaResidency is the model check's view of an Ollama server: the model's quantization
// (/api/show) and the memory it takes loaded (/api/ps); unknown on another server.
func OllamaResidency(server *model.Server) func(ctx context.Context, name string) (string, int64) {
	return func(ctx context.Context, name string) (quant string, size int64) {
		client, _ := server.Client()
		if client == nil {
			return "", 0
		}
		if info, err := client.Show(ctx, name); err == nil {
			quant = info.QuantizationLevel
		}
		if running, err := client.Running(ctx); err == nil {
			for _, m := range running {
				if ollama.SameModel(m.Name, name) || ollama.SameModel(m.Model, name) {
					size = m.Size
				}
			}
		}
		return quant, size
	}
}
