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
// arguments that are not a JSON object or do not match the schema (each
// violation listed with its JSON pointer), a failing or panicking tool all
// become a [Result] with IsError set and a sentence the model can act on.
// [ObjectArgs] gives the arguments as the JSON object to store and send back
// to the model, whatever arrived.
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
// The app's database, its lock and its backups
// ([WorkspaceOptions.ProtectedFiles]) are never read, written, edited or
// deleted, wherever the database lives (the workspace folder itself
// included): they are recognised by name and by device and inode, so neither
// a symbolic nor a hard link gets round the check, and a folder that holds
// the database cannot be deleted.
//
// The app's configuration folders ([WorkspaceOptions.ConfigDirs]: a workspace's
// [WorkspaceConfigDir], the user's config folder) are refused whole to every
// tool, also before they exist, by name and by identity; a listing shows one
// without its entries. [Workspace.ReadText] reads a file for the app (the
// project's instructions) under the same rules as read_file.
//
// FIFOs, sockets and devices are refused before they are opened (an open of
// a FIFO would wait for ever): every existing path is checked first, opened
// without blocking, and checked again on the open file. list_dir names them;
// search_files skips them. search_files also leaves out .git, node_modules and
// what the workspace's .gitignore files ignore (gitignore.go), and says so; it
// searches with a few workers, opening each file by its name in its folder's
// open descriptor (searchwalk.go). Long work (reading, searching, listing, writing)
// looks at the context between steps, so a cancelled call returns promptly.
// edit_file computes the size of its result from the number of matches and
// refuses a result over the limit before building it.
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
