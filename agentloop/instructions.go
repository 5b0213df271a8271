package agentloop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"prototyper/store"
)

// ProjectInstructionsFile is the file at a workspace's root whose text is added to the
// system prompt of every request of a chat in that workspace.
const ProjectInstructionsFile = "AGENTS.md"

// maxInstructionBytes caps what is read of the project's instructions: they are sent with
// every request, and a file this large is rather a document than instructions.
const maxInstructionBytes = 32 << 10

// instructions are the project's instructions of one workspace: AGENTS.md at its root and
// the text the settings keep for it.
type instructions struct {
	file     string // AGENTS.md's text (cut at maxInstructionBytes)
	settings string // the settings' text for the workspace
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

// readInstructions reads the project's instructions of workspace. A missing AGENTS.md, or
// one that is not a regular file (a folder, a pipe), is no instructions; the file is read
// through its link, as an editor would.
func readInstructions(workspace string, settings store.Settings) instructions {
	in := instructions{settings: strings.TrimSpace(settings.InstructionsFor(workspace))}
	if workspace == "" {
		return in
	}
	path := filepath.Join(workspace, ProjectInstructionsFile)
	// checked before opening: opening a pipe would wait for a writer
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return in
	}
	f, err := os.Open(path)
	if err != nil {
		return in
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return in
	}
	b, err := io.ReadAll(io.LimitReader(f, maxInstructionBytes+1))
	if err != nil && !errors.Is(err, io.EOF) {
		return in
	}
	text := strings.ToValidUTF8(string(b), "")
	if len(b) > maxInstructionBytes {
		text = cut(text, maxInstructionBytes) + fmt.Sprintf("\n\n(%s is longer; only its first %d KB are read.)", ProjectInstructionsFile, maxInstructionBytes>>10)
	}
	in.file = strings.TrimSpace(text)
	return in
}
