import { useCallback } from 'react'
import { focusComposer } from '../keyboard/menus'
import { folderShortcut } from '../keyboard/shortcuts'
import { headerWorkspace, type AppState } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { ComboList } from './ComboList'
import { baseName } from './format'
import { HeaderMenu, useHeaderMenu } from './HeaderMenu'
import { Icon } from './icons'

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
  const options = typed
    ? [{ label: `Use ${typed}`, dir: typed }]
    : [...folders.map((f) => ({ label: f, dir: f })), { label: 'Other folder…', dir: '' }]
  const choose = (o: { dir: string }) => {
    menu.close(false)
    if (o.dir) void store.requestFolder(o.dir)
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
        choose={choose}
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
