package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A pattern is an import path, or a path ending in /... for the path and everything under it.
// "prototyper" alone is package main.

// The window's session package: App's only neighbour, which may import what main may.
var session = []string{"prototyper/internal/desktop/..."}

// The rules. Each names the packages it is about and who may import them (allowedImporters),
// or what a package may import (allowedImports, of the project's packages and Wails).
var rules = []rule{
	{
		name:             "only main, the Wails sink and the window's session bind to Wails",
		targets:          []string{"github.com/wailsapp/wails/..."},
		allowedImporters: append([]string{"prototyper", "prototyper/events/wailssink"}, session...),
	},
	{
		name: "the model clients are the model layer's: only model/..., the agent loop, the command line, " +
			"the window's session and main use them",
		targets: []string{"prototyper/model/ollama/...", "prototyper/model/openai/...", "prototyper/model/managed/...",
			"prototyper/model/internal/..."},
		allowedImporters: append([]string{"prototyper/model/...", "prototyper/agentloop", "prototyper/internal/cli",
			"prototyper", "prototyper/tests"}, session...),
	},
	{
		name:             "one client never imports the other (what both share is in model/vocab or model/internal/httpstream)",
		packages:         []string{"prototyper/model/openai/..."},
		forbiddenImports: []string{"prototyper/model/ollama/..."},
		// its tests compare the client with the real Ollama's /v1
		exempt: []string{"prototyper/model/openai (test)"},
	},
	{
		name:             "one client never imports the other (what both share is in model/vocab or model/internal/httpstream)",
		packages:         []string{"prototyper/model/ollama/..."},
		forbiddenImports: []string{"prototyper/model/openai/..."},
	},
	{
		name:             "the store is imported by the rooms that keep or show chats, never by a client, the tools or the events",
		targets:          []string{"prototyper/store"},
		allowedImporters: append([]string{"prototyper", "prototyper/agentloop/...", "prototyper/model", "prototyper/internal/cli", "prototyper/store/...", "prototyper/tests", "prototyper/acp/...", "prototyper/modelcheck"}, session...),
	},
	{
		name:             "the agent loop is used by main, the command line, the window's session, the ACP server and the model check only",
		targets:          []string{"prototyper/agentloop/..."},
		allowedImporters: append([]string{"prototyper", "prototyper/agentloop/...", "prototyper/internal/cli", "prototyper/tests", "prototyper/acp/...", "prototyper/modelcheck"}, session...),
	},
	{
		name:             "the window's session is App's only neighbour: only main (and the cross-package tests) import it",
		targets:          session,
		allowedImporters: append([]string{"prototyper", "prototyper/tests"}, session...),
	},
	{
		name:     "the store imports no client, no MCP code, no agent: only the events' and the tools' types and the model layer's words",
		packages: []string{"prototyper/store"},
		allowedImports: []string{"prototyper/events", "prototyper/tools",
			"prototyper/model/vocab", "prototyper/store/..."},
	},
	{
		name:     "the model layer never imports the agent loop, the command line or the window",
		packages: []string{"prototyper/model/..."},
		allowedImports: []string{"prototyper/model/...", "prototyper/store", "prototyper/tools", "prototyper/internal/tether",
			"prototyper/internal/ollamatest", "prototyper/internal/testenv"},
	},
	{
		name:           "model/vocab is a leaf: it imports only the standard library",
		packages:       []string{"prototyper/model/vocab"},
		allowedImports: []string{},
	},
}

type rule struct {
	name string
	// targets and allowedImporters: an import of a target from any other package breaks it
	targets, allowedImporters []string
	// packages and allowedImports: an import by one of packages of a project package (or
	// Wails) not in allowedImports breaks it
	packages, allowedImports []string
	// packages and forbiddenImports: an import by one of packages of one of forbiddenImports
	// breaks it, unless the importer (its path, or "path (test)") is in exempt
	forbiddenImports, exempt []string
}

// pkg is one package of the module, with the imports of its code and of its tests.
type pkg struct {
	path                 string
	imports, testImports []string
}

// TestNoImportBreaksARoomsRule checks every import of every package of the module (its
// code's and its tests') against the rules.
func TestNoImportBreaksARoomsRule(t *testing.T) {
	for _, p := range modulePackages(t) {
		for _, v := range violations(p) {
			t.Error(v)
		}
	}
}

// TestAWrongArrowIsNamedWithItsRule: the checker itself, on imports that break each kind of
// rule.
func TestAWrongArrowIsNamedWithItsRule(t *testing.T) {
	for _, tc := range []struct {
		p    pkg
		want string
	}{
		{pkg{path: "prototyper/store", imports: []string{"prototyper/model/ollama"}},
			`prototyper/store imports prototyper/model/ollama: breaks "the model clients are the model layer's`},
		{pkg{path: "prototyper/store", imports: []string{"prototyper/tools/mcptools"}},
			`prototyper/store imports prototyper/tools/mcptools: breaks "the store imports no client`},
		{pkg{path: "prototyper/tools", imports: []string{"github.com/wailsapp/wails/v2/pkg/runtime"}},
			`prototyper/tools imports github.com/wailsapp/wails/v2/pkg/runtime: breaks "only main, the Wails sink`},
		{pkg{path: "prototyper/model/openai", imports: []string{"prototyper/model/ollama"}},
			`prototyper/model/openai imports prototyper/model/ollama: breaks "one client never imports the other`},
		{pkg{path: "prototyper/model", imports: []string{"prototyper/agentloop"}},
			`prototyper/model imports prototyper/agentloop: breaks "the agent loop is used by`},
		{pkg{path: "prototyper/model/ollama", imports: []string{"prototyper/model/openai"}},
			`prototyper/model/ollama imports prototyper/model/openai: breaks "one client never imports the other`},
		{pkg{path: "prototyper/model/vocab", imports: []string{"prototyper/events"}},
			`prototyper/model/vocab imports prototyper/events: breaks "model/vocab is a leaf`},
		{pkg{path: "prototyper/tools", testImports: []string{"prototyper/store"}},
			`prototyper/tools (test) imports prototyper/store: breaks "the store is imported by`},
		{pkg{path: "prototyper/tools", imports: []string{"prototyper/internal/desktop"}},
			`prototyper/tools imports prototyper/internal/desktop: breaks "the window's session is App's only neighbour`},
		{pkg{path: "prototyper/model/managed", imports: []string{"prototyper/preview"}},
			`prototyper/model/managed imports prototyper/preview: breaks "the model layer never imports`},
	} {
		got := strings.Join(violations(tc.p), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s importing %v: got\n%s\nwant a line starting %s", tc.p.path, append(tc.p.imports, tc.p.testImports...), got, tc.want)
		}
	}
	allowed := []pkg{
		{path: "prototyper/agentloop", imports: []string{"prototyper/model", "prototyper/store", "prototyper/model/vocab"}},
		{path: "prototyper/internal/desktop", imports: []string{"github.com/wailsapp/wails/v2/pkg/runtime", "prototyper/agentloop"}},
		{path: "prototyper/model/openai", testImports: []string{"prototyper/model/ollama"}},
		{path: "prototyper/store", imports: []string{"prototyper/events", "prototyper/model/vocab", "bytes"}},
	}
	for _, p := range allowed {
		if v := violations(p); len(v) > 0 {
			t.Errorf("an allowed import is refused: %v", v)
		}
	}
}

// An import breaks the rules it breaks, and no other: a package outside the model layer that
// imports a client hears of the rule about the clients' importers, not of the one about a
// client importing the other.
func TestAWrongArrowIsNamedOnceByTheRuleItBreaks(t *testing.T) {
	got := violations(pkg{path: "prototyper/preview", imports: []string{"prototyper/model/ollama"}})
	if len(got) != 1 || !strings.Contains(got[0], `breaks "the model clients are the model layer's`) {
		t.Errorf("prototyper/preview importing prototyper/model/ollama: got\n%s\nwant only the model clients' rule", strings.Join(got, "\n"))
	}
}

// violations lists, one sentence each, the imports of p that break a rule.
func violations(p pkg) []string {
	var out []string
	check := func(importer string, imports []string) {
		for _, imp := range imports {
			if !projectOrWails(imp) {
				continue
			}
			for _, r := range rules {
				if matchesAny(imp, r.targets) && !matchesAny(importer, r.allowedImporters) && !matchesAny(p.path, r.targets) {
					out = append(out, fmt.Sprintf("%s imports %s: breaks %q (allowed importers: %s)", importer, imp, r.name, strings.Join(r.allowedImporters, ", ")))
				}
				if matchesAny(p.path, r.packages) && r.forbiddenImports == nil && !matchesAny(imp, r.allowedImports) {
					out = append(out, fmt.Sprintf("%s imports %s: breaks %q (allowed imports: %s)", importer, imp, r.name, strings.Join(r.allowedImports, ", ")))
				}
				if matchesAny(p.path, r.packages) && matchesAny(imp, r.forbiddenImports) && !matchesAny(importer, r.exempt) {
					out = append(out, fmt.Sprintf("%s imports %s: breaks %q", importer, imp, r.name))
				}
			}
		}
	}
	check(p.path, p.imports)
	check(p.path+" (test)", p.testImports)
	return out
}

// projectOrWails reports whether the rules are about imp: a package of this module, or Wails
// (the standard library and the other modules are free).
func projectOrWails(imp string) bool {
	return imp == "prototyper" || strings.HasPrefix(imp, "prototyper/") || strings.HasPrefix(imp, "github.com/wailsapp/")
}

// matchesAny reports whether path (or "path (test)", which a pattern naming the test matches
// first) matches one of patterns.
func matchesAny(path string, patterns []string) bool {
	for _, pat := range patterns {
		if path == pat {
			return true
		}
	}
	path = strings.TrimSuffix(path, " (test)")
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, "/..."); ok && (path == base || strings.HasPrefix(path, base+"/")) {
			return true
		}
		if path == pat {
			return true
		}
	}
	return false
}

// modulePackages lists the module's packages with their imports, as `go list` sees them with
// the window's build tag.
func modulePackages(tb testing.TB) []pkg {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-tags=webkit2_41", "-e",
		"-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{join .TestImports \",\"}},{{join .XTestImports \",\"}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 3 {
			continue
		}
		pkgs = append(pkgs, pkg{path: f[0], imports: split(f[1]), testImports: split(f[2])})
	}
	if len(pkgs) < 10 {
		tb.Fatalf("go list found %d packages in %s: not the module", len(pkgs), root)
	}
	return pkgs
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
