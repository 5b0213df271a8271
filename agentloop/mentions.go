package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"prototyper/store"
	"prototyper/tools"
)

// Files named with @path in a message: their content goes with the message, read by the
// workspace's own read_file tool (so every rule of the workspace applies: nothing outside
// it, none of the app's own files, no pipes, text only, large files in part).

// mentionPattern finds @path at the start of a word.
var mentionPattern = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)

// maxMentions caps the files one message attaches.
const maxMentions = 10

// ErrBadMention is returned (wrapped, with the reason) for an @path that names something
// in the workspace that cannot be attached.
var ErrBadMention = errors.New("a file named with @ cannot be attached")

// mentionedPaths returns the @paths of prompt, in order, once each, without the
// punctuation that ends a sentence.
func mentionedPaths(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(prompt, -1) {
		p := strings.TrimRight(m[1], ".,;:!?)]}'\"")
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// readMentions reads the files prompt names with @path through tb's read_file. A name that
// is no file of the workspace stays text (an @name is not always a path); a file that
// cannot be attached refuses the message with the reason.
func readMentions(ctx context.Context, tb Toolbox, prompt string) ([]store.FileAttachment, error) {
	paths := mentionedPaths(prompt)
	if len(paths) == 0 {
		return nil, nil
	}
	var out []store.FileAttachment
	for _, p := range paths {
		args, _ := json.Marshal(map[string]string{"path": p})
		valid, err := tb.Validate("read_file", args)
		if err != nil {
			if errors.Is(err, tools.ErrUnknownTool) {
				return nil, nil // no read_file: mentions stay text
			}
			continue
		}
		res := tb.Exec(ctx, tools.Call{ID: "mention", Name: "read_file", Args: valid}, nil)
		if res.IsError {
			if strings.Contains(res.Content, "does not exist") { // the read_file's words for a missing path
				continue
			}
			return nil, fmt.Errorf("%w: @%s: %s", ErrBadMention, p, res.Content)
		}
		if len(out) == maxMentions {
			return nil, fmt.Errorf("%w: a message attaches at most %d files; name the others in another message", ErrBadMention, maxMentions)
		}
		out = append(out, store.FileAttachment{Path: p, Content: res.Content})
	}
	return out, nil
}

// withFiles is a user's message as the model reads it: its text, then each attached file.
func withFiles(m store.Message) store.Message {
	if len(m.Files) == 0 {
		return m
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, f := range m.Files {
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s\n</file>", f.Path, strings.TrimRight(f.Content, "\n"))
	}
	m.Content = b.String()
	return m
}
