// Package store keeps Prototyper's chats on disk in one bbolt file: chats, their messages,
// the record of every tool call, one record per agent run, and the settings. It is written so
// that a kill -9 at any moment loses nothing a method returned from, a streaming answer's
// deltas included (they are journaled: see the stream journal below), and never leaves a
// half-written value behind; a power loss costs at most the last second of a streaming answer.
//
// # Basics
//
// [Open] a file (it takes bbolt's exclusive lock; a second instance gets [ErrLocked] after
// [Options.LockTimeout]), then use the [DB] methods; every write is one bbolt transaction that
// is on disk when the method returns.
//
//	db, err := store.Open(path, store.Options{})
//	chat, err := db.CreateChat(store.Chat{Model: "qwen3"})
//	user, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: "hi"})
//	cp, err := db.NewMessageSaver(chat.ID, store.Message{Role: store.RoleAssistant})
//	cp.AddText("Hel"); cp.AddText("lo")           // journaled now, saved at most once a second
//	cp.AddToolCalls(store.ToolCall{ID: "c1", …})   // committed now: a tool-call boundary
//	cp.Finish("stop", usage)                       // committed now, Complete
//
// # Persistence policy
//
// The design's policy maps onto the API like this: the loop commits the user message with its
// run ([DB.StartRunWith]) and says nothing of the run before that commit is durable; it streams
// the assistant message through a [MessageSaver], which gives it its id at once and first
// writes it at its first save; it commits a [ToolCallRecord] with Pending set ([DB.PutToolCall]) before a
// tool runs and completes it ([DB.CompleteToolCall]) right after. A call that changes files
// is recorded with [DB.StartToolCall] instead: the same record and, in the same commit, the
// prior state of every path it touches ([Change]), so that undo can put it back.
//
// A [Run] is recorded Live while an agent run is in progress. When the file is opened again
// after a crash, live runs are marked [StopInterrupted] (see [DB.Recovered]); their pending
// tool records stay pending, because nobody knows whether those tools finished. The window
// paints a pending record of a run that is not live as interrupted ([Transcript.Interrupted]
// says the same for the readers). A run that was paused on an approval keeps its [Run.State]
// and becomes [events.StopAwaitingApproval], so it can be resumed. A read-only Open writes nothing,
// but its shared lock proves that no process is running anything: it reads the live runs as
// a writable Open would mark them.
//
// Tool-call records are keyed by the call's id within its chat. A record is updated only by
// its own call moving forward (awaiting approval → pending → result); a second call with an
// id already taken is refused with [ErrDuplicateToolCall], so the loop gives every call of a
// chat its own id before storing it.
//
// What the window paints (running, completed, denied, …) is never stored here.
//
// # Stream journal
//
// Between its saves a streaming message's deltas are appended to PATH.streaming
// ([StreamJournalPath]) with one plain write() each, no sync: a killed process's writes are
// kept by the kernel. A writable Open applies to the messages it continues what the journal
// holds past their stored text (creating a message never first saved) before anything reads
// them, and removes it; a torn or foreign record is dropped, never applied. The journal is
// emptied whenever no [MessageSaver] is left unended, and a message whose end was saved
// (Complete, or a Stop's or a failure's DoneReason) is never continued by it.
//
// # Layout
//
// Buckets of schema version 4 (sequence keys are 8-byte big-endian from NextSequence):
//
//	meta            "schema" → uint64 version
//	chats           chat id → Chat (its summary: title, model, workspace, times, count)
//	chatsByUpdated  updatedAt (8 bytes, unix ns) ‖ chat id → empty: the newest-first index
//	chat            chat id → bucket
//	    messages      seq → Message (the version of the chat shown)
//	    branches      seq of a version's first message → the version put aside (made by a fork)
//	    tools         seq → ToolCallRecord
//	    toolIndex     tool call id → seq
//	    runs          run id → empty
//	    changes       seq → the head of a Change (a run's pre-images, an undo, a redo)
//	    changeIndex   change id → seq
//	    changePaths   seq ‖ 'p' ‖ ordinal → PathChange; seq ‖ 'n' ‖ path ‖ workspace → ordinal
//	    contents      SHA-256 hex → a file's content kept for undo, once per chat
//	    revertJournal change id → RevertJournal (an undo or redo begun, not yet recorded done)
//	runs            run id → Run
//	liveRuns        run id → empty
//	settings        "settings" → Settings; "drafts" → unsent text by chat; "queued" → queued
//	                texts by chat; "openChat" → chat id
//	unsentImages    'd' ‖ chat id → the images of its unsent text; 'q' ‖ chat id → those of
//	                each queued message (created by the first write, not part of the schema)
//	writtenCalls    model name → empty: the model is asked for calls written as text
//	modelChecks     ModelCheck.Key → ModelCheck
//	workspaceTrust  workspace path → WorkspaceTrust (the user's word on its server file)
//	searchIndex     chat id → bucket (derived; see below)
//	    seq           → the lower-cased text of a shown user or assistant message
//	    0             → the chat's updatedAt when its index was last whole
//	    "title"       → "t" ‖ the chat's lower-cased title
//	    "trigram"     → 512 bytes: a bit per (hashed) run of three bytes of the texts
//
// The search index is kept in the transactions that write the messages and is never the
// only copy of anything: a chat whose stamp is not its updatedAt (a file from a build without
// the index, damage) is searched through its messages and re-indexed by the next writable
// Open, which also builds the index of a file that has none. It is not part of the schema.
//
// Values are JSON with camelCase names (the frontend reads the same shapes). The schema
// version is checked on open: an older file is copied to PATH.schemaN.bak and migrated in one
// transaction; a newer one is refused with [ErrNewerSchema].
//
// # Damage
//
// A file that cannot be read — truncated, overwritten, not a Prototyper database — is
// reported as [ErrDamaged], by Open or by the read that meets the damage, with one sentence
// naming the backup an upgrade kept ([BackupPath]) when one still opens. bbolt panics on some
// corrupted pages, and a page mapped past the end of a truncated file faults: every
// transaction here recovers those into the same error. A file with no bucket at all (a
// process died before its first commit) is new, not damaged.
//
// # Caveats
//
// Only one process can open the file for writing. Reading with [Options.ReadOnly] takes a
// shared lock, which the running app's exclusive lock also blocks: the command line then
// reports [ErrLocked] rather than reading a file that is being written.
package store
