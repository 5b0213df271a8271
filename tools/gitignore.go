package tools

import (
	"path"
	"strings"
)

// search_files leaves out what the workspace's .gitignore files ignore, as git and the search
// tools people know do. The rules are git's (gitignore(5)):
//
//   - a blank line, or one starting with #, is no pattern; trailing spaces are dropped unless
//     escaped with a backslash, which also escapes a leading # or !;
//   - ! makes a pattern take back what an earlier one ignored; the last pattern that matches a
//     path decides, and a deeper .gitignore comes after the ones above it;
//   - a pattern ending in / matches folders only;
//   - a pattern holding a / (other than at its end) is matched from the folder of its
//     .gitignore; one without is matched against the name, at any depth below that folder;
//   - * and ? match anything but /, [a-z] and [!a-z] a character of a class, and ** a whole
//     run of folders ("**/x", "x/**", "a/**/b").
//
// A folder that is ignored is not entered, so nothing under it is found again by a ! pattern
// (git does the same). .git/info/exclude and the user's global excludes are not read.

// ignoreRules are the patterns of one .gitignore file.
type ignoreRules struct {
	base  string // the folder that holds the file, relative to the workspace ("." at its top)
	rules []ignoreRule
}

type ignoreRule struct {
	segs     []string // the pattern cut at each /
	negate   bool
	dirOnly  bool
	anchored bool // matched from base, rather than against the name at any depth
}

// parseGitignore reads the patterns of the .gitignore file in folder base.
func parseGitignore(base string, data []byte) *ignoreRules {
	r := &ignoreRules{base: base}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimUnescapedSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var rule ignoreRule
		if line[0] == '!' {
			rule.negate, line = true, line[1:]
		}
		if strings.HasSuffix(line, "/") {
			rule.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		rule.anchored = strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		for _, seg := range strings.Split(line, "/") {
			if seg == "" {
				continue // a doubled slash
			}
			if strings.Contains(seg, "**") && seg != "**" {
				seg = strings.ReplaceAll(seg, "**", "*") // ** inside a name is *
			}
			rule.segs = append(rule.segs, classNegation(seg))
		}
		if len(rule.segs) > 0 {
			r.rules = append(r.rules, rule)
		}
	}
	return r
}

// trimUnescapedSpaces drops the trailing spaces of a line that no backslash escapes.
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// classNegation writes a class's [!…] as path.Match reads it, [^…].
func classNegation(seg string) string {
	if !strings.Contains(seg, "[!") {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '\\' && i+1 < len(seg) {
			b.WriteByte(c)
			i++
			b.WriteByte(seg[i])
			continue
		}
		if c == '[' && i+1 < len(seg) && seg[i+1] == '!' {
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// match reports whether the rule matches rel, a path below the rules' folder given relative
// to it.
func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if !r.anchored {
		ok, _ := path.Match(r.segs[0], path.Base(rel))
		return ok
	}
	return matchSegments(r.segs, strings.Split(rel, "/"))
}

// matchSegments matches a pattern's segments against a path's, ** standing for any number
// of them (at least one when it ends the pattern: "x/**" is what x holds, not x).
func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := range len(segs) + 1 {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// ignoreChain is the .gitignore files that apply in a folder, the deepest first.
type ignoreChain struct {
	rules  *ignoreRules
	parent *ignoreChain
}

// with adds the rules of a folder's own .gitignore (nil: none) below the chain.
func (c *ignoreChain) with(r *ignoreRules) *ignoreChain {
	if r == nil || len(r.rules) == 0 {
		return c
	}
	return &ignoreChain{rules: r, parent: c}
}

// ignored reports whether the .gitignore files ignore rel (relative to the workspace): the
// last pattern that matches it decides, the deepest file's last.
func (c *ignoreChain) ignored(rel string, isDir bool) bool {
	for ; c != nil; c = c.parent {
		sub := rel
		if b := c.rules.base; b != "." {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, b+"/"); !ok {
				continue
			}
		}
		for i := len(c.rules.rules) - 1; i >= 0; i-- {
			if r := &c.rules.rules[i]; r.match(sub, isDir) {
				return !r.negate
			}
		}
	}
	return false
}
