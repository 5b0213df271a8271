package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"
)

const maxMatchLine = 200 // characters of a matching line shown

func (w *Workspace) searchFilesTool() Tool {
	return New("search_files", "Search the text files of the workspace for a regular expression (Go RE2 syntax) "+
		"and return matching lines as path:line: text. Binary files, large files, .git and node_modules are skipped.").
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
			s := &search{w: w, re: re, glob: glob, max: maxResults, progress: progress, app: w.appFiles()}
			fi, err := w.root.Stat(rel)
			if err != nil {
				return Result{}, w.explain(rel, err)
			}
			if err := s.app.refuseConfig(w, rel, fi); err != nil {
				return Result{}, err
			}
			if fi.IsDir() {
				err = s.dir(ctx, rel)
			} else {
				err = s.file(ctx, rel, fi)
			}
			if err != nil {
				return Result{}, err
			}
			content := strings.Join(s.lines, "\n")
			if len(s.lines) == 0 {
				content = fmt.Sprintf("No matches for %q in %d files.", call.Args.String("pattern"), s.files)
			}
			if s.full {
				content += fmt.Sprintf("\n[stopped after %d matches; narrow the pattern, the path or the glob]", len(s.lines))
			}
			if s.skippedBig+s.skippedBinary > 0 {
				content += fmt.Sprintf("\n[skipped %d binary and %d large files]", s.skippedBinary, s.skippedBig)
			}
			return Result{Content: content, Details: &Details{Path: rel}}, nil
		})
}

type search struct {
	w                         *Workspace
	re                        *regexp.Regexp
	glob                      string
	max                       int
	progress                  ProgressFunc
	app                       *appFiles // never searched: the database, its lock and backups, the configuration folders
	lines                     []string
	full                      bool
	files                     int
	skippedBinary, skippedBig int
}

func (s *search) dir(ctx context.Context, dir string) error {
	entries, err := s.w.readDir(ctx, dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if s.full {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return cancelledf(err, "the search was cancelled after %d files", s.files)
		}
		child := path.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0: // never followed: no loops, no second copies
		case e.IsDir():
			if fi, err := e.Info(); err == nil {
				if _, ok := s.app.configFolderAt(fi); ok {
					continue
				}
			}
			if !skipped(e.Name()) {
				if err := s.dir(ctx, child); err != nil {
					return err
				}
			}
		case e.Type().IsRegular():
			if s.glob != "" {
				if ok, _ := path.Match(s.glob, e.Name()); !ok {
					continue
				}
			}
			fi, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			if err := s.file(ctx, child, fi); err != nil {
				return err
			}
		}
	}
	return nil
}

// file searches one file. FIFOs, sockets and devices are skipped without
// being opened; so are the app's own files.
func (s *search) file(ctx context.Context, rel string, fi fs.FileInfo) error {
	if err := regularFile(rel, fi); err != nil {
		return nil // hard-linked or special files are not searched
	}
	if _, ok := s.app.file(fi); ok {
		return nil
	}
	if fi.Size() > s.w.opts.MaxSearchFile {
		s.skippedBig++
		return nil
	}
	data, err := readLimited(ctx, s.w.root, rel, rel, s.w.opts.MaxSearchFile)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return cancelledf(err, "the search was cancelled after %d files", s.files)
	case errors.Is(err, errOverLimit):
		s.skippedBig++
		return nil
	case err != nil:
		return nil // vanished, unreadable, or replaced by a special file: not a reason to stop the search
	}
	if isBinary(data) {
		s.skippedBinary++
		return nil
	}
	s.files++
	if s.files%200 == 0 {
		s.progress(map[string]any{"filesSearched": s.files, "matches": len(s.lines)})
	}
	if !s.re.Match(data) {
		return nil
	}
	n := 0
	for len(data) > 0 {
		n++
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return cancelledf(err, "the search was cancelled after %d files", s.files)
			}
		}
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !s.re.Match(line) {
			continue
		}
		text := strings.TrimRight(string(line), "\r")
		if r := []rune(text); len(r) > maxMatchLine {
			text = string(r[:maxMatchLine]) + "…"
		}
		s.lines = append(s.lines, fmt.Sprintf("%s:%d: %s", rel, n, text))
		if len(s.lines) == s.max {
			s.full = true
			return nil
		}
	}
	return nil
}

func unwrapRegexpError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %q", se.Code, se.Expr)
	}
	return err.Error()
}
