package tools

import "testing"

func TestGitignoreRulesMatchAsGitDoes(t *testing.T) {
	root := parseGitignore(".", []byte(`# build output
/build/
*.log
!keep.log
docs/**/*.tmp
**/cache
secret\ 
\#hash
\!bang
out/**
[!a-z]*.bak
 
`))
	sub := parseGitignore("pkg", []byte("local.txt\n/only-here\n!*.log\n"))
	chain := (*ignoreChain)(nil).with(root).with(sub)
	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"build", true, true},
		{"build", false, false}, // a folder pattern does not match a file
		{"src/build", true, false},
		{"a.log", false, true},
		{"deep/down/b.log", false, true},
		{"keep.log", false, false},
		{"docs/x.tmp", false, true},
		{"docs/a/b/x.tmp", false, true},
		{"other/docs/x.tmp", false, false},
		{"cache", true, true},
		{"a/b/cache", true, true},
		{"secret ", false, true},
		{"secret", false, false},
		{"#hash", false, true},
		{"!bang", false, true},
		{"out", true, false}, // out/** is what out holds
		{"out/x", false, true},
		{"out/x/y", true, true},
		{"1.bak", false, true},
		{"a.bak", false, false},
		{"pkg/local.txt", false, true},
		{"local.txt", false, false}, // pkg's rules hold under pkg only
		{"pkg/deeper/local.txt", false, true},
		{"pkg/only-here", false, true},
		{"pkg/deeper/only-here", false, false},
		{"pkg/c.log", false, false}, // the deeper file's !*.log takes it back
	}
	for _, c := range cases {
		if got := chain.ignored(c.path, c.isDir); got != c.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", c.path, c.isDir, got, c.want)
		}
	}
	if (*ignoreChain)(nil).ignored("a.log", false) {
		t.Error("no .gitignore ignores nothing")
	}
}
