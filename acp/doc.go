// Package acp lets an editor drive Prototyper's agent through the Agent Client Protocol
// (JSON-RPC over stdio, github.com/coder/acp-go-sdk): `prototyper acp` runs [Serve] on its
// stdin and stdout.
//
// # Sessions are chats
//
// A session is a chat of the same store the window and `prototyper run` use: session/new
// creates a chat whose workspace is the session's cwd, session/load opens any chat by its id
// and replays its history as session updates, and a chat begun in the editor opens in the
// window (and the reverse). A prompt is one [agentloop.Agent.RunOnce] on that chat; the
// runs an approval resumes belong to the same prompt, which ends with the chat's last run.
//
// # Updates
//
// The agent's events reach the editor through an [events.Bridge] whose sink writes each
// event as session updates (thinking and answer chunks, tool calls pending → in_progress →
// completed or failed with their diffs and command output) and counts a batch as
// painted once its updates are written to stdout and flushed. So the bridge's paint rule
// holds across the protocol: a tool call's in_progress update is on the wire before its
// completed update, however fast the tool. A prompt's answer carries its runs' token usage.
//
// # Approvals and modes
//
// A call that waits for approval becomes a session/request_permission carrying the preview
// the window shows (the diff, the command line); its options are allow once, allow always
// (the same [agentloop.Agent.AllowAlways] or [agentloop.Agent.AllowCommand] the window
// calls, so the choice persists in the settings) and reject. The session's mode is the
// approval policy of its runs: the settings' per-tool policies (as in the window), ask for
// every tool, allow unasked what the settings ask about (never what they deny, nor a call
// the model wrote as text), or run none.
//
// # Files
//
// When the editor offers fs/read_text_file, read_file (and so every @-mention) reads a file's
// text through it, so that what the user typed and did not save is seen; the workspace's
// rules are checked on disk first. A write or an edit of a file whose editor text differs
// from the disk is refused (tools.ErrUnsaved) rather than throw that text away. Writes go to
// the disk first, where a call's checkpoint records them and undo puts them back; when the
// editor offers fs/write_text_file, the new text is then handed to it, which shows it as the
// agent's change.
//
// # Caveats
//
// The terminal capability is not used: commands run confined by the sandbox, their output
// sent as the call's content; a command's changes are not handed to the editor. MCP servers
// named in session/new are not started. The store is one process's at a time: `prototyper
// acp` and the window cannot have the same database open together.
package acp
