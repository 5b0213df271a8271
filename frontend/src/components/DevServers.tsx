// The development servers in the Preview pane: for each one the agent started, "Preview the
// server at :PORT", its command and latest output, and Stop. The server shown replaces the
// folder's page in the pane's frame.

import { createContext, useContext, useSyncExternalStore } from 'react'
import type { DevServerStore, DevServersState } from '../state/devServers'

export const DevServersContext = createContext<DevServerStore | null>(null)

const none: DevServersState = { servers: [], shown: null, note: '' }
const noStore = { subscribe: () => () => {}, getState: () => none }

/** The state of the window's servers (none when the window has no server store). */
export function useDevServers(): [DevServersState, DevServerStore | null] {
  const store = useContext(DevServersContext)
  const src = store ?? noStore
  return [useSyncExternalStore(src.subscribe, src.getState), store]
}

export function DevServerList() {
  const [s, store] = useDevServers()
  if (!store || (s.servers.length === 0 && !s.note && !s.shown)) return null
  return (
    <section className="dev-servers" aria-label="Servers">
      {s.servers.map(({ info, output }) => {
        const shown = s.shown?.id === info.id
        return (
          <div key={info.id} className="dev-server" role="group" aria-label={`Server at :${info.port}`}>
            <div className="dev-server-bar">
              <span className="badge ok" role="status">
                Running
              </span>
              <code title={info.cwd ? `in ${info.cwd}` : undefined}>{info.command}</code>
              {shown ? (
                <button type="button" className="link" onClick={store.hide}>
                  Back to the folder's page
                </button>
              ) : (
                <button type="button" onClick={() => void store.show(info.id)}>
                  Preview the server at :{info.port}
                </button>
              )}
              <button type="button" onClick={() => void store.stop(info.id)} aria-label={`Stop the server at :${info.port}`}>
                Stop
              </button>
            </div>
            {output && (
              <pre className="dev-server-output" aria-label={`Output of the server at :${info.port}`} tabIndex={0}>
                {output}
              </pre>
            )}
          </div>
        )
      })}
      {s.note && (
        <p className="dev-server-note" role="status">
          {s.note}
        </p>
      )}
    </section>
  )
}
