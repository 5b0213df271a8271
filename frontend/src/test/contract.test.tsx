// The window can open every chat the store can hold. Each JSON file of the fixtures folder is a
// chat as OpenChat returns it (see contract/README.md); it goes through the path the window
// uses to open a chat, the chat view renders it, and every tool card must show its state.
//
// The folder is PROTOTYPER_CONTRACT_DIR when set (the Go side exports its scenarios there),
// else the hand-made fixtures committed beside this file.

import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { ChatView } from '../components/ChatView'
import { FakeBackend } from '../fakeBackend'
import type { OpenedChat } from '../backend'
import type { ToolVisualState } from '../state/chatReducer'
import { renderWithStore } from './renderWithStore'

// Node's fs, loaded at run time: the window's sources are typed for the browser only.
interface NodeFs {
  readdirSync(dir: string, opts: { recursive: boolean }): string[]
  readFileSync(file: string, encoding: 'utf8'): string
}
const fsModule = 'node:fs'
const fs = (await import(/* @vite-ignore */ fsModule)) as NodeFs

// Relative paths are read from frontend/, where the tests run.
const dir: string = (import.meta.env.PROTOTYPER_CONTRACT_DIR || 'src/test/contract').replace(/\/+$/, '')
const files = fs
  .readdirSync(dir, { recursive: true })
  .filter((f) => f.endsWith('.json'))
  .sort()

type Fixture = OpenedChat & { expect?: Record<string, ToolVisualState> }

// What each state says on its card, besides data-tool-state.
const badges: Record<ToolVisualState, RegExp> = {
  pending: /queued/,
  running: /running/,
  awaiting_approval: /awaiting approval/,
  completed: /✓/,
  failed: /✗ failed/,
  denied: /denied/,
  interrupted: /interrupted/,
  not_run: /not run/,
  stopped: /stopped/,
  undone: /undone/,
}

async function open(fixture: Fixture) {
  const opened: Partial<Fixture> = { ...fixture }
  delete opened.expect
  const backend = new FakeBackend()
  const id = opened.chat?.id || 'contract-chat'
  backend.opened[id] = opened as OpenedChat
  const { store } = renderWithStore(<ChatView />, backend)
  await act(() => store.selectChat(id))
  // A long chat shows its end first: ask for the rest as a user would.
  for (let i = 0; i < 1000 && screen.queryByTestId('show-earlier'); i++) {
    fireEvent.click(screen.getByTestId('show-earlier'))
  }
  return store
}

describe(`opened chats of ${dir}`, () => {
  it('has fixtures', () => {
    expect(files.length, `no JSON file in ${dir}`).toBeGreaterThan(0)
  })

  it.each(files)('%s opens, and each tool call shows its state', async (name) => {
    const fixture = JSON.parse(fs.readFileSync(`${dir}/${name}`, 'utf8')) as Fixture
    const store = await open(fixture)
    expect(store.getState().error, 'opening the chat failed').toBe('')
    expect(screen.queryAllByTestId('item-error').map((e) => e.textContent)).toEqual([])

    const cards = new Map(screen.queryAllByTestId('tool-card').map((el) => [el.dataset.toolCallId ?? '', el]))
    for (const record of fixture.toolCalls ?? []) {
      if (!record?.id) continue
      expect(cards.has(record.id), `no card for tool call ${record.id}`).toBe(true)
    }
    for (const [id, want] of Object.entries(fixture.expect ?? {})) {
      const card = cards.get(id)
      expect(card, `no card for tool call ${id}`).toBeTruthy()
      expect(card!.dataset.toolState, `state of ${id}`).toBe(want)
      expect(card!.textContent, `badge of ${id}`).toMatch(badges[want])
    }
    const shown = new Set(Array.from(document.querySelectorAll<HTMLElement>('[data-message-id]'), (e) => e.dataset.messageId))
    for (const m of fixture.messages ?? []) {
      if (m?.id && (m.role === 'user' || m.role === 'assistant') && m.content) {
        expect(shown.has(m.id), `message ${m.id} is shown`).toBe(true)
      }
    }
  })
})
