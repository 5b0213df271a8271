import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react'
import type { FolderCheck, ModelInfo } from '../backend'
import { focusComposer, useMenuRequest, type MenuName } from '../keyboard/menus'
import { folderShortcut, modelShortcut, settingsShortcut, type WindowShortcut } from '../keyboard/shortcuts'
import { isBusy } from '../state/chatReducer'
import { findModel, headerModel, headerWorkspace, sameModel, type AppState, type PullState } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { ComboList } from './ComboList'
import { Dialog } from './Dialog'
import { Icon } from './icons'
import { ShortcutButton } from './ShortcutButton'

export function formatBytes(n: number): string {
  if (!n) return '0 B'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  const i = Math.min(units.length - 1, Math.floor(Math.log(n) / Math.log(1000)))
  return `${(n / 1000 ** i).toFixed(i >= 3 ? 1 : 0)} ${units[i]}`
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean)
  return parts[parts.length - 1] ?? path
}

export function ModelBadges({ model }: { model: ModelInfo }) {
  return (
    <span className="badges">
      {model.tools ? <span className="badge ok">tools</span> : <span className="badge err">no tools</span>}
      {model.thinking && <span className="badge info">thinking</span>}
      {model.vision && <span className="badge info">vision</span>}
      {model.contextLength > 0 && (
        <span className="badge muted">{Math.round(model.contextLength / 1024)}K ctx</span>
      )}
    </span>
  )
}

export function PullBar({ pull }: { pull: PullState }) {
  const store = useStore()
  const pct = pull.total > 0 ? Math.min(100, (pull.completed / pull.total) * 100) : 0
  return (
    <div className="pull" data-testid="pull-progress">
      <div className="pull-head">
        <span>
          {pull.name}: {pull.error ? 'failed' : pull.done ? 'done' : pull.status}
        </span>
        {pull.done && (
          <button
            type="button"
            className="link"
            aria-label={`Dismiss ${pull.name}`}
            title="Dismiss"
            onClick={() => store.dismissPull(pull.name)}
          >
            ✕
          </button>
        )}
      </div>
      {!pull.done && (
        <>
          <progress max={100} value={pct} aria-label={`Pulling ${pull.name}`} />
          <div className="pull-figures">
            {formatBytes(pull.completed)} / {formatBytes(pull.total)}
            {pull.bytesPerSec > 0 && ` · ${formatBytes(pull.bytesPerSec)}/s`}
          </div>
        </>
      )}
      {pull.error && <div className="tool-error">{pull.error}</div>}
    </div>
  )
}

/** Closes a popover on a press outside root while open. */
function useCloseOutside(open: boolean, root: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    if (!open) return
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) close()
    }
    document.addEventListener('mousedown', onDown)
    return () => document.removeEventListener('mousedown', onDown)
  }, [open, root, close])
}

/**
 * A header menu (its request name, for the shortcut that opens it): a button (ref button) that
 * opens a popover inside root, with a text field (text). onOpen runs each time it opens.
 * close() empties the field and gives the focus back where it was when the menu opened (else
 * to the button), close(false) leaves the focus where it is; a press outside closes it, and so does Esc.
 */
function useHeaderMenu(name: MenuName, onOpen?: () => void) {
  const [open, setOpen] = useState(false)
  const [text, setText] = useState('')
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  // where the focus was when the menu opened (the composer, for a menu opened by its shortcut
  // while typing): closing gives it back there, so that the next key is not the button's
  const opener = useRef<Element | null>(null)
  const openIt = useCallback(() => {
    const was = document.activeElement
    opener.current = was && !root.current?.contains(was) ? was : null
    setOpen(true)
    onOpen?.()
  }, [onOpen])
  useMenuRequest(name, openIt)
  const close = useCallback((refocus = true) => {
    setOpen(false)
    setText('')
    if (!refocus) return
    const back = opener.current
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus()
    else button.current?.focus()
  }, [])
  const closeOutside = useCallback(() => close(false), [close])
  useCloseOutside(open, root, closeOutside)
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation()
      e.preventDefault()
      close()
    }
  }
  return { open, openIt, text, setText, root, button, close, onKeyDown }
}

/**
 * The markup of a header menu: its button (what it is, the shortcut that presses it too, and
 * label, what it shows) with beside after it, and the popover of children while it is open.
 */
function HeaderMenu({
  menu,
  className,
  buttonClassName,
  testId,
  shortcut,
  what,
  label,
  beside,
  children,
}: {
  menu: ReturnType<typeof useHeaderMenu>
  className: string
  buttonClassName: string
  testId: string
  shortcut: WindowShortcut
  what: string
  label: ReactNode
  beside?: ReactNode
  children: ReactNode
}) {
  const { open, openIt, root, button, close, onKeyDown } = menu
  return (
    <div className={className} ref={root} onKeyDown={onKeyDown} data-menu-open={open ? 'true' : undefined}>
      <ShortcutButton
        shortcut={shortcut}
        what={what}
        ref={button}
        className={buttonClassName}
        data-testid={testId}
        aria-haspopup="listbox"
        aria-expanded={open}
        onClick={() => (open ? close() : openIt())}
      >
        {label} <span aria-hidden="true">▾</span>
      </ShortcutButton>
      {beside}
      {open && <div className="popover">{children}</div>}
    </div>
  )
}

/**
 * The model the header shows (the open chat's, else the next new chat's), the server's models
 * with their capabilities, and pulling a new one. Opened (click or Ctrl+M), the filter field has
 * the focus: typing filters, ↑/↓ move, Enter picks, Esc closes.
 */
export function ModelPicker() {
  const store = useStore()
  const models = useAppState((s) => s.models)
  const current = useAppState(headerModel)
  const pulls = useAppState((s) => s.pulls)
  // the list is read again each time the menu opens: a model pulled elsewhere shows up
  const refresh = useCallback(() => void store.refreshOllama(true), [store])
  const menu = useHeaderMenu('model', refresh)
  const [pullName, setPullName] = useState('')
  const info = findModel(models, current)
  const filter = menu.text
  const shown = models.filter((m) => m.name.toLowerCase().includes(filter.trim().toLowerCase()))
  const pick = (name: string) => {
    menu.close(false)
    void store.requestModel(name)
    focusComposer()
  }

  const pullList = Object.values(pulls)
  const pulling = pullList.filter((p) => !p.done).length
  return (
    <HeaderMenu
      menu={menu}
      className="model-picker"
      buttonClassName="header-button"
      testId="model-button"
      shortcut={modelShortcut}
      what="The model of this chat"
      label={
        <>
          {current || 'Pick a model'} {info && <ModelBadges model={info} />}
        </>
      }
      beside={pulling > 0 && !menu.open && <span className="pull-mini">{pulling} pulling…</span>}
    >
      <ComboList
        id="model-filter"
        label="Filter the models"
        placeholder="Type to filter, ↑↓ to move, Enter to pick"
        value={filter}
        onType={menu.setText}
        listId="model-list"
        listLabel="Models"
        items={shown}
        choose={(m) => pick(m.name)}
        option={(m) => ({
          key: m.name,
          className: `model-option${sameModel(m.name, current) ? ' selected' : ''}`,
          content: (
            <>
              <span className="model-name">
                {sameModel(m.name, current) && <span aria-label="in use">✓ </span>}
                {m.name}
              </span>
              <span className="muted">
                {m.parameterSize} {formatBytes(m.size)}
              </span>
              <ModelBadges model={m} />
            </>
          ),
        })}
      >
        {models.length === 0 && <div className="muted pad">No models on the server yet. Pull one below.</div>}
        {models.length > 0 && shown.length === 0 && <div className="muted pad">No model matches “{filter}”.</div>}
      </ComboList>
      <form
        className="pull-form"
        onSubmit={(e) => {
          e.preventDefault()
          void store.pullModel(pullName)
          setPullName('')
        }}
      >
        <input
          placeholder="Pull a model, e.g. qwen3:4b"
          aria-label="Model to pull"
          value={pullName}
          onChange={(e) => setPullName(e.target.value)}
        />
        <button type="submit" disabled={!pullName.trim()}>
          Pull
        </button>
      </form>
      {pullList.map((p) => (
        <PullBar key={p.name} pull={p} />
      ))}
    </HeaderMenu>
  )
}

/** The folders a user worked in: the one shown, the next new chat's, then every chat's. */
export function recentFolders(s: AppState): string[] {
  const all = [headerWorkspace(s), s.config?.workspace ?? '', ...s.chatList.map((c) => c.workspace ?? '')]
  return Array.from(new Set(all.filter(Boolean))).slice(0, 10)
}

/**
 * The folder the header shows (the open chat's, else the next new chat's). Opened (click or
 * Ctrl+O): the folders worked in, "Other folder…" (the system's dialog), and a field to type a
 * path; ↑/↓ move, Enter picks, Esc closes. A folder picked while a chat is open is asked about
 * (this chat, or a new one).
 */
export function FolderMenu() {
  const store = useStore()
  const workspace = useAppState(headerWorkspace)
  const folders = useAppState(useCallback((s: AppState) => recentFolders(s).join('\n'), [])).split('\n').filter(Boolean)
  const menu = useHeaderMenu('folder')
  const typed = menu.text.trim()
  // what the Go side says of the typed path: a folder that does not exist is offered to be
  // created when its parent does, rather than offered and then refused
  const [check, setCheck] = useState<FolderCheck & { typed: string }>()
  useEffect(() => {
    let current = true
    if (typed) void store.checkFolder(typed).then((c) => current && setCheck({ ...c, typed }))
    return () => {
      current = false
    }
  }, [store, typed])
  const creatable = check?.typed === typed && !check.exists && check.canCreate
  const options = typed
    ? [creatable ? { label: `Create ${check.path} and use it`, dir: typed, create: true } : { label: `Use ${typed}`, dir: typed }]
    : [...folders.map((f) => ({ label: f, dir: f })), { label: 'Other folder…', dir: '' }]
  const choose = async (o: { dir: string; create?: boolean }) => {
    if (o.dir && !o.create) {
      // chosen before the check came back: a folder that can be created is offered first
      const c = await store.checkFolder(o.dir)
      if (!c.exists && c.canCreate) return setCheck({ ...c, typed: o.dir })
    }
    menu.close(false)
    if (o.create) void store.createFolder(o.dir)
    else if (o.dir) void store.requestFolder(o.dir)
    else void store.chooseFolder()
    focusComposer()
  }
  return (
    <HeaderMenu
      menu={menu}
      className="folder-menu"
      buttonClassName="header-button workspace"
      testId="workspace-button"
      shortcut={folderShortcut}
      what={workspace || 'Pick the folder Prototyper works in'}
      label={
        <>
          <Icon name="folder" /> {workspace ? baseName(workspace) : 'Pick a workspace…'}
        </>
      }
    >
      <ComboList
        id="folder-path"
        label="Folder path"
        placeholder="Type a folder path, or pick one below"
        value={menu.text}
        onType={menu.setText}
        listId="folder-list"
        listLabel="Folders"
        items={options}
        choose={(o) => void choose(o)}
        option={(o) => ({
          key: o.label,
          className: 'folder-option',
          title: o.dir,
          content: (
            <>
              {o.dir && o.dir === workspace && <span aria-label="in use">✓ </span>}
              {o.dir && !typed ? (
                <>
                  <span className="folder-name">{baseName(o.dir)}</span> <span className="muted small">{o.dir}</span>
                </>
              ) : (
                o.label
              )}
            </>
          ),
        })}
      />
    </HeaderMenu>
  )
}

/** Asks what a folder or model picked while a chat is open is for: this chat, or a new one. */
export function ChatChangeDialog() {
  const store = useStore()
  const change = useAppState((s) => s.pendingChange)
  const chat = useAppState((s) => s.chatList.find((c) => c.id === s.pendingChange?.chatId))
  // a chat that runs or waits for the user changes nothing until it is idle: said before, not after
  const busy = useAppState((s) => (s.pendingChange ? (s.chats[s.pendingChange.chatId]?.phase ?? 'idle') !== 'idle' : false))
  if (!change) return null
  const isFolder = change.kind === 'workspace'
  const now = isFolder ? baseName(chat?.workspace ?? '') : (chat?.model ?? '')
  const next = isFolder ? baseName(change.value) : change.value
  const done = () => focusComposer()
  return (
    <Dialog
      label={isFolder ? 'Change the folder?' : 'Change the model?'}
      testId="change-dialog"
      onClose={() => {
        store.cancelChange()
        done()
      }}
    >
      <h2>{isFolder ? `Work in ${next}?` : `Use ${next}?`}</h2>
      <p>
        “{chat?.title || 'This chat'}” {isFolder ? 'works in' : 'uses'} <strong>{now || 'nothing yet'}</strong>. Change
        this chat to <strong>{next}</strong> from its next message on, or start a new chat with it?
      </p>
      {change.kind === 'workspace' && <div className="muted small">{change.value}</div>}
      {busy && (
        <p className="small" data-testid="change-busy">
          This chat is running or waiting for your answer: stop it or answer first to change it, or start a new chat.
        </p>
      )}
      <div className="row end">
        <button type="button" onClick={() => (store.cancelChange(), done())}>
          Cancel
        </button>
        <button
          type="button"
          autoFocus={busy}
          className={busy ? 'primary' : undefined}
          data-testid="change-new-chat"
          onClick={() => void store.applyChange('new').then(done)}
        >
          Start a new chat
        </button>
        <button
          type="button"
          autoFocus={!busy}
          disabled={busy}
          className={busy ? undefined : 'primary'}
          data-testid="change-this-chat"
          onClick={() => void store.applyChange('chat').then(done)}
        >
          Change this chat
        </button>
      </div>
    </Dialog>
  )
}

const phaseLabels: Record<string, string> = {
  submitted: 'Sending…',
  streaming: 'Answering…',
  tools: 'Running tools…',
  continuing: 'Reading the results…',
  awaiting_approval: 'Waiting for your approval',
  awaiting_summary: 'Waiting for your answer: summarize older messages?',
}

/** Says that the Ollama server in use is the one Prototyper started, and stops when it quits. */
export function OllamaStartedBadge() {
  const status = useAppState((s) => s.ollama)
  if (!status?.running || !status.startedByApp) return null
  const log = status.logPath ? ` Its log: ${status.logPath}` : ''
  return (
    <span
      className="badge info ollama-started"
      data-testid="ollama-started"
      title={`Prototyper started this Ollama server at ${status.url} and stops it when it quits.${log}`}
    >
      Ollama (started by Prototyper)
    </span>
  )
}

/** The bar above the chat: the open chat's folder and model, its run state, settings. */
export function Header({ onSettings }: { onSettings: () => void }) {
  const phase = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle')
  const loading = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.loadingModel?.model : undefined))
  return (
    <header className="chat-header">
      <FolderMenu />
      <ModelPicker />
      <OllamaStartedBadge />
      <span className="spacer" />
      {phase !== 'idle' && (
        <span className={`run-state${isBusy(phase) ? ' busy' : ''}`} data-testid="run-state" data-phase={phase}>
          {isBusy(phase) && <span className="spinner" aria-hidden="true" />}{' '}
          {phase === 'submitted' && loading ? `Loading ${loading}…` : phaseLabels[phase]}
        </span>
      )}
      <ShortcutButton shortcut={settingsShortcut} what="Settings" className="header-button" aria-label="Settings" onClick={onSettings}>
        <Icon name="settings" />
      </ShortcutButton>
    </header>
  )
}
