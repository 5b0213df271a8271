// Package mcptools offers the tools of MCP servers to the agent, through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): each server's tools become [tools.Tool]s named
// mcp__SERVER__TOOL, validated by their own input schemas, asking for approval by default.
//
// # Basics
//
// Servers are configured in files of the mcpServers shape other apps use ([LoadFiles]): a
// stdio server has a command with args and env, a streamable HTTP server a url with headers.
// A [Manager] starts each server on first use, within [StartTimeout]; one that fails to start,
// dies or hangs is one sentence in its [Status] and in the call's result, never a stuck run.
// [Manager.Close] ends every server process (the app calls it on exit).
package mcptools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"prototyper/tools"
)

// ServerConfig is one server of an mcpServers file.
type ServerConfig struct {
	// Command, Args and Env start a stdio server.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// URL and Headers reach a streamable HTTP server.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is "stdio", "http" or "streamable-http"; "" is told from Command or URL.
	Type string `json:"type,omitempty"`
	// Disabled servers are listed but never started.
	Disabled bool `json:"disabled,omitempty"`
	// Timeout is how many seconds a call of one of the server's tools may go without an
	// answer or a progress notification, in seconds (0: [CallTimeout]).
	Timeout float64 `json:"timeout,omitempty"`
	// Source is the file that configured the server.
	Source string `json:"-"`
	// FromWorkspace marks a server of a workspace's own file: it starts only once the user
	// allowed the file ([Set.Trust]), and its values are taken as written (no ${NAME}).
	FromWorkspace bool `json:"-"`
	// Dir is the folder a stdio server starts in: its workspace for a workspace's own server
	// (so that ./server.js is the workspace's, as the user was shown), "" for the app's own.
	Dir string `json:"-"`
}

// Config is a set of servers by name.
type Config map[string]ServerConfig

// FileName is the name of the file in the user config folder (global) and in a workspace's
// .prototyper folder.
const FileName = "mcp.json"

// WorkspaceFile is the server file of a workspace.
func WorkspaceFile(workspace string) string {
	return filepath.Join(workspace, ".prototyper", FileName)
}

// UserFile is the global server file in the user config folder ("" when there is none).
func UserFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "prototyper", FileName)
}

// SettingsSource is the Source of the servers configured in the settings.
const SettingsSource = "the settings"

// LoadFiles reads the server files in order, a later file's server replacing an earlier
// one of the same name. A file that does not exist is skipped; one that cannot be read is
// an error naming it.
func LoadFiles(paths ...string) (Config, error) {
	out := Config{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		raw, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the MCP server file %s: %v", p, err)
		}
		cfg, err := Parse(raw, p)
		if err != nil {
			return nil, err
		}
		for name, s := range cfg {
			out[name] = s
		}
	}
	return out, nil
}

// Parse reads a document of the mcpServers shape ({"mcpServers": {"NAME": {…}}}; "servers"
// is read too) that came from source (a file, or [SettingsSource]).
func Parse(raw []byte, source string) (Config, error) {
	var f struct {
		MCPServers map[string]ServerConfig `json:"mcpServers"`
		Servers    map[string]ServerConfig `json:"servers"` // the shape some editors use
	}
	var wrongType *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	if err := json.Unmarshal(raw, &f); errors.As(err, &wrongType) && wrongType.Field == "" {
		return nil, fmt.Errorf("the MCP servers of %s should be a JSON object, not %s: %s", source, jsonKinds[wrongType.Value], shapeExample)
	} else if errors.As(err, &wrongType) {
		return nil, fmt.Errorf("the MCP servers of %s: %s", source, typeSentence(wrongType))
	} else if errors.As(err, &syntax) {
		return nil, fmt.Errorf("the MCP servers of %s are not valid JSON: %s (names and texts go in double quotes, with no comma after the last one); %s", source, syntaxPlace(raw, syntax), shapeExample)
	} else if err != nil {
		return nil, fmt.Errorf("the MCP servers of %s are not valid JSON: %s", source, shapeExample)
	}
	out := Config{}
	for _, servers := range []map[string]ServerConfig{f.Servers, f.MCPServers} {
		for name, s := range servers {
			s.Source = source
			if err := s.check(name); err != nil {
				return nil, fmt.Errorf("the MCP servers of %s: %w", source, err)
			}
			out[name] = s
		}
	}
	return out, nil
}

// shapeExample ends the sentences about a document of the wrong shape: what it holds.
const shapeExample = `the servers go under "mcpServers", e.g. {"mcpServers": {"NAME": {"command": …}}}`

// ErrNoServerList is the error of a settings document that names no list of servers.
var ErrNoServerList = errors.New("no MCP server list")

// ParseSettings reads the MCP document of the settings, as [Parse] does, and refuses one that
// holds keys but no server list ("mcpServers" or "servers"): the user wrote it for Prototyper,
// so its servers pasted without the wrapper, or under a misspelt key, are a mistake, not "no
// servers". The files of other apps may carry other keys, so [Parse] alone reads them.
func ParseSettings(raw []byte) (Config, error) {
	cfg, err := Parse(raw, SettingsSource)
	if err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil || len(keys) == 0 {
		return cfg, nil
	}
	if _, ok := keys["mcpServers"]; ok {
		return cfg, nil
	}
	if _, ok := keys["servers"]; ok {
		return cfg, nil
	}
	found := slices.Sorted(maps.Keys(keys))
	for i, k := range found {
		found[i] = strconv.Quote(k)
	}
	return nil, kindError{ErrNoServerList, fmt.Sprintf("no server was found in the MCP servers of %s (they hold %s): %s", SettingsSource, strings.Join(found, ", "), shapeExample)}
}

// kindError is a sentence that errors.Is matches with its kind.
type kindError struct {
	kind error
	text string
}

func (e kindError) Error() string { return e.text }
func (e kindError) Unwrap() error { return e.kind }

// syntaxPlace says where a document stops being JSON, as an editor counts: line and column
// (the parser's own words say what it expected, which helps no one who did not write it).
func syntaxPlace(raw []byte, e *json.SyntaxError) string {
	if e.Offset >= int64(len(raw)) {
		return "they end too early (a } or ] is missing)"
	}
	before := raw[:max(e.Offset-1, 0)]
	line := 1 + strings.Count(string(before), "\n")
	col := len([]rune(string(before[strings.LastIndexByte(string(before), '\n')+1:]))) + 1
	return fmt.Sprintf("something unexpected at line %d, column %d", line, col)
}

// jsonKinds name the kinds of JSON values as a user reads them.
var jsonKinds = map[string]string{"string": "a text", "number": "a number", "array": "a list", "object": "an object", "bool": "true or false"}

// typeSentence says which field holds a value of the wrong kind ("timeout" a text, say).
func typeSentence(e *json.UnmarshalTypeError) string {
	want := map[reflect.Kind]string{reflect.Float64: "number", reflect.Slice: "array", reflect.Map: "object", reflect.Struct: "object",
		reflect.String: "string", reflect.Bool: "bool"}[e.Type.Kind()]
	field := e.Field[strings.LastIndexByte(e.Field, '.')+1:]
	return fmt.Sprintf("%q should be %s, not %s", field, jsonKinds[want], jsonKinds[e.Value])
}

// check says what is wrong with a server's configuration.
func (s ServerConfig) check(name string) error {
	switch {
	case !validName(name):
		return fmt.Errorf("the server name %q may hold only letters, digits, - and _ (its tools are named mcp__%s__TOOL)", name, name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %s needs a command (a stdio server) or a url (a streamable HTTP server)", name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %s has both a command and a url: keep one", name)
	case s.Timeout < 0:
		return fmt.Errorf("server %s has a negative timeout: give the seconds a call may wait, or leave it out for %s", name, CallTimeout)
	}
	return nil
}

// Launch is what a server runs, as the user is asked to allow it: a command with its
// arguments, or a url; the variables it is given, each NAME=value (a variable decides what
// runs as much as the command: PATH, LD_PRELOAD, NODE_OPTIONS), and the names of its headers.
type Launch struct {
	Name    string   `json:"name"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args"`
	URL     string   `json:"url,omitempty"`
	Env     []string `json:"env"`
	Headers []string `json:"headers"`
}

// WorkspaceServers is a workspace's own server file as read once: the hash of its exact
// bytes and of the files its commands name, which the user's answer is recorded with, and what each of its servers runs.
type WorkspaceServers struct {
	Workspace string   `json:"workspace"` // absolute
	File      string   `json:"file"`
	Hash      string   `json:"hash"` // SHA-256 of the file's bytes and of the files its commands name, hex
	Servers   []Launch `json:"servers"`

	config Config
}

// ReadWorkspaceServers reads the server file of workspace (an absolute path); nil when it has
// none. A file that cannot be read or parsed is an error naming it.
func ReadWorkspaceServers(workspace string) (*WorkspaceServers, error) {
	path := WorkspaceFile(workspace)
	raw, err := readServerFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(raw, path)
	if err != nil {
		return nil, err
	}
	hash := sha256.New()
	hash.Write(raw)
	ws := &WorkspaceServers{Workspace: workspace, File: path, Servers: []Launch{}, config: Config{}}
	for _, name := range cfg.Names() {
		sc := cfg[name]
		sc.FromWorkspace = true
		sc.Dir = workspace
		hashNamedFiles(hash, workspace, name, sc)
		ws.config[name] = sc
		l := Launch{Name: name, Command: visible(sc.Command), Args: []string{}, URL: visible(sc.URL),
			Env: []string{}, Headers: slices.Sorted(maps.Keys(sc.Headers))}
		for _, a := range sc.Args {
			l.Args = append(l.Args, visible(a))
		}
		for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
			l.Env = append(l.Env, visible(k)+"="+quoteArg(visible(sc.Env[k])))
		}
		if l.Headers == nil {
			l.Headers = []string{}
		}
		ws.Servers = append(ws.Servers, l)
	}
	ws.Hash = hex.EncodeToString(hash.Sum(nil))
	return ws, nil
}

// maxNamedFile bounds a workspace file a server's command or arguments name whose bytes the
// user's answer covers: a script or a small program, not a data set.
const maxNamedFile = 64 << 20

// hashNamedFiles adds to h the bytes of every file inside workspace that a stdio server's
// command or arguments name (./server.js, scripts/mcp.py): what the user allows is what runs,
// so a script changed since — by the agent, whose tools can write it, or by a pull — is asked
// about again like a changed server file. A name that is no file in the workspace adds its
// absence, so a script made later is asked about too.
func hashNamedFiles(h io.Writer, workspace, server string, sc ServerConfig) {
	if sc.Command == "" {
		return
	}
	for i, word := range append([]string{sc.Command}, sc.Args...) {
		if word == "" || strings.HasPrefix(word, "-") || (i == 0 && !strings.ContainsRune(word, '/')) {
			continue // a flag, or a command looked up on PATH
		}
		p := word
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		rel, err := filepath.Rel(workspace, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // outside the workspace: the user's own machine, not the folder's
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00%s\x00", server, i, rel)
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			fmt.Fprint(h, "absent")
			continue
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxNamedFile {
			fmt.Fprint(h, "not a plain file")
		} else {
			sum := sha256.New()
			io.Copy(sum, io.LimitReader(f, maxNamedFile))
			fmt.Fprintf(h, "%x", sum.Sum(nil))
		}
		f.Close()
	}
}

// maxWorkspaceServerFile bounds a workspace's server file: a few servers take a few KB.
const maxWorkspaceServerFile = 1 << 20

// readServerFile reads a workspace's server file, which is the folder's: a pipe or a device
// (a link to /dev/zero) is refused without waiting on it, a file over maxWorkspaceServerFile
// without reading it whole.
func readServerFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a pipe opens without a writer
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the MCP server file %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read the MCP server file %s: %v", path, err)
	}
	tooLarge := fmt.Errorf("the MCP server file %s is too large for a server file (over %d KB): it is not read, and none of its servers starts", path, maxWorkspaceServerFile>>10)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("the MCP server file %s is not a plain file (a pipe, a device, or a link to one): it is not read, and none of its servers starts", path)
	case fi.Size() > maxWorkspaceServerFile:
		return nil, tooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxWorkspaceServerFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the MCP server file %s: %v", path, err)
	}
	if len(raw) > maxWorkspaceServerFile {
		return nil, tooLarge
	}
	return raw, nil
}

// visible is s as the user is asked about it: each character that shows nothing or changes
// how the text around it reads is a mark naming it, <U+202E> ([tools.Visible]).
func visible(s string) string { return tools.Visible(s) }

// Lines are the servers as a terminal shows them: one line each, NAME: the command with its
// arguments (each quoted when it holds a space), or the url.
func (w *WorkspaceServers) Lines() []string {
	var out []string
	for _, l := range w.Servers {
		what := l.URL
		if l.Command != "" {
			parts := []string{quoteArg(l.Command)}
			for _, a := range l.Args {
				parts = append(parts, quoteArg(a))
			}
			what = "runs " + strings.Join(parts, " ")
		} else {
			what = "connects to " + what
		}
		if len(l.Env) > 0 {
			what += " (with " + strings.Join(l.Env, ", ") + ")"
		}
		out = append(out, l.Name+": "+what)
	}
	return out
}

func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"'\\$`") {
		return strconv.Quote(s)
	}
	return s
}

// Names returns the servers' names in order.
func (c Config) Names() []string {
	return slices.Sorted(maps.Keys(c))
}

func validName(s string) bool {
	if s == "" || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
