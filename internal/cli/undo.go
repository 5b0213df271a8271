package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
)

// undoCommand is `prototyper undo --chat ID [--run ID] [--force] [--keep] [--json]` and
// `prototyper redo --chat ID [--force] [--keep] [--json]`: the window's Undo and Redo, on
// the same store and through the same code (agentloop's Undo and Redo).
func undoCommand(redo bool) func(ctx context.Context, args []string, io IO) int {
	name := "undo"
	if redo {
		name = "redo"
	}
	return func(ctx context.Context, args []string, io IO) int {
		var common Common
		var chat, run, message string
		var force, keep, asJSON bool
		fs := commandFlags(name, io, &common)
		fs.StringVar(&chat, "chat", "", "the chat `ID` (`prototyper chats list` shows them)")
		if !redo {
			fs.StringVar(&run, "run", "", "undo this run `ID` (default: the newest run that changed files)")
			fs.StringVar(&message, "message", "", "undo the runs of this user message `ID` and every later run")
		}
		fs.BoolVar(&force, "force", false, "overwrite files that changed since they were written")
		fs.BoolVar(&keep, "keep", false, "keep your version of a file that changed since beside the restored one (NAME.mine)")
		fs.BoolVar(&asJSON, "json", false, "print what was done as JSON")
		fs.Usage = func() {
			if redo {
				fmt.Fprint(io.Err, usageLines("redo")+"\nTakes back the chat's last undo.\n\n")
			} else {
				fmt.Fprint(io.Err, usageLines("undo")+"\n"+
					"Puts back the files a run changed, as they were before it.\n\n")
			}
			printFlags(io.Err, fs)
		}
		extra, err := parseInterleaved(fs, args)
		if err != nil {
			return parseExit(err)
		}
		switch {
		case chat == "":
			fmt.Fprintf(io.Err, hint("prototyper %s: give --chat ID (`prototyper chats list` shows them)\n"), name)
			return ExitUsage
		case len(extra) > 0:
			fmt.Fprintf(io.Err, "prototyper %s: unexpected argument %q\n", name, extra[0])
			return ExitUsage
		case run != "" && message != "":
			fmt.Fprintf(io.Err, "prototyper %s: give --run or --message, not both\n", name)
			return ExitUsage
		}
		fail := func(err error) int {
			printError(io.Err, name, err)
			return ExitFailed
		}
		db, err := common.OpenDB(store.Options{})
		if err != nil {
			return fail(err)
		}
		defer db.Close()
		agent := agentloop.Wire(db, nil, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{})
		defer agent.Shutdown(context.WithoutCancel(ctx))
		opts := agentloop.UndoOptions{RunID: run, FromMessage: message, Force: force, Keep: keep}
		var res agentloop.UndoResult
		if redo {
			res, err = agent.Redo(ctx, chat, opts)
		} else {
			res, err = agent.Undo(ctx, chat, opts)
		}
		if err != nil {
			var ce *agentloop.ConflictError
			if errors.As(err, &ce) {
				for _, c := range ce.Conflicts {
					fmt.Fprintf(io.Err, "prototyper %s: %s %s\n", name, Sanitize(c.Path), Sanitize(c.Reason))
				}
				fmt.Fprintf(io.Err, "prototyper %s: nothing was changed; run it again with --keep to keep your version beside the restored one (NAME.mine), or --force to overwrite it\n", name)
				return ExitFailed
			}
			return fail(err)
		}
		if asJSON {
			b, _ := json.Marshal(res)
			fmt.Fprintln(io.Out, string(b))
			return ExitCompleted
		}
		verb := "Undone"
		if redo {
			verb = "Redone"
		}
		fmt.Fprintf(io.Out, "%s: %s.\n", verb, undoneWhat(res)) // as the window says it
		for _, k := range res.Kept {
			fmt.Fprintf(io.Out, "Your version is kept in %s\n", Sanitize(k))
		}
		for _, n := range res.NotPutBack {
			fmt.Fprintf(io.Out, "%s.\n", Sanitize(n.Sentence))
		}
		if !redo {
			fmt.Fprintf(io.Out, hint("Take it back with `prototyper redo --chat %s`\n"), chat)
		}
		return ExitCompleted
	}
}

// undoneWhat says what an undo or a redo did: the paths put back, those it removed (their
// creation taken back), and the chat's earlier folders it did that in.
func undoneWhat(res agentloop.UndoResult) string {
	gone := map[string]bool{}
	for _, p := range res.Removed {
		gone[p] = true
	}
	var back, removed []string
	said := map[string]bool{} // a name put back in two of the chat's folders is said once
	for _, p := range res.Paths {
		if said[p] {
			continue
		}
		said[p] = true
		if gone[p] {
			removed = append(removed, p)
		} else {
			back = append(back, p)
		}
	}
	var parts []string
	if len(back) > 0 || len(removed) == 0 {
		parts = append(parts, FirstNonBlank(strings.Join(back, ", "), "nothing")+" put back")
	}
	if len(removed) > 0 {
		parts = append(parts, strings.Join(removed, ", ")+" removed")
	}
	what := strings.Join(parts, "; ")
	if len(res.Elsewhere) > 0 {
		earlier := strings.Join(res.Elsewhere, ", ") + ", its earlier folder"
		if len(res.Elsewhere) > 1 {
			earlier += "s"
		}
		if res.InChatFolder {
			earlier = "the chat's folder and in " + earlier
		}
		what += " (in " + earlier + ")"
	}
	return Sanitize(what)
}
