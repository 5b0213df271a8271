package agentloop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// ProjectInstructionsFile is the file at a workspace's root whose text is added to the
// system prompt of every request of a chat in that workspace.
const ProjectInstructionsFile = "AGENTS.md"

// maxInstructionBytes caps what is read of the project's instructions: they are sent with
// every request, and a file this large is rather a document than instructions.
const maxInstructionBytes = 32 << 10

// CodeInstructionsRefused is the code of the `error` event that says, in the chat, that the
// workspace's AGENTS.md was not read and why (a link that leads outside the workspace, a
// pipe, a binary or too large file); the run goes on without it.
const CodeInstructionsRefused = "instructions_refused"

// instructions are the project's instructions of one workspace: AGENTS.md at its root and
// the text the settings keep for it.
type instructions struct {
	file     string // AGENTS.md's text
	settings string // the settings' text for the workspace
	refused  string // the sentence saying why AGENTS.md was not read; "" when it was, or is not there
}

// sources names where the instructions came from, for the message that shows them.
func (in instructions) sources() string {
	var s []string
	if in.file != "" {
		s = append(s, ProjectInstructionsFile)
	}
	if in.settings != "" {
		s = append(s, "settings")
	}
	return strings.Join(s, ", ")
}

// text is the instructions as the model reads them, after the system prompt, and as the
// chat shows them.
func (in instructions) text() string {
	var b strings.Builder
	if in.file != "" {
		fmt.Fprintf(&b, "# Project instructions (%s at the workspace's root)\n\n%s\n", ProjectInstructionsFile, strings.TrimSpace(in.file))
	}
	if in.settings != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# Project instructions (the user's settings for this workspace)\n\n%s\n", strings.TrimSpace(in.settings))
	}
	return b.String()
}

// systemPrompt is base followed by the instructions.
func (in instructions) systemPrompt(base string) string {
	t := in.text()
	if t == "" {
		return base
	}
	return base + "\n\n" + t
}

// readInstructions reads the project's instructions of workspace. AGENTS.md is read as
// read_file reads a file, through the workspace's confinement and the app's own files
// refused (a.cfg.Files): only when that would read it whole, as text; otherwise refused says
// why. A missing AGENTS.md is no instructions.
func (a *Agent) readInstructions(ctx context.Context, workspace string, settings store.Settings) instructions {
	in := instructions{settings: strings.TrimSpace(settings.InstructionsFor(workspace))}
	if workspace == "" {
		return in
	}
	ws, err := tools.OpenWorkspace(workspace, a.cfg.Files)
	if err != nil {
		return in // the run says why the folder cannot be used
	}
	defer ws.Close()
	text, err := ws.ReadText(ctx, ProjectInstructionsFile, maxInstructionBytes)
	switch {
	case errors.Is(err, tools.ErrNotFound):
	case err != nil:
		in.refused = instructionsRefusal(workspace, err)
	default:
		in.file = strings.TrimSpace(strings.ToValidUTF8(text, ""))
	}
	return in
}

// instructionsRefusal is the sentence the chat shows for an AGENTS.md that was not read:
// why, and what the user can do.
func instructionsRefusal(workspace string, err error) string {
	const not = ProjectInstructionsFile + " was not read, so the model runs without it: "
	switch {
	case errors.Is(err, tools.ErrOutsideWorkspace):
		if target, lerr := os.Readlink(filepath.Join(workspace, ProjectInstructionsFile)); lerr == nil {
			return not + fmt.Sprintf("it is a link to %s, outside the workspace; put the instructions in a file inside the workspace", target)
		}
		return not + "it leads outside the workspace; put the instructions in a file inside the workspace"
	case errors.Is(err, tools.ErrProtectedPath):
		return not + "it leads to Prototyper's own files; put the instructions in a file of their own"
	case errors.Is(err, tools.ErrHardLink):
		return not + "it is a hard link, a second name of a file that may lie outside the workspace; make it a file of its own"
	case errors.Is(err, tools.ErrWrongKind):
		return not + "it is not a regular file (a folder, a pipe or a device); make it a plain text file"
	case errors.Is(err, tools.ErrTooLarge):
		return not + fmt.Sprintf("it is over the %d KB instructions may take; shorten it", maxInstructionBytes>>10)
	case errors.Is(err, tools.ErrBinaryFile):
		return not + "it is a binary file, not text; write the instructions as plain text"
	case errors.Is(err, fs.ErrPermission):
		return not + "permission denied; let your account read it"
	}
	return not + err.Error()
}

// instructionsNotice says, as an `error` event in the chat, why the workspace's AGENTS.md
// was not read, and keeps the sentence with the run, so that the chat reopened says it again.
func (r *run) instructionsNotice() {
	if r.instructionsRefused == "" || r.awaitCommit() != nil {
		return
	}
	if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{Code: CodeInstructionsRefused, Message: r.instructionsRefused}); err != nil {
		r.emitError(err)
	}
	no := false
	r.emit(events.Event{Type: events.Error, Code: CodeInstructionsRefused, Message: r.instructionsRefused, Retryable: &no})
}
