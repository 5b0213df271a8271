package tools

import (
	"context"
	"maps"
	"os"
	"slices"
	"sync"
)

// A restore writes many files at once (an undo of a hundred). What its time was spent waiting
// for is the file system's journal, which each creation, fsync and rename waits on, and which
// serves several waiting at once as fast as one; so the steps are taken for all the files of
// a batch together rather than one file after the other:
//
//  1. every file is written (stage), in parallel, nothing synced yet: over the file that is
//     there, in place, when it is a regular file of the app's user with one name
//     (openInPlace), or created in place where nothing is; otherwise (the caller asks it
//     whole — [Workspace.RestoreWith] —, or a link, a folder, a file of another user or with
//     other names stands there, or it cannot be opened) to a temporary name beside it;
//  2. the files are fsynced in parallel: the file system commits them in a few journal
//     transactions instead of one each;
//  3. each temporary file is renamed over its name, in parallel;
//  4. each folder whose entries changed (a rename, a file created) is fsynced once.
//
// Restore returns only after step 4, so what its caller records next (an undo recorded done,
// see agentloop's journal) is never on disk before the files it speaks of. A file written in
// place costs what a program's plain save costs (no new inode, no rename, no folder sync), but
// a process killed while writing it leaves it cut short: a part of its new content, from its
// start. That is why Restore serves only an undo or a redo, whose journal names every path
// with what it was and what it becomes: the next start finishes or takes back the writes,
// counting a file that holds the start of either as one of them under way, and removes the
// temporary files beside those names (RemoveLeftovers). A restore that fails before its
// first write (a content that does not match its hash, a cancelled ctx) changes nothing;
// one that fails after it leaves the files it wrote for its caller to take back.

// syncParallel bounds the writes, fsyncs and renames a batch has in flight at each step: a few
// overlap the journal's and the disk's flushes; more only queue behind one another (measured
// on ext4 over virtio).
const syncParallel = 8

// batchFiles is how many files a batch holds open before it commits them: a restore of
// thousands of files does not hold thousands of descriptors.
const batchFiles = 256

// writeBatch is files written by one restore, to commit together.
type writeBatch struct {
	staged  []*stagedWrite      // written to temporary names
	inPlace []*inPlaceWrite     // written over their names, or created there
	folders map[string]*os.File // the folders written in, held open from the first step to the last
}

// writeFiles puts back files (states of KindFile, with their content) whose folders are
// there: batches of at most batchFiles, each written and committed together.
func (w *Workspace) writeFiles(ctx context.Context, files []PathState, whole func(string) bool) error {
	for len(files) > 0 {
		n := min(len(files), batchFiles)
		var b writeBatch
		err := b.stage(ctx, w, files[:n], whole)
		if err == nil {
			err = b.commit(ctx)
		}
		b.abort()
		if err != nil {
			return err
		}
		files = files[n:]
	}
	return nil
}

// stage writes each file (step 1), in parallel, those whole names to temporary names only; on
// an error, the files written stay in the batch for its abort.
func (b *writeBatch) stage(ctx context.Context, w *Workspace, files []PathState, whole func(string) bool) error {
	if err := ctx.Err(); err != nil {
		return cancelledf(err, "putting the files back was cancelled before it was done")
	}
	b.folders = map[string]*os.File{}
	for _, s := range files {
		w.lendWay(s.Path, false)
		dir := folderOf(s.Path)
		if _, ok := b.folders[dir]; ok {
			continue
		}
		// a folder that cannot be opened here is left to the temporary file's write, which says why
		b.folders[dir], _ = openFolderFile(w.root, dir)
	}
	staged := make([]*stagedWrite, len(files))
	inPlace := make([]*inPlaceWrite, len(files))
	errs := make([]error, len(files))
	parallel(len(files), func(i int) {
		if whole == nil || !whole(files[i].Path) {
			inPlace[i], errs[i] = w.writeInPlace(ctx, b.folders[folderOf(files[i].Path)], files[i])
		}
		if inPlace[i] == nil && errs[i] == nil {
			staged[i], errs[i] = w.stageFile(ctx, files[i])
		}
	})
	for i := range files {
		if staged[i] != nil {
			b.staged = append(b.staged, staged[i])
		}
		if inPlace[i] != nil {
			b.inPlace = append(b.inPlace, inPlace[i])
		}
	}
	return firstError(errs)
}

// stageFile writes a file's kept content to its temporary name, with its permission bits
// (so that they are on disk with the content).
func (w *Workspace) stageFile(ctx context.Context, s PathState) (*stagedWrite, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, st, err := w.stageReplace(ctx, s.Path, writeReal, nil, 0, func([]byte) ([]byte, error) { return s.Content, nil }, progressNone)
	if err != nil {
		return nil, err
	}
	if err := st.f.Chmod(s.Mode.Perm()); err != nil {
		return st, w.explain(s.Path, err)
	}
	return st, nil
}

// commit makes the batch's files durable and visible (steps 2 to 4 above). Before a rename,
// a failure or a cancelled ctx removes every temporary file and renames none; what was
// written in place stays written.
func (b *writeBatch) commit(ctx context.Context) error {
	syncs := make([]func() error, 0, len(b.staged)+len(b.inPlace))
	for _, st := range b.staged {
		syncs = append(syncs, st.sync)
	}
	for _, ip := range b.inPlace {
		syncs = append(syncs, ip.sync)
	}
	errs := make([]error, len(syncs))
	parallel(len(syncs), func(i int) { errs[i] = syncs[i]() })
	if err := firstError(errs); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil && len(b.inPlace) == 0 { // once a file is written in place, finishing is the way back
		return cancelledf(err, "putting the files back was cancelled before it was done")
	}
	parallel(len(b.staged), func(i int) { errs[i] = b.staged[i].rename() })
	if err := firstError(errs[:len(b.staged)]); err != nil {
		return err
	}
	changed := map[string]*os.Root{} // each folder whose entries changed, and a handle that syncs it
	for _, st := range b.staged {
		changed[folderOf(st.rel)] = st.parent
	}
	for _, ip := range b.inPlace {
		if _, ok := changed[ip.dir]; ip.created && !ok {
			changed[ip.dir] = nil // held open in b.folders
		}
	}
	dirs := slices.Collect(maps.Keys(changed))
	parallel(len(dirs), func(i int) {
		if d := b.folders[dirs[i]]; d != nil {
			d.Sync()
		} else {
			syncFolder(changed[dirs[i]])
		}
	})
	return nil
}

// abort lets go of every write, removing the temporary files not renamed yet, and of the
// folders held open.
func (b *writeBatch) abort() {
	for _, st := range b.staged {
		st.abort()
	}
	for _, ip := range b.inPlace {
		ip.abort()
	}
	for _, d := range b.folders {
		if d != nil {
			d.Close()
		}
	}
	b.staged, b.inPlace, b.folders = nil, nil, nil
}

// firstError is the error of the first file that failed, in the batch's order, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// parallel runs fn(0) … fn(n-1), at most syncParallel at a time.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, syncParallel) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
