package modelcheck

import (
	"os"
	"path/filepath"
	"prototyper/events"
	"strings"
)

// A Case is one thing the model must do: a prompt in a workspace holding Files, judged by
// Judge on what the run left behind.
type Case struct {
	Name   string
	Prompt string
	// Files are the workspace's files before the run: path → content.
	Files map[string]string
	// Judge says whether the run did what the prompt asked, and if not why (one sentence).
	Judge func(r Outcome) (bool, string)
}

// Outcome is what a case's run left: its workspace, its final answer, its calls.
type Outcome struct {
	Workspace  string
	Answer     string // the text of the last assistant message
	StopReason string
	Calls      []Call
	// MostInOneTurn is the most calls one assistant message made.
	MostInOneTurn int
}

// file returns the content of the workspace's file path and whether it exists.
func (o Outcome) file(path string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(o.Workspace, path))
	return string(b), err == nil
}

// called reports whether a call to the tool name ran and succeeded.
func (o Outcome) called(name string) bool {
	for _, c := range o.Calls {
		if c.Name == name && c.OK {
			return true
		}
	}
	return false
}

// fileHolds judges a case by one file: it must exist and hold want (trimmed).
func fileHolds(o Outcome, path, want string) (bool, string) {
	got, ok := o.file(path)
	switch {
	case !ok:
		return false, path + " was not created"
	case strings.TrimSpace(got) != want:
		return false, path + " does not hold what was asked"
	}
	return true, ""
}

// Cases are the suite, in the order it runs.
func Cases() []Case {
	return []Case{
		{
			Name:   "create a file",
			Prompt: "Create a file named hello.txt containing exactly: hello",
			Judge:  func(o Outcome) (bool, string) { return fileHolds(o, "hello.txt", "hello") },
		},
		{
			Name:   "edit one place",
			Prompt: "In config.txt, change the port from 8080 to 9090. Change nothing else.",
			Files:  map[string]string{"config.txt": "name = demo\nport = 8080\nhost = localhost\n"},
			Judge: func(o Outcome) (bool, string) {
				got, _ := o.file("config.txt")
				if got != "name = demo\nport = 9090\nhost = localhost\n" {
					return false, "config.txt is not the file with only its port changed"
				}
				return true, ""
			},
		},
		{
			Name:   "read then answer",
			Prompt: "Read the file secret.txt and answer with the code word it holds, nothing else.",
			Files:  map[string]string{"secret.txt": "The code word is: lantern\n"},
			Judge: func(o Outcome) (bool, string) {
				switch {
				case !o.called("read_file"):
					return false, "secret.txt was not read"
				case !strings.Contains(strings.ToLower(o.Answer), "lantern"):
					return false, "the answer does not hold the code word"
				}
				return true, ""
			},
		},
		{
			Name: "two calls in one turn",
			Prompt: "Create two files at once, with two tool calls in one reply: a.txt containing exactly: a " +
				"and b.txt containing exactly: b",
			Judge: func(o Outcome) (bool, string) {
				if ok, why := fileHolds(o, "a.txt", "a"); !ok {
					return false, why
				}
				if ok, why := fileHolds(o, "b.txt", "b"); !ok {
					return false, why
				}
				if o.MostInOneTurn < 2 {
					return false, "the two files were written in separate turns"
				}
				return true, ""
			},
		},
		{
			Name:   "recover from a tool error",
			Prompt: "Read the file notes.txt. If it does not exist, create it containing exactly: created",
			Judge: func(o Outcome) (bool, string) {
				failed := false
				for _, c := range o.Calls {
					failed = failed || !c.OK
				}
				if !failed {
					return false, "no call failed, so nothing was recovered from"
				}
				return fileHolds(o, "notes.txt", "created")
			},
		},
		{
			Name:   "stop when done",
			Prompt: "Create done.txt containing exactly: done. Then stop and say that you are done.",
			Judge: func(o Outcome) (bool, string) {
				if ok, why := fileHolds(o, "done.txt", "done"); !ok {
					return false, why
				}
				if o.StopReason != events.StopCompleted {
					return false, "the run did not end by itself (" + o.StopReason + ")"
				}
				writes := 0
				for _, c := range o.Calls {
					if c.Name == "write_file" {
						writes++
					}
				}
				if writes > 1 {
					return false, "the file was written more than once"
				}
				return true, ""
			},
		},
	}
}
