// The Preview pane's state, outside React like the app's store: whether the pane is open and
// how wide, the page it shows (served by the Go side's preview room), the page's report, and
// when to reload. It listens to "agent:batch" itself: a preview.report event (of no chat)
// brings the report; a change a run, an undo or a redo made to the folder shown reloads the
// page at once.

import { errorText, type AgentEvent, type Backend, type PreviewPage, type PreviewReport } from '../backend'
import { Cell } from './cell'
import { headerWorkspace, type AppState, type AppStore } from './store'

export type PreviewWidth = 'desktop' | 'tablet' | 'phone'

/** The frame's width in CSS pixels at each size; desktop takes the pane's width. */
export const previewWidths: Record<PreviewWidth, number | null> = { desktop: null, tablet: 768, phone: 390 }

export interface PreviewState {
  open: boolean
  /** The pane takes the whole width of the window. */
  wide: boolean
  width: PreviewWidth
  /** The folder's site and its pages; null until the pane opened once (or when it failed). */
  site: PreviewPage | null
  /** The page shown ('' when the folder has none). */
  page: string
  /** Bumped by every change to the folder shown: the frame loads the page again. */
  reload: number
  /** What the page reported since it last loaded. */
  report: PreviewReport | null
  /** Why the pane shows nothing. */
  error: string
  /** Why the last screenshot could not be attached ('' when it was). */
  shotError?: string
}

/** Whether an event says that files of its chat's folder changed. */
export function changesFiles(ev: AgentEvent): boolean {
  if (ev.type === 'undo' || ev.type === 'redo') return true
  if (ev.type !== 'tool.result' || !ev.ok || !ev.details) return false
  const d = ev.details
  return !!(d.changed || d.created || (d.command?.changes?.length ?? 0) > 0)
}

/** The HTML page an event's call wrote, if any: a page the agent made is one to show. */
function pageWritten(ev: AgentEvent): string {
  const path = ev.type === 'tool.result' && ev.ok ? (ev.details?.path ?? '') : ''
  return /\.html?$/i.test(path) ? path : ''
}

/** The errors a report counts (errors, rejections, failed loads). */
export function errorCount(r: PreviewReport | null): number {
  return r?.errors?.length ?? 0
}

/**
 * The message "Fix these" sends: the count and the ask, not what the page said. The page's
 * words are the page's (a folder the user cloned, or text planted in a file the model copied,
 * can make them say anything): the model reads them as the output of preview_errors, which is
 * data (a call copied from it is not run), never as the user's own words.
 */
export function fixMessage(r: PreviewReport): string {
  const n = errorCount(r)
  return `The preview shows ${n === 1 ? '1 error' : `${n} errors`}. Please read them with preview_errors and fix them.`
}

export class PreviewStore extends Cell<PreviewState> {
  private unsubscribers: Array<() => void> = []
  /** The chat and folder the site was opened for: another one opens its own. */
  private openedFor = ''
  /** The page the user picked in this folder ('' : the default). */
  private picked = ''

  constructor(
    private readonly backend: Backend,
    private readonly app: AppStore,
  ) {
    super({ open: false, wide: false, width: 'desktop', site: null, page: '', reload: 0, report: null, error: '' })
  }

  getState = this.get

  start(): () => void {
    this.unsubscribers.push(this.backend.onBatch((events) => this.ingest(events)))
    this.unsubscribers.push(this.app.subscribe(() => this.followChat(this.app.getState())))
    return () => {
      for (const u of this.unsubscribers.splice(0)) u()
    }
  }

  toggle = (): void => {
    if (this.state.open) this.set({ open: false, wide: false })
    else {
      this.set({ open: true })
      void this.load()
    }
  }

  toggleWide = (): void => {
    if (!this.state.open) {
      this.set({ open: true, wide: true })
      void this.load()
    } else this.set({ wide: !this.state.wide })
  }

  setWidth = (width: PreviewWidth): void => this.set({ width })

  pick = (page: string): void => {
    this.picked = page
    this.set({ page, report: null, reload: this.state.reload + 1 })
  }

  reloadNow = (): void => this.set({ reload: this.state.reload + 1 })

  /** Sends what the page reported to the open chat, as a message of the user. */
  fixThese = async (): Promise<void> => {
    const r = this.state.report
    if (r && errorCount(r) > 0) await this.app.send(fixMessage(r))
  }

  /**
   * Attaches a PNG of the page as the pane shows it (the frame's rectangle in the window's CSS
   * pixels, whose viewport is viewWidth wide) to the message being typed, as a pasted image: the composer
   * refuses it the same way for a model that cannot see. The frame is another origin, so the
   * picture comes from the web view itself, not from the window's script.
   */
  attachScreenshot = async (frame: { x: number; y: number; width: number; height: number }, viewWidth: number): Promise<boolean> => {
    try {
      const png = await this.backend.previewScreenshot(frame.x, frame.y, frame.width, frame.height, viewWidth)
      this.app.attachImages([png])
      if (this.state.shotError) this.set({ shotError: '' })
      return true
    } catch (err) {
      this.set({ shotError: errorText(err) })
      return false
    }
  }

  private key(s: AppState): string {
    return `${s.activeChatId ?? ''}\n${headerWorkspace(s)}`
  }

  private followChat(s: AppState): void {
    if (this.state.open && this.key(s) !== this.openedFor) void this.load()
  }

  /** Opens the site of the open chat's folder and picks the page to show. */
  private async load(want = this.picked): Promise<void> {
    const s = this.app.getState()
    const key = this.key(s)
    if (key !== this.openedFor) this.picked = want = ''
    this.openedFor = key
    try {
      const site = await this.backend.previewOpen(s.activeChatId ?? '', want)
      if (this.openedFor !== key) return // another chat was opened meanwhile
      const sameSite = this.state.site?.url === site.url
      this.set({
        site,
        page: site.page,
        error: site.page ? '' : 'This folder has no web page yet: an index.html (or another .html file) shows here.',
        report: site.report.page === site.page ? site.report : null,
        reload: sameSite ? this.state.reload + 1 : this.state.reload,
      })
    } catch (err) {
      if (this.openedFor === key) this.set({ site: null, page: '', error: errorText(err), report: null })
    }
  }

  /** Takes the reports of the page shown, and reloads it after a change to its folder. */
  ingest(batch: AgentEvent[]): void {
    let reload = false
    let written = ''
    for (const ev of batch) {
      if (ev.type === 'preview.report' && ev.report) {
        const r = ev.report
        if (r.url === this.state.site?.url && r.page === this.state.page) this.set({ report: r })
        continue
      }
      if (!this.state.open || !changesFiles(ev) || !this.ofFolderShown(ev.chatId)) continue
      reload = true
      written = pageWritten(ev) || written
    }
    if (!reload) return
    // A folder with no page yet, or a page the agent just wrote while none was picked: look again.
    if (!this.state.page || (written && !this.picked && written !== this.state.page)) void this.load(written)
    else this.set({ reload: this.state.reload + 1 })
  }

  private ofFolderShown(chatId: string): boolean {
    const site = this.state.site
    if (!site) return !this.state.page
    const chat = this.app.getState().chatList.find((c) => c.id === chatId)
    return !chat?.workspace || chat.workspace === site.workspace
  }
}
