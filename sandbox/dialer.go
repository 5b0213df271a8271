package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dialerEnv marks the app's binary started as a server's dialer.
const dialerEnv = "PROTOTYPER_SANDBOX_DIALER"

// DialerMain serves as a server's dialer and exits when this process was started as one;
// otherwise it returns at once. main calls it first, and so does the TestMain of a test
// binary whose tests start servers ([Start]).
//
// The dialer is the app's own binary, entered by nsenter(1) into the user and network
// namespace of a server's sandbox. It reads a port per line on its standard input, a Unix
// socket shared with the app, connects to it on the namespace's loopback interface and
// sends the connected socket back (SCM_RIGHTS). A socket keeps the namespace it was made in,
// so the app then talks to the server through it directly; nothing in the namespace can
// reach out, since the dialer only answers. It ends when the app's end of the socket closes,
// which the app's death does too.
func DialerMain() {
	if os.Getenv(dialerEnv) != "1" {
		return
	}
	os.Exit(serveDialer())
}

func serveDialer() int {
	fc, err := net.FileConn(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dialer:", err)
		return 1
	}
	uc, ok := fc.(*net.UnixConn)
	if !ok {
		return 1
	}
	lines := bufio.NewScanner(uc)
	for lines.Scan() {
		port, err := strconv.Atoi(lines.Text())
		if err != nil || port <= 0 || port > 65535 {
			uc.Write([]byte{1})
			continue
		}
		c, err := dialLoopback(port)
		if err != nil {
			uc.Write([]byte{1})
			continue
		}
		f, err := c.(*net.TCPConn).File()
		c.Close()
		if err != nil {
			uc.Write([]byte{1})
			continue
		}
		_, _, err = uc.WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil)
		f.Close()
		if err != nil {
			return 1
		}
	}
	return 0
}

// dialLoopback connects to port on 127.0.0.1, or on ::1 for a server that listens there only.
func dialLoopback(port int) (net.Conn, error) {
	p := strconv.Itoa(port)
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+p, 5*time.Second)
	if err != nil {
		c, err = net.DialTimeout("tcp", "[::1]:"+p, 5*time.Second)
	}
	return c, err
}

// dialer is the app's end of one server's dialer.
type dialer struct {
	mu     sync.Mutex // one request at a time
	conn   *net.UnixConn
	cmd    *exec.Cmd
	stderr *limitedBuffer // what nsenter or the dialer said when it failed
}

// startDialer runs the app's binary as a dialer in the network namespace of process netPid.
// It enters the user namespace of userPid first, the one unshare made as the app's user: the
// app's user has every capability there and in the namespaces below it, which the network
// namespace's own (bubblewrap's, and the locked one under it) do not give an outsider.
func startDialer(userPid, netPid int) (*dialer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the app's program to reach the server: %w", err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "dialer"), os.NewFile(uintptr(fds[1]), "dialer")
	defer theirs.Close()
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, err
	}
	// --preserve-credentials: the app's user is root of that namespace already.
	cmd := exec.Command("nsenter", fmt.Sprintf("--user=/proc/%d/ns/user", userPid), fmt.Sprintf("--net=/proc/%d/ns/net", netPid),
		"--preserve-credentials", "--", exe)
	cmd.Env = []string{dialerEnv + "=1"}
	cmd.Stdin = theirs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr := &limitedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		fc.Close()
		return nil, fmt.Errorf("cannot reach the server's network (nsenter from util-linux is needed): %w", err)
	}
	go cmd.Wait()
	return &dialer{conn: fc.(*net.UnixConn), cmd: cmd, stderr: stderr}, nil
}

// errDialRefused is what the dialer answers when nothing accepts on the port.
var errDialRefused = errors.New("nothing accepts connections on that port of the server")

func (d *dialer) dial(ctx context.Context, port int) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		d.conn.SetDeadline(dl)
		defer d.conn.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { d.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := d.conn.Write([]byte(strconv.Itoa(port) + "\n")); err != nil {
		return nil, fmt.Errorf("the server's dialer: %w", err)
	}
	b, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := d.conn.ReadMsgUnix(b, oob)
	if err != nil || n != 1 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the server's dialer ended: %v %s", err, d.stderr.String())
	}
	if b[0] != 0 {
		return nil, fmt.Errorf("port %d: %w", port, errDialRefused)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("the server's dialer sent no socket: %v", err)
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return nil, fmt.Errorf("the server's dialer sent no socket: %v", err)
	}
	syscall.CloseOnExec(fds[0])
	f := os.NewFile(uintptr(fds[0]), "server")
	defer f.Close()
	return net.FileConn(f)
}

func (d *dialer) close() {
	d.conn.Close() // the dialer reads the end of its input and exits
	d.cmd.Process.Kill()
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 4096 - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}
