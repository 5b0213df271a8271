// The development servers the agent started (start_server), for the Preview pane: each one
// running, its latest output, and the one the pane shows. It listens to "agent:batch" itself:
// server.started, server.output and server.ended are events of no chat. A server keeps running
// after its turn; the pane's Stop, stop_server, its chat's Stop or deletion, or the app's quit
// ends it.

import { errorText, type AgentEvent, type Backend, type DevServer } from '../backend'
import { Cell } from './cell'

/** How much of a server's latest output the pane keeps. */
export const serverOutputChars = 16 * 1024

export interface RunningServer {
  info: DevServer
  /** Its latest output, both streams in order, at most serverOutputChars. */
  output: string
}

export interface DevServersState {
  servers: RunningServer[]
  /** The server the pane shows, and the address the app forwards to it. */
  shown: { id: string; port: number; url: string } | null
  /** How the last server shown ended, or why it could not be shown. */
  note: string
}

export class DevServerStore extends Cell<DevServersState> {
  constructor(private readonly backend: Backend) {
    super({ servers: [], shown: null, note: '' })
  }

  getState = this.get

  /** Listens to the events and reads the servers that already run (a window reloaded). */
  start(): () => void {
    const off = this.backend.onBatch((events) => this.ingest(events))
    void this.backend.devServers().then(
      (list) => {
        const known = new Set(this.state.servers.map((s) => s.info.id))
        const more = list.filter((s) => !known.has(s.id)).map((info) => ({ info, output: '' }))
        if (more.length > 0) this.set({ servers: [...this.state.servers, ...more] })
      },
      () => {},
    )
    return off
  }

  ingest(batch: AgentEvent[]): void {
    let servers = this.state.servers
    let shown = this.state.shown
    let note = this.state.note
    for (const ev of batch) {
      const id = ev.toolCallId ?? ''
      if (ev.type === 'server.started' && ev.update) {
        const info = ev.update as DevServer
        if (!servers.some((s) => s.info.id === info.id)) servers = [...servers, { info, output: '' }]
      } else if (ev.type === 'server.output' && ev.text) {
        const text = ev.text
        servers = servers.map((s) => (s.info.id === id ? { ...s, output: (s.output + text).slice(-serverOutputChars) } : s))
      } else if (ev.type === 'server.ended') {
        const gone = servers.find((s) => s.info.id === id)
        servers = servers.filter((s) => s.info.id !== id)
        if (shown?.id === id || gone) {
          if (shown?.id === id) shown = null
          note = `${ev.message ?? 'The server ended.'}${gone ? ` (${gone.info.command})` : ''}`
        }
      }
    }
    if (servers !== this.state.servers || shown !== this.state.shown || note !== this.state.note) this.set({ servers, shown, note })
  }

  /** Shows server id in the pane, through the address the app forwards to its port. */
  show = async (id: string): Promise<void> => {
    const s = this.state.servers.find((x) => x.info.id === id)
    if (!s) return
    try {
      const url = await this.backend.devServerURL(id)
      this.set({ shown: { id, port: s.info.port, url }, note: '' })
    } catch (err) {
      this.set({ note: errorText(err) })
    }
  }

  /** Goes back to the folder's own page. */
  hide = (): void => this.set({ shown: null })

  stop = async (id: string): Promise<void> => {
    try {
      await this.backend.stopDevServer(id)
    } catch (err) {
      this.set({ note: errorText(err) })
    }
  }
}
