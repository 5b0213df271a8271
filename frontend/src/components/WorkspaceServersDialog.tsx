import { useEffect, useState } from 'react'
import type { ServerLaunch, WorkspaceServers } from '../backend'
import { focusComposer } from '../keyboard/menus'
import { headerWorkspace } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { Dialog } from './Dialog'
import { baseName } from './format'

/** A command line as a terminal would read it: each argument that holds a space or a quote quoted. */
export function commandLine(l: ServerLaunch): string {
  const quote = (a: string) => (a === '' || /[\s"'\\$`]/.test(a) ? JSON.stringify(a) : a)
  return [l.command ?? '', ...(l.args ?? [])].map(quote).join(' ')
}

/** The event the settings send to review a folder's servers the user did not allow. */
export const reviewWorkspaceServersEvent = 'prototyper:review-workspace-servers'

/** Opens the question again about the folder's servers, also when the user refused them. */
export function reviewWorkspaceServers(): void {
  window.dispatchEvent(new Event(reviewWorkspaceServersEvent))
}

/**
 * Asks, before anything of it runs, whether the MCP servers a folder's own .prototyper/mcp.json
 * names may start: each command with its arguments, each url. Asked when the folder in use
 * changes and when the window comes back to the front, once per folder and file content (the
 * Go side remembers the answer with the file's hash). Esc answers nothing: the servers do not
 * start, and the question comes again.
 */
export function WorkspaceServersDialog() {
  const store = useStore()
  const folder = useAppState(headerWorkspace)
  const [asked, setAsked] = useState<WorkspaceServers | null>(null)
  const [closed, setClosed] = useState('') // the hash the user closed unanswered, not asked again until the folder changes

  useEffect(() => {
    if (!folder) return
    let live = true
    const ask = () =>
      void store.workspaceServersToAsk(folder).then((found) => {
        if (live) setAsked(found && (found.servers ?? []).length > 0 ? found : null)
      })
    const review = () =>
      void store.workspaceServersToAsk(folder, true).then((found) => {
        if (!live) return
        setClosed('')
        setAsked(found && (found.servers ?? []).length > 0 ? found : null)
      })
    ask()
    window.addEventListener('focus', ask)
    window.addEventListener(reviewWorkspaceServersEvent, review)
    return () => {
      live = false
      window.removeEventListener('focus', ask)
      window.removeEventListener(reviewWorkspaceServersEvent, review)
    }
  }, [folder, store])
  useEffect(() => setClosed(''), [folder])

  if (!asked || asked.hash === closed) return null
  const answer = (allow: boolean) => {
    const { workspace, hash } = asked
    setAsked(null)
    void store.answerWorkspaceServers(workspace, hash, allow)
    focusComposer()
  }
  const servers = asked.servers ?? []
  return (
    <Dialog
      label="Allow this folder's MCP servers?"
      testId="workspace-servers-dialog"
      className="workspace-servers"
      onClose={() => {
        setClosed(asked.hash)
        focusComposer()
      }}
    >
      <h2>Allow the MCP servers of {baseName(asked.workspace)}?</h2>
      <p>
        This folder names {servers.length === 1 ? 'an MCP server' : `${servers.length} MCP servers`} in its own{' '}
        <code>.prototyper/mcp.json</code>. Allowed, Prototyper runs {servers.length === 1 ? 'it' : 'them'} on your computer, as you, with what
        the file says. Allow only a folder you trust.
      </p>
      <ul className="server-launches" aria-label="What the folder's servers run">
        {servers.map((l) => (
          <li key={l.name} data-testid="workspace-server">
            <strong>{l.name}</strong> {l.url ? 'connects to' : 'runs'}{' '}
            <code data-testid="workspace-server-launch">{l.url ? l.url : commandLine(l)}</code>
            {(l.env ?? []).length > 0 && <span className="muted small"> with {(l.env ?? []).join(', ')}</span>}
            {(l.headers ?? []).length > 0 && <span className="muted small"> sending {(l.headers ?? []).join(', ')}</span>}
          </li>
        ))}
      </ul>
      <div className="muted small">{asked.file}</div>
      <div className="row end">
        <button type="button" autoFocus data-testid="workspace-servers-refuse" onClick={() => answer(false)}>
          Don’t allow
        </button>
        <button type="button" className="primary" data-testid="workspace-servers-allow" onClick={() => answer(true)}>
          Allow
        </button>
      </div>
    </Dialog>
  )
}
