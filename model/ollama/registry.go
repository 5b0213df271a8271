package ollama

import (
	"errors"
	"fmt"
	"strings"
)

// ErrRegistryUnreachable: a pull failed because the server could not reach the model
// registry (the computer is offline, a proxy or DNS is down). A *RegistryUnreachableError.
var ErrRegistryUnreachable = errors.New("the model registry cannot be reached")

// RegistryUnreachableError is a pull that failed before any download because the server
// could not reach the registry. It wraps the server's [StreamError].
type RegistryUnreachableError struct {
	Model  string
	Reason string // the network's last word, e.g. "no such host"
	Err    *StreamError
}

func (e *RegistryUnreachableError) Error() string {
	return fmt.Sprintf("Ollama could not download %s because it cannot reach the model registry (%s) — this computer seems to be offline; once it is online, pull the model again here or with `prototyper pull %s`",
		e.Model, e.Reason, e.Model)
}
func (e *RegistryUnreachableError) Unwrap() error        { return e.Err }
func (e *RegistryUnreachableError) Is(target error) bool { return target == ErrRegistryUnreachable }

// networkFailures are the words with which Go's network stack, quoted by the server, says a
// host could not be reached.
var networkFailures = []string{
	"no such host", "connection refused", "network is unreachable", "no route to host",
	"i/o timeout", "tls handshake timeout", "server misbehaving", "connection reset by peer",
	"proxyconnect", "temporary failure in name resolution",
}

// pullError is the error of a pull whose stream said msg: a [RegistryUnreachableError] when
// the server could not reach the registry, else the [StreamError].
func pullError(model, msg string, line int) error {
	se := &StreamError{Message: msg, Line: line}
	lower := strings.ToLower(msg)
	for _, f := range networkFailures {
		if strings.Contains(lower, f) {
			reason := msg
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				reason = msg[i+2:]
			}
			return &RegistryUnreachableError{Model: model, Reason: strings.TrimSpace(reason), Err: se}
		}
	}
	return se
}
