package sandbox

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"prototyper/internal/tether"
)

// ErrServerEnded is returned by [Server.Dial] and [Server.Forward] once the server's command
// has ended or was stopped.
var ErrServerEnded = errors.New("the server has stopped")

// Server is a long-running command started by [Start]: a development server that listens on
// a loopback port of its own network namespace. It runs until [Server.Stop], the end of the
// context given to Start, or its own exit. The host reaches its ports only through
// [Server.Forward].
type Server struct {
	cancel  context.CancelFunc
	done    chan struct{}
	res     *Result // set before done closes
	err     error
	netPid  int // a host pid of a process in the server's network namespace
	userPid int // unshare's: it holds the user namespace the app's user owns, above the server's

	mu        sync.Mutex // guards dialer, forwards and ended
	dialer    *dialer
	forwards  map[int]net.Listener
	ended     bool
	listeners sync.WaitGroup
}

// Start runs "sh -c command" confined like [Run], but returns as soon as the command runs.
// The command has a network namespace of its own with only a loopback interface, whatever
// opts.Network says, and no timeout. What it writes into the workspace stays in its own
// copy-on-write layer and is dropped when it ends: a server's build caches never change the
// workspace unseen ([ServerResult.Changed] counts them). Cancelling ctx stops it.
func Start(ctx context.Context, command string, opts Options, fn OutputFunc) (*Server, error) {
	if opts.Unconfined {
		return nil, &UnavailableError{Reason: "A server cannot run unconfined: its port is reached only through the sandbox's own network."}
	}
	opts.Network = false
	opts.Timeout = 0
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{cancel: cancel, done: make(chan struct{}), forwards: map[int]net.Listener{}}
	started := make(chan int, 1)
	opts.started = func(pid int) { started <- pid }
	go func() {
		defer close(s.done)
		s.res, s.err = Run(ctx, command, opts, fn)
		s.shutForwards()
	}()
	var unsharePid int
	select {
	case unsharePid = <-started:
	case <-s.done:
		cancel()
		if s.err == nil {
			s.err = ErrServerEnded
		}
		return nil, s.err
	}
	own, _ := os.Readlink("/proc/self/ns/net")
	for {
		for _, p := range tether.Descendants(unsharePid) {
			if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", p)); err == nil && ns != own {
				s.netPid, s.userPid = p, unsharePid
				return s, nil
			}
		}
		select {
		case <-s.done: // it ended before its namespace was seen: its result says why
			cancel()
			if s.err == nil {
				return s, nil
			}
			return nil, s.err
		default:
		}
		time.Sleep(5 * time.Millisecond) // bwrap makes the namespace within moments of starting
	}
}

// Done is closed when the server's command has ended (stopped, or exited by itself).
func (s *Server) Done() <-chan struct{} { return s.done }

// Stop ends the server and everything it started at once and waits until they are gone.
func (s *Server) Stop() {
	s.cancel()
	<-s.done
}

// ServerResult is how a server ended.
type ServerResult struct {
	// ExitCode is the command's exit status when it exited by itself; -1 when it was stopped.
	ExitCode int
	// Output is its stdout and stderr, bounded like [Result.Output].
	Output Output
	// Changed counts the paths it wrote into its layer, which were dropped.
	Changed int
}

// Wait waits for the server to end and says how. The error is nil when it was stopped or
// exited; it is the sandbox's when the sandbox failed.
func (s *Server) Wait() (ServerResult, error) {
	<-s.done
	if s.res == nil {
		if errors.Is(s.err, context.Canceled) {
			return ServerResult{ExitCode: -1}, nil
		}
		return ServerResult{ExitCode: -1}, s.err
	}
	r := ServerResult{ExitCode: s.res.ExitCode, Output: s.res.Output}
	if s.res.Changes != nil {
		r.Changed = len(s.res.Changes.Changes)
		s.res.Changes.Close()
	}
	return r, nil
}

// Ports are the TCP ports something in the server's network namespace listens on, in
// increasing order (read from the namespace's /proc/net/tcp and tcp6).
func (s *Server) Ports() []int {
	var ports []int
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", s.netPid, f))
		if err != nil {
			continue
		}
		ports = append(ports, listening(string(b))...)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// listening reads the ports in state LISTEN (0A) of a /proc/net/tcp table.
func listening(table string) []int {
	var ports []int
	sc := bufio.NewScanner(strings.NewReader(table))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		b, err := hex.DecodeString(hexPort)
		if ok && err == nil && len(b) == 2 {
			ports = append(ports, int(b[0])<<8|int(b[1]))
		}
	}
	return ports
}

// Dial connects to port on the server's loopback interface, through a dialer that runs in
// the server's network namespace and hands the connected socket back.
func (s *Server) Dial(ctx context.Context, port int) (net.Conn, error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, ErrServerEnded
	}
	d := s.dialer
	if d == nil {
		var err error
		if d, err = startDialer(s.userPid, s.netPid); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.dialer = d
	}
	s.mu.Unlock()
	return d.dial(ctx, port)
}

// Forward makes port of the server reachable on the host at the address it returns
// (127.0.0.1 and a port the system picks); the same address for the same port. It closes
// when the server ends.
func (s *Server) Forward(port int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return "", ErrServerEnded
	}
	if l, ok := s.forwards[port]; ok {
		return l.Addr().String(), nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.forwards[port] = l
	s.listeners.Add(1)
	go s.serve(l, port)
	return l.Addr().String(), nil
}

// serve carries each connection of l to port in the namespace, both ways, until either side
// closes.
func (s *Server) serve(l net.Listener, port int) {
	defer s.listeners.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			in, err := s.Dial(context.Background(), port)
			if err != nil {
				return
			}
			defer in.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(in, c)
				closeWrite(in)
				close(done)
			}()
			io.Copy(c, in)
			closeWrite(c)
			<-done
		}()
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// shutForwards closes the host's listeners and the dialer once the command ended.
func (s *Server) shutForwards() {
	s.mu.Lock()
	s.ended = true
	for _, l := range s.forwards {
		l.Close()
	}
	d := s.dialer
	s.mu.Unlock()
	if d != nil {
		d.close()
	}
	s.listeners.Wait()
}
