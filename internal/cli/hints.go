package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"prototyper/model/managed"
	"prototyper/model/ollama"
)

// A hint the command line prints runs as printed on the machine it runs on: it names this
// program the way the shell finds it, and the ollama program the app would start by its
// path. The clients' errors speak to the window as well as to the terminal; [terminalWords]
// says them in the terminal's words.

// programName is how a hint names this program: `prototyper` when that is what the shell
// finds on PATH (or when the program is not called prototyper, as in tests and `go run`),
// else its own path, e.g. build/bin/prototyper before `make install`.
var programName = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil || filepath.Base(exe) != "prototyper" {
		return "prototyper"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath("prototyper"); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil && real == exe {
			return "prototyper"
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, exe); err == nil && !strings.HasPrefix(rel, "..") {
			exe = "./" + rel
		}
	}
	return shellWord(exe)
})

// hint is text with `prototyper …` spelled as the shell here finds this program. Apply it to
// a format string, never to what came from a model or a server.
func hint(text string) string {
	name := programName()
	if name == "prototyper" {
		return text
	}
	return strings.ReplaceAll(text, "`prototyper ", "`"+name+" ")
}

// shellWord is s as one word of a shell command line.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '=' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// serveCommand is the command line that starts an Ollama server at raw on this machine: the
// ollama program the app would start, by its path, with OLLAMA_HOST when the address is not
// Ollama's default. It returns [managed.ErrNotLocal] for an address on another machine, and
// [managed.ErrNoBinary] when there is no ollama program here.
func serveCommand(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", managed.ErrNotLocal
	}
	listen, err := managed.ListenAddress(u)
	if err != nil {
		return "", err
	}
	bin, err := managed.Find(managed.Locations{})
	if err != nil {
		return "", err
	}
	cmd := shellWord(bin) + " serve"
	if listen != "127.0.0.1:11434" {
		cmd = "OLLAMA_HOST=" + listen + " " + cmd
	}
	return cmd, nil
}

// terminalWords is err said for a terminal: the errors whose words are the window's (a
// button to press, "here") or name a program by a name the shell may not find get a sentence
// of their own; any other error says its own message.
func terminalWords(err error) string {
	var notRunning *ollama.NotRunningError
	var offline *ollama.RegistryUnreachableError
	var start *managed.StartError
	switch {
	case errors.As(err, &notRunning):
		cmd, err := serveCommand(notRunning.URL)
		switch {
		case errors.Is(err, managed.ErrNotLocal):
			return fmt.Sprintf("Ollama is not running at %s: start it on that machine, or point --ollama at a server that runs", notRunning.URL)
		case err != nil:
			return (&noOllamaError{URL: notRunning.URL}).Error()
		}
		return fmt.Sprintf("Ollama is not running at %s: start it with `%s` (Prototyper starts it itself unless "+
			"the settings say you run Ollama yourself), or point --ollama at a server that runs", notRunning.URL, cmd)
	case errors.As(err, &offline):
		return hint(fmt.Sprintf("Ollama could not download %s because it cannot reach the model registry (%s): "+
			"this computer seems to be offline; once it is online, run `prototyper pull %s` again", offline.Model, offline.Reason, offline.Model))
	case errors.As(err, &start) && errors.Is(start.Err, managed.ErrNoAnswer):
		return fmt.Sprintf("Ollama, started by Prototyper at %s (%s serve), did not answer within %s and was stopped: "+
			"see its log %s, or start it yourself with `%s serve` and run the command again", start.URL, start.Binary,
			start.Timeout, start.LogPath, shellWord(start.Binary))
	}
	return hint(err.Error())
}

// printFlags prints the flags of fs as the usage lines spell them, `--name VALUE`, with
// what each does below it (flag.PrintDefaults writes one dash).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}
