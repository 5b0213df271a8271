package agentloop

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"prototyper/store"
	"prototyper/tools"
)

// What a request carries besides the chat: the system prompt and the tools' definitions.
//
// A model whose context is small reads them in their compact form (CompactSystemPrompt,
// tools.CompactDefinitions): the full form takes about 2k tokens (7.8 KB as a chat template
// renders it; the compact one half of that), a quarter of an 8k context and half of a 4k one
// (Ollama's default), room a small model needs for the files it reads; above 8k it is under an
// eighth, and the fuller wording helps the model more than the room would. The form follows
// from the context size in effect, which is fixed while the model stays loaded with it (a new
// size reloads it, and its cache goes), so every turn served from the same cache carries the
// same bytes.
//
// In the compact form, an MCP server's tools are offered to a chat only once the chat uses the
// server: the user named it, or one of its tools, in one of the chat's messages (as a word:
// "ask github", "@github", "echo it"), or the chat already called one of its tools. A server
// configured for every folder then costs a small context nothing in the chats that never speak
// of it; once it joins a chat it stays, so the requests after it begin the same way again. A
// larger context is offered every server the folder allows, as the user configured them: a
// model there has the room, and a user who never names a server still expects its tools.

// compactAtMost is the largest context, in tokens, whose requests carry the compact form.
const compactAtMost = 8192

// CompactSystemPrompt is DefaultSystemPrompt's compact form.
const CompactSystemPrompt = "You are Prototyper. Build what the user asks in their workspace folder " +
	"with the tools; paths are relative to it. When done, answer briefly."

// compactForm reports whether a request with a context of numCtx tokens carries the compact
// form (0: the server's default, which is small).
func compactForm(numCtx int) bool { return numCtx <= compactAtMost }

// formSystem is system, a system prompt that begins with the Config's base prompt, in the
// form compact says: the default prompt has a compact form, a prompt of the Config's own is
// sent as written.
func formSystem(system, base string, compact bool) string {
	if !compact || base != DefaultSystemPrompt {
		return system
	}
	return CompactSystemPrompt + strings.TrimPrefix(system, base)
}

// formDefinitions are defs as a request of the chat whose messages are history carries them,
// in the form compact says.
func formDefinitions(defs []tools.Definition, history []store.Message, compact bool) []tools.Definition {
	if compact && len(defs) > 0 {
		return tools.CompactDefinitions(usedServerTools(defs, history))
	}
	return defs
}

// usedServerTools are defs without the MCP servers' tools the chat whose messages are
// history does not use (see above).
func usedServerTools(defs []tools.Definition, history []store.Message) []tools.Definition {
	names := map[string][]string{} // by server: its name and its tools' names, as a user may say them
	for _, d := range defs {
		if s, ok := tools.ServerOf(d.Name); ok {
			names[s] = append(names[s], strings.TrimPrefix(d.Name, tools.ServerToolPrefix+s+"__"))
		}
	}
	if len(names) == 0 {
		return defs
	}
	used := map[string]bool{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			if s, ok := tools.ServerOf(c.Name); ok {
				used[s] = true
			}
		}
		if m.Role != store.RoleUser {
			continue
		}
		for s, said := range names {
			if !used[s] {
				used[s] = namesWord(m.Content, s) || slices.ContainsFunc(said, func(t string) bool { return namesWord(m.Content, t) })
			}
		}
	}
	out := make([]tools.Definition, 0, len(defs))
	for _, d := range defs {
		if s, ok := tools.ServerOf(d.Name); !ok || used[s] {
			out = append(out, d)
		}
	}
	return out
}

// namesWord reports whether text holds word, letter case aside, not as part of a longer word.
func namesWord(text, word string) bool {
	text, word = strings.ToLower(text), strings.ToLower(word)
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' }
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !inWord(before) && !inWord(after) {
			return true
		}
		i = start + 1
	}
}
