package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/store/storetest"
)

func TestSecondOpenReportsAlreadyRunningWithinTwoSeconds(t *testing.T) {
	_, path := openTestDB(t, nil)
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%v", readOnly), func(t *testing.T) {
			start := time.Now()
			db, err := Open(path, Options{ReadOnly: readOnly})
			elapsed := time.Since(start)
			if err == nil {
				db.Close()
				t.Fatal("a second Open succeeded while the first holds the lock")
			}
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("err = %v, want ErrLocked", err)
			}
			want := "Prototyper is already running (database locked: " + path + "): close it first"
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message = %q, want %q", err, want)
			}
			// The promise to a user who starts a second copy.
			if elapsed > 2*time.Second {
				t.Errorf("took %v to give up, want under 2s", elapsed)
			}
		})
	}
}

func TestReadOnlyOpenOfAMissingFileSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("err = %v, want ErrNoDatabase", err)
	}
	if _, statErr := os.Stat(path); statErr == nil {
		t.Error("a read-only Open created the file")
	}
}

// A process killed right after creating the file leaves it empty.
func TestAnEmptyFileIsNoDatabaseYetAndOpensForWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("read-only: err = %v, want ErrNoDatabase", err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("writable: %v", err)
	}
	defer db.Close()
	if _, err := db.CreateChat(Chat{}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenWhereTheFolderCannotBeMadeIsAClearError(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(blocker, "p.db"), Options{})
	if err == nil || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("err = %v, want one that says to pass --db", err)
	}
}

func TestCreatingADatabaseOnAFullDiskSaysSoOnce(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "256k")
	storetest.FillDisk(t, disk)
	path := filepath.Join(disk, "prototyper.db")
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want one matching ErrWrite and ENOSPC", err)
	}
	if msg := err.Error(); strings.Count(msg, path) != 1 || !strings.Contains(msg, "free some disk space") {
		t.Errorf("the message should name the file once and say to free space: %q", msg)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	storetest.SetSchema(t, path, CurrentSchema()+1)
	for _, readOnly := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: readOnly})
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("readOnly=%v: err = %v, want ErrNewerSchema", readOnly, err)
		}
		if !strings.Contains(err.Error(), "update Prototyper") {
			t.Errorf("message does not say what to do: %v", err)
		}
	}
}

func TestOlderSchemaIsBackedUpThenMigratedInOneTransaction(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "kept"})
	db.Close()

	saved, from := migrations, CurrentSchema()
	t.Cleanup(func() { migrations = saved })
	migrations = append(append([]migration(nil), saved...), migration{
		to: from + 1, about: "test: a bucket", apply: func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("v2"))
			return err
		},
	})
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrNeedsMigration) {
		t.Fatalf("read-only open of an older file: err = %v, want ErrNeedsMigration", err)
	}

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, _, _ := db.schemaVersion(); v != from+1 {
		t.Errorf("schema after migration = %d, want %d", v, from+1)
	}
	if got, err := db.Chat(c.ID); err != nil || got.Title != "kept" {
		t.Errorf("chat after migration = %+v, %v", got, err)
	}
	backup, err := bolt.Open(BackupPath(path, from), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("no backup of the old file: %v", err)
	}
	defer backup.Close()
	_ = backup.View(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keySchema)); v != from {
			t.Errorf("backup schema = %d, want %d", v, from)
		}
		if tx.Bucket([]byte("v2")) != nil {
			t.Error("the backup was taken after migrating")
		}
		return nil
	})
}

func TestFailedMigrationLeavesTheFileAsItWas(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(append([]migration(nil), saved...),
		migration{to: 2, about: "half", apply: func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("v2")); return err }},
		migration{to: 3, about: "fails", apply: func(*bolt.Tx) error { return errors.New("boom") }},
	)
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "schema 3") {
		t.Fatalf("err = %v, want the failing migration named", err)
	}
	migrations = saved
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("the file no longer opens with the old version: %v", err)
	}
	defer db.Close()
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("v2")) != nil {
			t.Error("half a migration was kept")
		}
		return nil
	})
}
