// The shape of the window's state, the cell that holds it, and the selectors read from it.
// Every concern of the store (feed.ts, drafts.ts, serverWatch.ts, pulls.ts, checks.ts,
// approvals.ts, undoReview.ts, settings.ts, session.ts, versions.ts) changes this one state through one
// StateCell, so that a component subscribed once sees every change.

import type { Backend, ChatSummary, Config, Decision, FileChange, ModelInfo, OllamaStatus, PromptBudget, StarterModel, UndoOptions, Version } from '../backend'
import { errorText } from '../backend'
import { Cell } from './cell'
import type { ChatState } from './chatReducer'
import type { CheckState } from './checks'

export interface PullState {
  name: string
  status: string
  total: number
  completed: number
  /** Smoothed download speed. */
  bytesPerSec: number
  error: string
  done: boolean
}

export interface AppState {
  config: Config | null
  configError: string
  ollama: OllamaStatus | null
  checkingOllama: boolean
  models: ModelInfo[]
  /** The models offered to pull when the server has none (one list, from the Go side). */
  starters: StarterModel[]
  chatList: ChatSummary[]
  activeChatId: string | null
  chats: Record<string, ChatState>
  pulls: Record<string, PullState>
  /** By model: its latest check on this machine and a check under way (checks.ts). */
  checks: Record<string, CheckState>
  /** The last action that failed, in one sentence; shown until dismissed, another chat is opened or a message is sent. */
  error: string
  /**
   * What the failed action was about, when a later success makes its sentence stale: 'folder'
   * (a folder picked that could not be used goes once a folder is picked and used).
   */
  errorAbout: 'folder' | null
  /** True once start() has loaded the settings, the chats and the chat shown at start. */
  ready: boolean
  /** Decisions sent for tool calls and not refused: their buttons are spent. */
  decisions: Record<string, Decision>
  /** How long a message may be, by budgetKey (chat and model). */
  budgets: Record<string, PromptBudget>
  /** The open review of a chat's changed files ("Changes"), or null. */
  review: { chatId: string; files: FileChange[]; loading: boolean } | null
  /** An undo or redo refused because files changed since: what was asked, and why. */
  undoConflict: { chatId: string; redo: boolean; opts: UndoOptions; message: string } | null
  /**
   * What the last undo or redo did, in one sentence, and the chat it was done in (shown there
   * only) until that chat's next run starts (a run.started after seq).
   */
  undoNote: { chatId: string; text: string; seq: number } | null
  /** The waiting call whose "Deny and tell the model why" field is open. */
  reasonFor: string | null
  /** What the user chose so far on a waiting command's card (network, the prefix to always allow), by call. */
  commandChoices: Record<string, CommandChoice>
  /** By chat: the messages that start one of several versions of its history. */
  versions: Record<string, Version[]>
  /** A folder or model chosen while a chat is open: the window asks what it is for. */
  pendingChange: PendingChange | null
  /** The user message being edited in the open chat ('' when none). */
  editing: string
  /** By chat: the messages sent while it was busy that its run has not taken yet, oldest first. */
  queued: Record<string, string[]>
  /** Text of queued messages a stopped run never took, given back to the composer ('' none). */
  restoredDraft: string
  /** The chat ('' the new chat) whose box restoredDraft and restoredImages are for. */
  restoredFor: string
  /** Images (base64) of those messages, given back with their text. */
  restoredImages: string[]
}

/** A folder or a model the user picked in the header while a chat was open. */
export interface PendingChange {
  kind: 'workspace' | 'model'
  value: string
  chatId: string
}

/** On a waiting run_command card: whether it may use the network, and the prefix "Always allow" remembers. */
export interface CommandChoice {
  network: boolean
  pattern: string
}

/** The state of a window that has loaded nothing yet. */
export function initialState(): AppState {
  return {
    config: null,
    configError: '',
    ollama: null,
    checkingOllama: false,
    models: [],
    starters: [],
    chatList: [],
    activeChatId: null,
    chats: {},
    pulls: {},
    checks: {},
    error: '',
    errorAbout: null,
    ready: false,
    decisions: {},
    budgets: {},
    review: null,
    undoConflict: null,
    undoNote: null,
    reasonFor: null,
    commandChoices: {},
    versions: {},
    pendingChange: null,
    editing: '',
    queued: {},
    restoredDraft: '',
    restoredFor: '',
    restoredImages: [],
  }
}

/**
 * The one immutable state and its listeners, with the backend every concern calls: each change
 * replaces the state and notifies once.
 */
export class StateCell extends Cell<AppState> {
  constructor(readonly backend: Backend) {
    super(initialState())
  }

  /** Every concern of the store changes the app's state. */
  override set(patch: Partial<AppState>): void {
    super.set(patch)
  }

  setChat(chatId: string, chat: ChatState): void {
    this.set({ chats: { ...this.state.chats, [chatId]: chat } })
  }

  /** Says in one sentence what failed (shown until dismissed); about marks what makes it stale. */
  fail(err: unknown, about: AppState['errorAbout'] = null): void {
    this.set({ error: errorText(err), errorAbout: about })
  }

  dismissError = (): void => this.set({ error: '', errorAbout: null })

  /** A folder was picked and is used: a sentence about a folder that could not be is stale. */
  folderPicked(): void {
    if (this.state.errorAbout === 'folder') this.dismissError()
  }
}

/** Whether two names are the same model (a name without a tag is the model's ":latest"). */
export function sameModel(a: string, b: string): boolean {
  const full = (n: string) => (n && !n.includes(':') ? `${n}:latest` : n)
  return full(a) === full(b)
}

/** The open chat's summary, when a chat is open and listed. */
export function activeSummary(s: Pick<AppState, 'activeChatId' | 'chatList'>): ChatSummary | undefined {
  return s.activeChatId ? s.chatList.find((c) => c.id === s.activeChatId) : undefined
}

/** The folder the header shows: the open chat's, else the one a new chat takes. */
export function headerWorkspace(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return activeSummary(s)?.workspace || s.config?.workspace || ''
}

/** The model the header shows: the open chat's, else the one a new chat takes. */
export function headerModel(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return activeSummary(s)?.model || s.config?.model || ''
}

/** The key of the budget that applies to the composer now: the open chat and the model. */
export function budgetKey(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return `${s.activeChatId ?? ''}\n${headerModel(s)}`
}

/** The server's model of that name (a name without a tag is the model's ":latest"). */
export function findModel(models: ModelInfo[], name: string): ModelInfo | undefined {
  return models.find((m) => sameModel(m.name, name))
}

/** True when Ollama answers and has no model yet: the window offers a first one. */
export function needsFirstModel(s: Pick<AppState, 'ollama' | 'models'>): boolean {
  return !!s.ollama?.running && s.models.length === 0
}
