package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"prototyper/store"
)

// The stream crash test re-runs this test binary as a child (TestStreamCrashChild, given its
// database by crashChildEnv, which also spares it the shared server) that streams answers in
// two chats at once the way the app does: a delta every millisecond or so, saved to bbolt at
// most once a second. After each delta is in the saver it prints how much of the answer is
// there, as the app then shows it. The parent kills it with SIGKILL at random moments (every
// other one a moment after a random number of the child's lines, so that a loaded machine still
// kills it while it streams) and checks that every byte printed is in the database when it is
// opened again.

const streamCrashKills = 6

// TestStreamCrashChild is the child process of TestKilledWhileStreamingLosesNoTextItShowed;
// on its own it does nothing.
func TestStreamCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("runs only as the child of the stream crash test")
	}
	db := openChildDB(path, store.Options{LockTimeout: 10 * time.Second}) // the app's save interval
	say := func(format string, args ...any) {
		os.Stdout.WriteString(fmt.Sprintf(format, args...) + "\n") // one write a line: atomic on a pipe
	}
	fail := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", what, err)
		os.Exit(3)
	}
	say("ready")
	var wg sync.WaitGroup
	for stream := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid()*2+stream)))
			for {
				chat, err := db.CreateChat(store.Chat{Model: "crash"})
				if err != nil {
					fail("create chat", err)
				}
				cp, err := db.NewMessageSaver(chat.ID, store.Message{RunID: "r"})
				if err != nil {
					fail("message saver", err)
				}
				text := crashText(r.Uint64(), 2000+r.IntN(4000))
				addInPieces(r, cp, text, 40, func(err error) { fail("add text", err) }, func(at int) {
					say("shown %s %s %d", chat.ID, cp.ID(), at)
					time.Sleep(time.Duration(200+r.IntN(1500)) * time.Microsecond)
				})
				if err := cp.Finish("stop", nil); err != nil {
					fail("finish", err)
				}
				say("done %s %s %d", chat.ID, cp.ID(), len(text))
			}
		}()
	}
	wg.Wait()
}

func TestKilledWhileStreamingLosesNoTextItShowed(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("this is the child")
	}
	path := filepath.Join(t.TempDir(), "stream.db")
	shown := map[string]int{} // message id → bytes shown
	chatOf := map[string]string{}
	complete := map[string]bool{}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	fromJournal := 0 // bytes shown after the last save of their message, summed over the kills
	for kill := range streamCrashKills {
		cmd, pipe, errBuf := startTestChild(t, "TestStreamCrashChild", crashChildEnv+"="+path)
		lines := newLineCounter(2 + r.Int64N(1500)) // a message is 100 to 300 lines of the two streams
		ready, out := readChildLines(pipe, lines)
		select {
		case <-ready:
		case <-time.After(60 * time.Second):
			t.Fatalf("the child never got ready: %s", errBuf.String())
		}
		if kill%2 == 1 {
			// a moment after it showed a random number of deltas, so that a loaded machine, slow
			// to save, still kills it with text shown
			lines.await(t, r)
		} else {
			// between saves, mostly: a save comes once a second
			time.Sleep(time.Duration(300+r.IntN(2500)) * time.Millisecond)
		}
		// every line it wrote is read before Wait (in killTestChild) closes the pipe
		_ = cmd.Process.Signal(syscall.SIGKILL)
		printed := <-out
		killTestChild(t, cmd, errBuf)
		sc := bufio.NewScanner(bytes.NewReader(printed))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 4 {
				continue
			}
			n, err := strconv.Atoi(f[3])
			if err != nil {
				t.Fatalf("the child printed %q", sc.Text())
			}
			chatOf[f[2]], shown[f[2]] = f[1], max(shown[f[2]], n)
			if f[0] == "done" {
				complete[f[2]] = true
			}
		}

		checkBoltFile(t, path, fmt.Sprintf("kill %d", kill))
		saved := savedLengths(t, path, chatOf)
		for id, n := range shown {
			fromJournal += max(n-saved[id], 0)
		}
		db, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatalf("kill %d: the store does not open: %v", kill, err)
		}
		for id, n := range shown {
			m, err := db.Message(chatOf[id], id)
			switch {
			case err != nil:
				t.Errorf("kill %d: message %s showed %d bytes and is gone: %v", kill, id, n, err)
			case len(m.Content) < n:
				t.Errorf("kill %d: message %s holds %d bytes, %d were shown", kill, id, len(m.Content), n)
			case !crashTextValid(m.Content):
				t.Errorf("kill %d: message %s is garbled: %.60q…", kill, id, m.Content)
			case complete[id] && !m.Complete:
				t.Errorf("kill %d: message %s was finished and is not complete", kill, id)
			}
		}
		if _, err := os.Stat(store.StreamJournalPath(path)); !os.IsNotExist(err) {
			t.Errorf("kill %d: the stream journal is still there after Open (%v)", kill, err)
		}
		_ = db.Close()
		if t.Failed() {
			t.Fatalf("after kill %d (child stderr: %q)", kill, errBuf.String())
		}
	}
	if fromJournal == 0 {
		t.Fatal("no kill came between a delta shown and its save: the test proves nothing")
	}
	t.Logf("%d kills, %d messages checked; %d bytes shown were not saved to bbolt at the kill and came back",
		streamCrashKills, len(shown), fromJournal)
}

// savedLengths reads, without putting the journal back (a read-only Open), how many bytes of
// each message bbolt itself holds.
func savedLengths(t *testing.T, path string, chatOf map[string]string) map[string]int {
	t.Helper()
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open: %v", err)
	}
	defer db.Close()
	out := map[string]int{}
	for id, chat := range chatOf {
		if m, err := db.Message(chat, id); err == nil {
			out[id] = len(m.Content)
		}
	}
	return out
}
