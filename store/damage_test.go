package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/store/storetest"
)

// writeChats fills a fresh database at path with chats long enough to span many pages and
// returns its bytes.
func writeChats(tb testing.TB, path string) []byte {
	tb.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	for range 20 {
		c := mustChat(tb, db, Chat{Model: "qwen3"})
		for j := range 15 {
			mustAppend(tb, db, c.ID, Message{Role: RoleUser, Content: strings.Repeat("x", 300*j)})
		}
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// highWater is how many bytes of a database file hold pages in use.
func highWater(tb testing.TB, path string) int {
	tb.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer b.Close()
	var n int64
	_ = b.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return int(n)
}

// readEverything opens path and reads every chat whole, as `chats list` and `show` do, and
// returns the first error.
func readEverything(path string, readOnly bool) error {
	db, err := Open(path, Options{ReadOnly: readOnly, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		return err
	}
	defer db.Close()
	chats, err := db.ListChats()
	if err != nil {
		return err
	}
	for _, c := range chats {
		if _, err := db.Transcript(c.ID); err != nil {
			return err
		}
	}
	_, err = db.Settings()
	return err
}

// scrambleHeaders overwrites the header of every page after the two meta pages: whatever is
// read first is damaged.
func scrambleHeaders(data []byte, seed int64) []byte {
	d := append([]byte(nil), data...)
	rng := rand.New(rand.NewSource(seed))
	for at := 2 * 4096; at+16 <= len(d); at += 4096 {
		rng.Read(d[at : at+16])
	}
	return d
}

// scribble overwrites n random stretches of the pages after the two meta pages.
func scribble(data []byte, seed int64, n int) []byte {
	d := append([]byte(nil), data...)
	rng := rand.New(rand.NewSource(seed))
	pages := len(d) / 4096
	for range n {
		at := (2+rng.Intn(pages-2))*4096 + rng.Intn(16)
		rng.Read(d[at : at+16+rng.Intn(4000)])
	}
	return d
}

func TestDamagedFileIsErrDamagedWithOneSentenceAndNoPanic(t *testing.T) {
	good := writeChats(t, filepath.Join(t.TempDir(), "good.db"))
	garbage := make([]byte, 64<<10)
	rand.New(rand.NewSource(1)).Read(garbage)

	cases := map[string][]byte{
		"cut inside the first meta page":  good[:100],
		"cut after the first meta page":   good[:4096],
		"cut after both meta pages":       good[:8192],
		"cut inside a page":               good[:5*4096+7],
		"cut in half":                     good[:len(good)/2],
		"random bytes":                    garbage,
		"zeros where the pages should be": make([]byte, 16<<10),
		"every page header overwritten":   scrambleHeaders(good, 1),
	}
	for name, data := range cases {
		for _, readOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/readOnly=%v", name, readOnly), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "prototyper.db")
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
				err := readEverything(path, readOnly)
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("err = %v, want one matching ErrDamaged", err)
				}
				checkDamagedMessage(t, err, path)
				// a failed Open lets go of the file: another one gets the same answer, not "locked"
				if err := readEverything(path, true); !errors.Is(err, ErrDamaged) {
					t.Errorf("a second Open: err = %v, want ErrDamaged", err)
				}
			})
		}
	}
}

func checkDamagedMessage(t *testing.T, err error, path string) {
	t.Helper()
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "move it away") {
		t.Errorf("the message should be one line naming the file and what to do: %q", msg)
	}
	for _, internal := range []string{"bbolt", "panic", "page", "invalid"} {
		if strings.Contains(strings.ReplaceAll(msg, path, "PATH"), internal) {
			t.Errorf("the message shows an internal detail (%q): %q", internal, msg)
		}
	}
}

// Stretches of random bytes anywhere in the pages: what is damaged depends on what they hit
// (a free page is harmless), but no read panics, and what is noticed is ErrDamaged.
func TestRandomDamageAnywhereNeverPanics(t *testing.T) {
	good := writeChats(t, filepath.Join(t.TempDir(), "good.db"))
	noticed := 0
	for seed := int64(1); seed <= 12; seed++ {
		for _, readOnly := range []bool{true, false} {
			path := filepath.Join(t.TempDir(), "prototyper.db")
			if err := os.WriteFile(path, scribble(good, seed, 20), 0o600); err != nil {
				t.Fatal(err)
			}
			err := readEverything(path, readOnly)
			switch {
			case err == nil:
			case errors.Is(err, ErrDamaged):
				noticed++
				checkDamagedMessage(t, err, path)
			default:
				t.Errorf("seed %d, readOnly=%v: err = %v, want nil or ErrDamaged", seed, readOnly, err)
			}
		}
	}
	if noticed == 0 {
		t.Error("24 damaged files and none noticed")
	}
}

func TestTruncatedFileIsDamagedAtEveryCutBelowItsPages(t *testing.T) {
	src := filepath.Join(t.TempDir(), "good.db")
	good := writeChats(t, src)
	hw := highWater(t, src)
	for cut := 2 * 4096; cut < hw; cut += (hw - 8192) / 9 {
		t.Run(fmt.Sprintf("cut at %d of %d", cut, hw), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "prototyper.db")
			if err := os.WriteFile(path, good[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			for _, readOnly := range []bool{true, false} {
				if err := readEverything(path, readOnly); !errors.Is(err, ErrDamaged) {
					t.Errorf("readOnly=%v: err = %v, want ErrDamaged", readOnly, err)
				}
			}
		})
	}
	// past the pages in use, a shorter file is whole
	path := filepath.Join(t.TempDir(), "prototyper.db")
	if err := os.WriteFile(path, good[:hw], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readEverything(path, true); err != nil {
		t.Errorf("a file cut after its last page: %v", err)
	}
}

func TestDamagedFileNamesTheBackupThatStillOpens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prototyper.db")
	good := writeChats(t, path)
	backup := BackupPath(path, CurrentSchema())
	if err := os.WriteFile(backup, good, 0o600); err != nil {
		t.Fatal(err)
	}
	// a damaged backup and one of a newer schema are never offered
	if err := os.WriteFile(BackupPath(path, CurrentSchema()+1), good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, good[:len(good)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	err := readEverything(path, true)
	var de *DamagedError
	if !errors.As(err, &de) || de.Backup != backup {
		t.Fatalf("err = %v, want a DamagedError naming %s", err, backup)
	}
	msg := err.Error()
	if !strings.Contains(msg, "copy from before the last upgrade is at "+backup) || !strings.Contains(msg, "rename the copy to "+path) {
		t.Errorf("the message does not say how to go back to the backup: %q", msg)
	}

	if err := os.WriteFile(backup, good[:4096], 0o600); err != nil {
		t.Fatal(err)
	}
	err = readEverything(path, true)
	if !errors.As(err, &de) || de.Backup != "" || strings.Contains(err.Error(), ".bak") {
		t.Errorf("a damaged backup is offered: %v", err)
	}
}

// A process killed between creating the file and its first commit leaves a bbolt file with
// no bucket: it holds nothing, and is no older schema to upgrade.
func TestFileKilledBeforeItsFirstCommitIsNewNotSchemaZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prototyper.db")
	storetest.KilledBeforeFirstCommit(t, path)

	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrNoDatabase) || strings.Contains(err.Error(), "schema") {
		t.Fatalf("read-only: err = %v, want ErrNoDatabase without a word of schemas", err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("writable: %v", err)
	}
	mustChat(t, db, Chat{})
	db.Close()
}

func TestBucketsWithoutASchemaAreDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("someone else's")); return err })
	b.Close()
	before, _ := os.ReadFile(path)
	for _, readOnly := range []bool{true, false} {
		if _, err := Open(path, Options{ReadOnly: readOnly}); !errors.Is(err, ErrDamaged) {
			t.Errorf("readOnly=%v: err = %v, want ErrDamaged", readOnly, err)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("Open wrote into a file that is not a Prototyper database")
	}
}

func TestMissingBucketIsDamaged(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketChats) })
	b.Close()
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrDamaged) {
		t.Errorf("err = %v, want ErrDamaged", err)
	}
}

func TestNewerSchemaNamesTheBackupThisVersionReads(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	// what a newer Prototyper leaves: its upgrade's backup, then the file at its schema
	src, _ := os.Open(path)
	dst, _ := os.Create(BackupPath(path, CurrentSchema()))
	_, _ = io.Copy(dst, src)
	src.Close()
	dst.Close()
	storetest.SetSchema(t, path, CurrentSchema()+1)

	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
	backup := BackupPath(path, CurrentSchema())
	if msg := err.Error(); !strings.Contains(msg, "update Prototyper") || !strings.Contains(msg, backup) || strings.Contains(msg, "\n") {
		t.Errorf("the message should say to update or go back to %s, in one line: %q", backup, msg)
	}
}
