package sandbox

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The start cost of a confined command against a bare exec of the same program.
func BenchmarkStart(b *testing.B) {
	b.Run("bare-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandbox", func(b *testing.B) {
		needSandbox(b)
		ws := b.TempDir()
		for b.Loop() {
			res, err := Run(context.Background(), "true", Options{Workspace: ws}, nil)
			if err != nil || res.ExitCode != 0 {
				b.Fatal(err, res)
			}
			res.Changes.Close()
		}
	})
}

// A change set of 10,000 new small files in 100 folders (an npm install), computed from an
// upper layer and applied, against a plain copy of the same files into an empty folder.
func BenchmarkTenThousandNewFiles(b *testing.B) {
	const script = `for d in $(seq 100); do mkdir -p pkg/$d; for f in $(seq 100); do echo "module.exports = $f" > pkg/$d/$f.js; done; done`
	src := b.TempDir() // an upper layer as a command leaves it
	if out, err := exec.Command("sh", "-c", "cd "+src+" && "+script).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	b.Run("plain-copy", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			copyTree(b, src, filepath.Join(b.TempDir(), strconv.Itoa(i)))
		}
	})
	b.Run("collect-and-apply", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ws, stage := filepath.Join(b.TempDir(), "ws"), filepath.Join(b.TempDir(), "stage")
			os.Mkdir(ws, 0o755)
			cs, err := collect(context.Background(), src, ws, stage)
			if err != nil || len(cs.Changes) != 10101 {
				b.Fatal(err)
			}
			if err := cs.Apply(ws); err != nil {
				b.Fatal(err)
			}
			cs.Close()
		}
	})
}

func copyTree(tb testing.TB, src, dst string) {
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm())
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// One HTTP request on a new connection to a server on the host's loopback, against the same
// request to a server in the sandbox through its forward (a dialer round trip and the copy).
func BenchmarkServerRequest(b *testing.B) {
	ws := b.TempDir()
	writeTree(b, ws, map[string]string{"index.html": "<p>page</p>"})
	get := func(b *testing.B, url string) {
		tr := &http.Transport{DisableKeepAlives: true}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr}
		for b.Loop() {
			resp, err := c.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	b.Run("host-loopback", func(b *testing.B) { // the same server, unconfined, on the host
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		py := exec.Command("python3", "-m", "http.server", port, "--bind", "127.0.0.1")
		py.Dir = ws
		if err := py.Start(); err != nil {
			b.Skip("python3 serves the test pages")
		}
		defer func() { py.Process.Kill(); py.Wait() }()
		for {
			if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
				c.Close()
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		get(b, "http://127.0.0.1:"+port+"/index.html")
	})
	b.Run("sandbox-forward", func(b *testing.B) {
		s, rec := startServer(b, ws, httpServer)
		awaitPort(b, s, rec, serverPort)
		addr, err := s.Forward(serverPort)
		if err != nil {
			b.Fatal(err)
		}
		get(b, "http://"+addr+"/index.html")
	})
}
