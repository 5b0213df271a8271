import { useCallback, useEffect, useState } from 'react'
import type { FolderCheck } from '../backend'
import { focusComposer } from '../keyboard/menus'
import { folderShortcut } from '../keyboard/shortcuts'
import { headerWorkspace, type AppState } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { ComboList } from './ComboList'
import { baseName } from './format'
import { HeaderMenu, useHeaderMenu } from './HeaderMenu'
import { Icon } from './icons'

/** How many folders the menu lists (the Go side remembers as many: store.MaxRecentFolders). */
const shownFolders = 8

/**
 * The folders a user worked in: the one shown, the next new chat's, those new chats last took
 * (the one the app was started with among them, remembered across starts), then every chat's.
 */
export function recentFolders(s: AppState): string[] {
  const all = [
    headerWorkspace(s),
    s.config?.workspace ?? '',
    ...(s.config?.recentFolders ?? []).map((f) => f.path),
    ...s.chatList.map((c) => c.workspace ?? ''),
  ]
  return Array.from(new Set(all.filter(Boolean))).slice(0, shownFolders)
}

/** The remembered folders that are gone (moved or deleted since), as the Go side found them. */
function missingFolders(s: AppState): string {
  return (s.config?.recentFolders ?? [])
    .filter((f) => f.missing)
    .map((f) => f.path)
    .join('\n')
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
  const missing = new Set(useAppState(missingFolders).split('\n'))
  // the list is read again each time the menu opens: a folder deleted since says so
  const reload = useCallback(() => void store.loadConfig(), [store])
  const menu = useHeaderMenu('folder', reload)
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
  // why a listed folder that is gone cannot be made again, said in the menu until the next key
  const [why, setWhy] = useState('')
  useEffect(() => setWhy(''), [typed, menu.open])
  const options = typed
    ? [creatable ? { label: `Create ${check.path} and use it`, dir: typed, create: true } : { label: `Use ${typed}`, dir: typed }]
    : [...folders.map((f) => ({ label: f, dir: f, missing: missing.has(f) })), { label: 'Other folder…', dir: '' }]
  const choose = async (o: { dir: string; create?: boolean; missing?: boolean }) => {
    if (o.dir && !o.create) {
      // chosen before the check came back, or a listed folder that is gone: a folder that can
      // be created is offered first, as it is when its path is typed
      const c = await store.checkFolder(o.dir)
      if (!c.exists && c.canCreate) {
        setCheck({ ...c, typed: o.dir })
        menu.setText(o.dir)
        return
      }
      if (o.missing && !c.exists) return setWhy(goneWithItsParent(c.path || o.dir))
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
        between={
          why && (
            <p className="menu-note warn" role="alert">
              {why}
            </p>
          )
        }
        items={options}
        choose={(o) => void choose(o)}
        option={(o) => ({
          key: o.label,
          className: 'folder-option',
          title: o.dir,
          content: (
            <>
              {o.dir && o.dir === workspace && !('create' in o && o.create) && <span aria-label="in use">✓ </span>}
              {o.dir && !typed ? (
                <>
                  <span className="folder-name">{baseName(o.dir)}</span>{' '}
                  {'missing' in o && o.missing && <span className="badge warn">Not found: moved or deleted</span>}{' '}
                  <span className="muted small">{o.dir}</span>
                </>
              ) : (
                <span className="folder-label">{o.label}</span>
              )}
            </>
          ),
        })}
      />
    </HeaderMenu>
  )
}

/** Why a folder that is gone cannot be created again: the folder it was in is gone too. */
export function goneWithItsParent(path: string): string {
  const parent = path.replace(/[\\/]+$/, '').replace(/[\\/][^\\/]*$/, '') || '/'
  return `${path} cannot be created again because ${parent} is gone too: pick another folder, or create ${parent} first.`
}
