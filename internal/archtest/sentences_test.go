package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The sentences of the Go packages that the window shows, scanned by a rule:
//
//   - An error's text (the string literal given to errors.New or fmt.Errorf) follows Go's
//     convention, lower case and no full stop, because it is wrapped; the window capitalises it
//     where it arrives (frontend/src/state/sentence.ts, its one owner). It holds no Markdown
//     but a command to type in backticks, the terminal's habit (the command line's hints spell
//     `prototyper …` as the shell finds it), which the window shows in quotes: the backticks come
//     in pairs, and there is no "**" or "](".
//   - A sentence shown as it is (the string given to a field Message, Note or Sentence, and what
//     a function named …Sentence returns) starts with a capital, or with a name it formats
//     (a verb such as %s), and holds no Markdown either.
//
// The command line's own words (internal/cli) are the terminal's and are not scanned here;
// nor are tests, generators and the frontend, which its own scan covers.

// sentenceFields are the fields whose string is a sentence shown as it is.
var sentenceFields = map[string]bool{"Message": true, "Note": true, "Sentence": true}

// skippedDirs are the folders, from the module root, whose strings the window never shows.
var skippedDirs = map[string]bool{"frontend": true, "tests": true, "internal/cli": true, "scripts": true,
	"build": true, "internal/desktop/gensettings": true, "internal/ollamatest": true, "internal/testenv": true}

type sentence struct {
	pos   token.Position
	text  string
	shown bool // a sentence shown as it is, rather than an error's text
}

func TestEverySentenceTheWindowShowsIsPlainAndStartsWithACapital(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := goSentences(t, root)
	if len(found) < 100 {
		t.Fatalf("found only %d sentences: the scan no longer sees the code", len(found))
	}
	for _, s := range found {
		if why := sentenceFault(s); why != "" {
			t.Errorf("%s: %s: %q", s.pos, why, s.text)
		}
	}
}

func TestTheSentenceRuleCatchesWhatItIsAbout(t *testing.T) {
	for _, c := range []struct {
		s     sentence
		fault bool
	}{
		{sentence{text: "no model chosen: pick one", shown: false}, false},
		{sentence{text: "run `make run` from the repository"}, false},
		{sentence{text: "run `make run from the repository"}, true},
		{sentence{text: "see the **log**"}, true},
		{sentence{text: "read [the guide](https://x)"}, true},
		{sentence{text: "the run stopped", shown: true}, true},
		{sentence{text: "The run stopped.", shown: true}, false},
		{sentence{text: "%s cannot see images", shown: true}, false},
		{sentence{text: "“%s” is not a folder", shown: true}, false},
	} {
		if got := sentenceFault(c.s) != ""; got != c.fault {
			t.Errorf("%q (shown %v): fault %v, want %v", c.s.text, c.s.shown, got, c.fault)
		}
	}
}

// sentenceFault says what is wrong with s, or "".
func sentenceFault(s sentence) string {
	for _, md := range []string{"**", "]("} {
		if strings.Contains(s.text, md) {
			return "Markdown shown as raw text (" + md + ")"
		}
	}
	if strings.Count(s.text, "`")%2 != 0 {
		return "a backtick without its pair, shown as raw text"
	}
	if s.shown {
		r := []rune(strings.TrimSpace(s.text))
		if len(r) > 0 && unicode.IsLower(r[0]) {
			return "a sentence shown as it is starts in lower case"
		}
	}
	return ""
}

// goSentences parses every non-test Go file of the module outside skippedDirs.
func goSentences(t *testing.T, root string) []sentence {
	t.Helper()
	var out []sentence
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skippedDirs[rel] || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, fileSentences(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileSentences(fset *token.FileSet, f *ast.File) []sentence {
	var out []sentence
	add := func(e ast.Expr, shown bool) {
		if lit, ok := leadingString(e); ok {
			out = append(out, sentence{pos: fset.Position(e.Pos()), text: lit, shown: shown})
		}
		// The rest of a concatenation or a format's arguments: Markdown only, as a part of a sentence.
		ast.Inspect(e, func(m ast.Node) bool {
			if lit, ok := m.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Pos() != e.Pos() {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, sentence{pos: fset.Position(lit.Pos()), text: s})
				}
			}
			_, fn := m.(*ast.FuncLit)
			return !fn
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if name := callName(n); (name == "errors.New" || name == "fmt.Errorf") && len(n.Args) > 0 {
				add(n.Args[0], false)
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && sentenceFields[k.Name] {
				add(n.Value, true)
			}
		case *ast.FuncDecl:
			if n.Recv != nil && n.Name.Name == "Error" && n.Body != nil {
				returns(n.Body, func(e ast.Expr) { add(e, false) })
			}
			if strings.HasSuffix(n.Name.Name, "Sentence") && n.Body != nil {
				returns(n.Body, func(e ast.Expr) { add(e, true) })
			}
		}
		return true
	})
	return out
}

// returns calls fn with each result returned by body (not by a function literal inside it).
func returns(body *ast.BlockStmt, fn func(ast.Expr)) {
	ast.Inspect(body, func(m ast.Node) bool {
		if r, ok := m.(*ast.ReturnStmt); ok {
			for _, e := range r.Results {
				fn(e)
			}
		}
		_, lit := m.(*ast.FuncLit)
		return !lit
	})
}

// leadingString is the string a sentence expression starts with: a literal, the left end of a
// concatenation, or the format of fmt.Sprintf.
func leadingString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			if s, ok := leadingString(e.X); ok {
				return s, true
			}
			return leadingString(e.Y) // a name, then the sentence about it
		}
	case *ast.CallExpr:
		if callName(e) == "fmt.Sprintf" && len(e.Args) > 0 {
			return leadingString(e.Args[0])
		}
	case *ast.ParenExpr:
		return leadingString(e.X)
	}
	return "", false
}

func callName(c *ast.CallExpr) string {
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			return x.Name + "." + sel.Sel.Name
		}
	}
	return ""
}
