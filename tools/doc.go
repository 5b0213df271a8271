// Package tools holds what the agent can do: the [Tool] interface, a [Builder]
// for the common case, a [Registry] that validates every call's arguments
// against the tool's JSON Schema before anything runs, and the workspace file
// tools, which can never leave the folder the user opened.
//
// # Basics
//
// A tool describes itself with a [Definition] (name, description, JSON Schema,
// execution [Mode], default [Approval]) and runs with [Tool.Execute]. Most tools
// are a closure:
//
//	echo := tools.New("echo", "Repeat a text back.").
//		Param("text", "string", "The text to repeat.", tools.Required).
//		Handle(func(ctx context.Context, call tools.Call, progress tools.ProgressFunc) (tools.Result, error) {
//			return tools.Result{Content: call.Args.String("text")}, nil
//		})
//	reg, err := tools.NewRegistry(echo)
//	res := reg.Run(ctx, "echo", "call-1", json.RawMessage(`{"text":"hi"}`), nil)
//
// [Registry.Run] never panics and never returns a Go error: an unknown tool,
// arguments that do not match the schema (each violation listed with its JSON
// pointer), a failing or panicking tool all become a [Result] with IsError set
// and a sentence the model can act on.
//
// # Workspace tools
//
// [OpenWorkspace] opens one [os.Root] on the workspace folder; every file tool
// (write_file, edit_file, read_file, list_dir, make_dir, delete_path,
// search_files) resolves paths through it, one component at a time, so `..`,
// absolute paths and symbolic links that lead outside are refused by the
// resolution itself rather than by a prefix check on a cleaned string. Paths
// are relative to the workspace, in arguments and in results.
//
// Writes are atomic (temporary file in the same folder, fsync, rename, fsync of
// the folder), so a write never goes through a hard link into a file that also
// lives elsewhere. Writes into `.git` and into the app's own data folder
// ([WorkspaceOptions.ProtectedDirs]) are refused, also when reached through a
// symbolic link.
//
// # Caveats
//
//   - Files with more than one hard link are neither read nor written: the
//     other name may be outside the workspace. Deleting the name inside is
//     allowed.
//   - A symbolic link is never written through; write_file names its target so
//     the caller can write there instead.
//   - Like every path-based API, a folder moved out of the workspace by another
//     process while a write is in progress is followed to its new place;
//     os.Root documents the same limit.
package tools
