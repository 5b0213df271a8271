package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// corruptError is what store code finds wrong with a file's contents (a missing bucket, a
// value that does not decode); view and update turn it into a *DamagedError with the path.
type corruptError struct{ what string }

func (e *corruptError) Error() string { return e.what }

// guardBolt runs fn, which reads or writes through bbolt, and turns into an error the panics
// that a damaged file causes: bbolt panics on some corrupted pages ("invalid page type", an
// index out of range), and a page mapped past the end of a truncated file faults, which
// debug.SetPanicOnFault turns into a panic this goroutine can recover. A panic raised by
// anything else is a bug, and goes on as it was.
func guardBolt(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if !panicFromDamage(p) {
				panic(p)
			}
			err = &corruptError{what: fmt.Sprint("bbolt panicked: ", p)}
		}
	}()
	return fn()
}

// panicFromDamage reports whether a recovered panic came from reading a damaged file: a
// memory fault at a real address (the mapped file; a nil dereference faults below 4096), or
// a panic raised inside bbolt itself. It must be called from the deferred function, while
// the panicking frames are still on the stack.
func panicFromDamage(p any) bool {
	var fault interface{ Addr() uintptr }
	if err, ok := p.(error); ok && errors.As(err, &fault) && fault.Addr() >= 4096 {
		return true
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			// the first frame that is not the runtime's is where the panic was raised
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// damaged turns what was found wrong with the file into the error the user reads, naming the
// backup to go back to when there is one.
func damaged(path string, cause error) *DamagedError {
	return &DamagedError{Path: path, Backup: findBackup(path, CurrentSchema()), Err: cause}
}

// asDamage returns err as a *DamagedError when it says the file's contents are damaged: a
// corruptError, or a stored value that does not decode (every value here was written by
// json.Marshal). Other errors come back as they are.
func asDamage(path string, err error) error {
	var ce *corruptError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &ce) || errors.As(err, &syntax) || errors.As(err, &typ) {
		return damaged(path, err)
	}
	return err
}

// openError explains an error of bolt.Open: a system error (a full disk while the file is
// created, permissions, a folder where the file should be), or else a file bbolt cannot read
// (too small, not a bbolt file, bad checksums), which is damage.
func openError(path string, err error) error {
	var errno syscall.Errno
	var pe *fs.PathError
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EFBIG),
		errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EIO):
		return &WriteError{Op: "create the database", Path: path, Err: err}
	case errors.As(err, &pe), errors.As(err, &errno):
		cause := err
		if pe != nil && pe.Path == path {
			cause = pe.Err // the path is said once
		}
		return fmt.Errorf("cannot open the database %s: %w%s", path, cause, openHint(err))
	}
	return damaged(path, err)
}

func openHint(err error) string {
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return ": make the file readable and writable, or pass --db with another file"
	case errors.Is(err, syscall.EISDIR):
		return ": pass --db with a file, not a folder"
	}
	return ""
}

// checkSize reports damage when the file is shorter than the pages its meta page counts: it
// was truncated (a copy cut short, a disk that lost its end). Reading those pages would fault.
func checkSize(path string, tx *bolt.Tx) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if info.Size() < tx.Size() {
		return &corruptError{what: fmt.Sprintf("the file has %d bytes, its pages need %d", info.Size(), tx.Size())}
	}
	return nil
}

// findBackup returns the newest backup of path that Open made before a migration
// (BackupPath) that opens and holds a schema this build reads (at most upTo), or "".
func findBackup(path string, upTo uint64) string {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var versions []uint64
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+".schema")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(rest, ".bak"), 10, 64)
		if err == nil && strings.HasSuffix(rest, ".bak") && n > 0 && n <= upTo {
			versions = append(versions, n)
		}
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] > versions[j] })
	for _, v := range versions {
		if b := BackupPath(path, v); backupOpens(b, v) {
			return b
		}
	}
	return ""
}

// backupOpens reports whether a backup is a whole bbolt file of schema version v, without
// writing to it.
func backupOpens(path string, v uint64) bool {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return false
	}
	err := guardBolt(func() error {
		b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
		if err != nil {
			return err
		}
		defer b.Close()
		return b.View(func(tx *bolt.Tx) error {
			if err := checkSize(path, tx); err != nil {
				return err
			}
			meta := tx.Bucket(bucketMeta)
			if meta == nil {
				return errors.New("no meta bucket")
			}
			if raw := meta.Get(keySchema); len(raw) != 8 || binary.BigEndian.Uint64(raw) != v {
				return errors.New("another schema")
			}
			return nil
		})
	})
	return err == nil
}
