package store

import (
	"fmt"
	"regexp"
	"strings"

	"prototyper/tools"
)

// CommandRule is one "always allow" of run_command in a workspace: the calls whose command
// line starts with Pattern (a whole word or words) and chains no other command run without
// asking, with the host's network when Network.
type CommandRule struct {
	Pattern string `json:"pattern"`
	Network bool   `json:"network"`
}

// DefaultCommandDeny are the patterns no command may match when the user kept the default
// list (Settings.CommandDeny nil): commands that leave the workspace's purpose.
var DefaultCommandDeny = []string{"sudo", "su", "doas", "curl * | sh", "wget * | sh", "rm -rf /", "mkfs", "dd if="}

// CommandDenyList is the deny list in force: CommandDeny, or DefaultCommandDeny when unset.
func (s Settings) CommandDenyList() []string {
	if s.CommandDeny == nil {
		return DefaultCommandDeny
	}
	return s.CommandDeny
}

// DeniedCommand returns the pattern of the deny list that command matches, or "". A pattern
// matches where its words stand in the command line as words (anywhere in it: after a ;, a
// pipe, a subshell), each * standing for any text: "sudo" matches "make && sudo make
// install" but not "pseudo"; "curl * | sh" matches "curl -fsSL x.sh | sh".
func (s Settings) DeniedCommand(command string) string {
	for _, p := range s.CommandDenyList() {
		if re, err := denyPattern(p); err == nil && re.MatchString(command) {
			return p
		}
	}
	return ""
}

// CommandRule returns the rule of workspace that allows command, if any (the longest
// pattern, should several match).
func (s Settings) CommandRule(workspace, command string) (CommandRule, bool) {
	var best CommandRule
	found := false
	for _, r := range s.CommandRules[workspace] {
		if CommandMatches(r.Pattern, command) && (!found || len(r.Pattern) > len(best.Pattern)) {
			best, found = r, true
		}
	}
	return best, found
}

// chaining are the characters that make one command line run more than one command (a rule
// that holds one is refused; a line that holds one is never covered: tools.ChainsCommands).
const chaining = ";&|`\n\r"

// CommandMatches reports whether an allow pattern covers command: the line is the pattern,
// or the pattern followed by a space and arguments, and it chains no other command (no ;,
// &, |, backquote, $(, <(, >( or newline).
func CommandMatches(pattern, command string) bool {
	pattern, command = strings.Join(strings.Fields(pattern), " "), strings.TrimSpace(command)
	if pattern == "" || tools.ChainsCommands(command) {
		return false
	}
	norm := strings.Join(strings.Fields(command), " ")
	return norm == pattern || strings.HasPrefix(norm, pattern+" ")
}

// wordByte reports whether b is part of a word of a command line (a name or a path).
func wordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("_-/~", b) >= 0
}

// denyPattern compiles a deny pattern: words as words, * as any text, spaces as any spacing.
func denyPattern(p string) (*regexp.Regexp, error) {
	p = strings.Join(strings.Fields(p), " ")
	if p == "" {
		return nil, fmt.Errorf("an empty pattern")
	}
	var b strings.Builder
	if wordByte(p[0]) {
		b.WriteString(`(?:^|[^A-Za-z0-9_\-/~.])`)
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*':
			b.WriteString(`.*`)
		case c == ' ':
			if i > 0 && i+1 < len(p) && wordByte(p[i-1]) && wordByte(p[i+1]) {
				b.WriteString(`\s+`)
			} else {
				b.WriteString(`\s*`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if last := p[len(p)-1]; last != '=' && last != '*' {
		b.WriteString(`(?:$|[^A-Za-z0-9_\-/~])`)
	}
	return regexp.Compile(b.String())
}

// validateCommands checks the command rules and the deny list.
func (s Settings) validateCommands() error {
	for ws, rules := range s.CommandRules {
		for _, r := range rules {
			if strings.TrimSpace(r.Pattern) == "" {
				return &InvalidSettingError{"commandRules", fmt.Sprintf("a command rule of %s has no pattern: give the start of the commands to allow, such as \"npm test\"", ws)}
			}
			if strings.ContainsAny(r.Pattern, chaining) || strings.Contains(r.Pattern, "$(") {
				return &InvalidSettingError{"commandRules", fmt.Sprintf("the command rule %q chains commands (;, &, |, `, $( or a new line): allow each command by itself", r.Pattern)}
			}
		}
	}
	for _, p := range s.CommandDeny {
		if _, err := denyPattern(p); err != nil {
			return &InvalidSettingError{"commandDeny", "a pattern of the command deny list is empty: remove it, or give the start of the commands to refuse"}
		}
	}
	return nil
}
