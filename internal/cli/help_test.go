package cli

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	synopsisLine = regexp.MustCompile(`^(?:Usage: |       |  )prototyper (\S.*)$`)
	flagInText   = regexp.MustCompile(`--([a-z][a-z-]*)`)
	flagListLine = regexp.MustCompile(`^  (-+)([a-z][a-z-]*)\b`)
)

// helpOf is what `prototyper ARGS… --help` prints: its synopses (the usage lines, without
// "prototyper") and the flags of its flag list, as written ("--name" or "-name").
func helpOf(t *testing.T, args ...string) (synopses, flags []string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append(args, "--help"), IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitCompleted {
		t.Fatalf("%v --help: exit %d: %s", args, code, errOut.String())
	}
	for _, line := range strings.Split(out.String()+errOut.String(), "\n") {
		if m := synopsisLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "  prototyper") {
			synopses = append(synopses, m[1])
		}
		if m := flagListLine.FindStringSubmatch(line); m != nil {
			flags = append(flags, m[1]+m[2])
		}
	}
	return synopses, flags
}

// commandTable is the top-level help's synopses, by command ("" for the window's).
func commandTable(t *testing.T) map[string][]string {
	t.Helper()
	var out bytes.Buffer
	Usage(&out)
	table := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		m := synopsisLine.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(line, "  prototyper ") {
			continue
		}
		name := strings.Fields(m[1])[0]
		if strings.HasPrefix(name, "[") {
			name = ""
		}
		table[name] = append(table[name], m[1])
	}
	return table
}

func TestTheCommandTableAndEachCommandsHelpAgree(t *testing.T) {
	table := commandTable(t)
	for _, s := range subcommands {
		t.Run(s.name, func(t *testing.T) {
			own, flags := helpOf(t, s.name)
			if s.name == "mcp" { // its flags are those of its two verbs
				_, list := helpOf(t, "mcp", "list")
				_, allow := helpOf(t, "mcp", "allow")
				flags = append(list, allow...)
			}
			if !slices.Equal(own, table[s.name]) {
				t.Errorf("`prototyper --help` says\n  %s\nbut `prototyper %s --help` says\n  %s",
					strings.Join(table[s.name], "\n  "), s.name, strings.Join(own, "\n  "))
			}
			for _, f := range flags {
				if !strings.HasPrefix(f, "--") {
					t.Errorf("the flag list spells %s with one dash; the usage lines say --%s", f, strings.TrimLeft(f, "-"))
				}
			}
			for _, line := range own {
				for _, m := range flagInText.FindAllStringSubmatch(line, -1) {
					if !slices.Contains(flags, "--"+m[1]) {
						t.Errorf("the usage line %q names --%s, which is not in its flag list %v", line, m[1], flags)
					}
				}
			}
			// the table says --ollama URL and --db FILE apply to every command
			for _, common := range []string{"--ollama", "--db"} {
				if !slices.Contains(flags, common) {
					t.Errorf("%s is not among the flags of %s: %v", common, s.name, flags)
				}
			}
		})
	}
	t.Run("the window", func(t *testing.T) {
		for _, line := range table[""] {
			for _, m := range flagInText.FindAllStringSubmatch(line, -1) {
				var errOut bytes.Buffer
				if _, err := ParseDesktopFlags([]string{"--" + m[1], "http://127.0.0.1:1"}, &errOut); err != nil {
					t.Errorf("the window's usage names --%s, which it does not take: %v %s", m[1], err, errOut.String())
				}
			}
		}
	})
}
