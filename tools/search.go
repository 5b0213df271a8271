package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"regexp/syntax"
)

const maxMatchLine = 200 // characters of a matching line shown

func (w *Workspace) searchFilesTool() Tool {
	return New("search_files", "Search the text files of the workspace for a regular expression (Go RE2 syntax) "+
		"and return matching lines as path:line: text. Binary files, large files, .git, node_modules and what .gitignore ignores are skipped.").
		Param("pattern", "string", "Regular expression, e.g. \"func \\\\w+Handler\".", Required, MinLength(1)).
		Param("path", "string", "Folder (or file) to search, relative to the workspace folder.", Optional, Default(".")).
		Param("glob", "string", "Only files whose name matches this pattern, e.g. \"*.go\".", Optional).
		Param("ignore_case", "boolean", "Match letters of either case.", Optional, Default(false)).
		Param("max_results", "integer", "Stop after this many matching lines.", Optional, Minimum(1)).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			expr := call.Args.String("pattern")
			if call.Args.Bool("ignore_case", false) {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return Result{}, fmt.Errorf("%w: pattern %q is not a valid regular expression (%v); use Go RE2 syntax and escape special characters", ErrInvalidArguments, call.Args.String("pattern"), unwrapRegexpError(err))
			}
			glob := call.Args.String("glob")
			if _, err := path.Match(glob, ""); err != nil {
				return Result{}, fmt.Errorf("%w: glob %q is malformed; use a pattern such as \"*.go\"", ErrInvalidArguments, glob)
			}
			rel, err := cleanFolder(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			maxResults := min(call.Args.Int("max_results", w.opts.MaxSearchResults), w.opts.MaxSearchResults)
			s := newSearch(ctx, w, re, glob, maxResults, progress)
			fi, err := w.root.Stat(rel)
			if err != nil {
				return Result{}, w.explain(rel, err)
			}
			if err := s.app.refuseConfig(w, rel, fi); err != nil {
				return Result{}, err
			}
			if fi.IsDir() {
				err = s.tree(rel)
			} else {
				err = s.start(rel, fi)
			}
			if err != nil {
				return Result{}, err
			}
			return Result{Content: s.report(call.Args.String("pattern")), Details: &Details{Path: rel}}, nil
		})
}

func unwrapRegexpError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %q", se.Code, se.Expr)
	}
	return err.Error()
}
