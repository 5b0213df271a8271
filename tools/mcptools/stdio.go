package mcptools

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"prototyper/internal/tether"
)

// terminateGrace is how long a stdio server has to exit once its input closed, and again once
// asked with SIGTERM, before it is killed with what it started.
const terminateGrace = time.Second

// startStdio starts a stdio server's command tied to the app ([tether]: it and whatever it
// starts end with the app, however the app ends), with the environment of [serverEnv], and
// returns its process and the connection to it.
func startStdio(cfg ServerConfig) (*tether.Process, io.ReadWriteCloser, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = serverEnv(cfg, os.Environ())
	cmd.Dir = cfg.Dir
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = nil // the server's log goes nowhere: its failures come back through the protocol
	p, err := tether.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, err
	}
	return p, &stdioConn{ReadCloser: outR, in: inW, p: p}, nil
}

// stdioConn is the connection to a stdio server. Closing it closes the server's input, waits
// for the server to exit, asks it with SIGTERM, and at last kills it with all it started.
type stdioConn struct {
	io.ReadCloser
	in *os.File
	p  *tether.Process
}

func (c *stdioConn) Write(b []byte) (int, error) { return c.in.Write(b) }

func (c *stdioConn) Close() error {
	err := c.in.Close()
	if !c.exits(terminateGrace) {
		c.p.Signal(syscall.SIGTERM)
		if !c.exits(terminateGrace) {
			c.p.Kill()
		}
	}
	c.p.Kill() // what it started and left behind
	c.ReadCloser.Close()
	return err
}

func (c *stdioConn) exits(within time.Duration) bool {
	select {
	case <-c.p.Done():
		return true
	case <-time.After(within):
		return false
	}
}

// sharedVariables are the variables of the app's environment every stdio server gets: where
// programs are found, the user's home and name, the temporary folder, the locale and the
// time zone. Nothing else of the app's environment reaches a server (its API keys, say):
// what a server needs beyond them its configuration names in "env".
var sharedVariables = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LANGUAGE"}

// serverEnv is the environment of a stdio server: the [sharedVariables] and LC_* variables of
// appEnv, then the server's "env". In the user's own files and the settings a value's ${NAME}
// takes the app's variable NAME (secrets stay out of the files); in a workspace's file values
// are taken as written, so that a folder cannot send the app's secrets anywhere.
func serverEnv(cfg ServerConfig, appEnv []string) []string {
	var env []string
	for _, kv := range appEnv {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LC_") || contains(sharedVariables, name) {
			env = append(env, kv)
		}
	}
	for k, v := range cfg.Env {
		env = append(env, k+"="+cfg.expand(v))
	}
	return env
}

// expand is v with ${NAME} taken from the app's environment, for a server of the user's own
// files; a workspace's value as written.
func (c ServerConfig) expand(v string) string {
	if c.FromWorkspace {
		return v
	}
	return os.ExpandEnv(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
