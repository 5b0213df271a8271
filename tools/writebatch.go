package tools

import (
	"context"
	"sync"
)

// A restore writes many files at once (an undo of a run that wrote a hundred). Each one is
// still replaced atomically, its content on disk before its name points to it, but the
// steps that make this so are taken for all the files together rather than one file after
// the other: what a restore's time was spent waiting for is the file system's journal, which
// each creation, fsync and rename waits on, and which serves several waiting at once as fast as one:
//
//  1. every file is written to its temporary name (stageFile), in parallel, nothing synced yet;
//  2. the temporary files are fsynced in parallel: the file system commits them in a few
//     journal transactions instead of one each;
//  3. each is renamed over its name, in parallel: a crash from here on finds, under each
//     name, either the old content or the whole new one, never part of it;
//  4. each folder written in is fsynced once, which makes its renames durable.
//
// Restore returns only after step 4, so what its caller records next (an undo recorded done,
// see agentloop's journal) is never on disk before the files it speaks of. A process killed
// before step 3 leaves temporary files and the old contents; one killed during it leaves some
// names new and some old, in no order. Either is what an interrupted undo already settles: its
// journal names every path, and settling finishes or takes back the writes and removes the
// temporary files beside those names (RemoveLeftovers).

// syncParallel bounds the writes, fsyncs and renames a batch has in flight at each step: a few
// overlap the journal's and the disk's flushes; more only queue behind one another (measured
// on ext4 over virtio).
const syncParallel = 8

// batchFiles is how many files a batch holds open before it commits them: a restore of
// thousands of files does not hold thousands of descriptors.
const batchFiles = 256

// writeBatch is files staged by one restore, to commit together.
type writeBatch struct {
	staged []*stagedWrite
}

// writeFiles puts back files (states of KindFile, with their content) whose folders are
// there: batches of at most batchFiles, each staged and committed together.
func (w *Workspace) writeFiles(ctx context.Context, files []PathState) error {
	for len(files) > 0 {
		n := min(len(files), batchFiles)
		var b writeBatch
		err := b.stage(ctx, w, files[:n])
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

// stage writes each file to its temporary name (step 1), in parallel; on an error, the
// files staged stay in the batch for its abort.
func (b *writeBatch) stage(ctx context.Context, w *Workspace, files []PathState) error {
	staged := make([]*stagedWrite, len(files))
	errs := make([]error, len(files))
	parallel(len(files), func(i int) { staged[i], errs[i] = w.stageFile(ctx, files[i]) })
	for _, st := range staged {
		if st != nil {
			b.staged = append(b.staged, st)
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
	w.lendWay(s.Path, false)
	if HashContent(s.Content) != s.Hash {
		return nil, pathErrorf(ErrInvalidPath, s.Path, "the kept content of %q does not match its hash; it was not written", s.Path)
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
// a failure or a cancelled ctx removes every temporary file and changes no name.
func (b *writeBatch) commit(ctx context.Context) error {
	if len(b.staged) == 0 {
		return nil
	}
	errs := make([]error, len(b.staged))
	parallel(len(b.staged), func(i int) { errs[i] = b.staged[i].sync() })
	if err := firstError(errs); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return cancelledf(err, "putting files back was cancelled; no file was changed")
	}
	parallel(len(b.staged), func(i int) { errs[i] = b.staged[i].rename() })
	if err := firstError(errs); err != nil {
		return err
	}
	folders := map[string]*stagedWrite{} // one write of each folder, whose handle syncs it
	for _, st := range b.staged {
		if _, ok := folders[st.dir]; !ok {
			folders[st.dir] = st
		}
	}
	dirs := make([]*stagedWrite, 0, len(folders))
	for _, st := range folders {
		dirs = append(dirs, st)
	}
	parallel(len(dirs), func(i int) { syncFolder(dirs[i].parent) })
	b.abort() // lets go of the folders; nothing is left to remove
	return nil
}

// abort lets go of every staged write, removing the temporary files not renamed yet.
func (b *writeBatch) abort() {
	for _, st := range b.staged {
		st.abort()
	}
	b.staged = nil
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
