// The whole window on the in-memory backend, as the tests of its behaviour mount it: prepare
// sets the backend up (its chats, what it answers) before the window starts.

import { act } from '@testing-library/react'
import { App } from '../App'
import type { AgentEvent, ChatSummary } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { renderWithStore } from './renderWithStore'

/**
 * The window mounted, with the backend, the animation frames and the store; emit(events) sends
 * the window one batch, emitPainted(events) sends it and runs the frames that paint it.
 */
export async function mountApp(chats: ChatSummary[], prepare: (b: FakeBackend) => void = () => {}) {
  const backend = new FakeBackend()
  backend.chats = chats
  prepare(backend)
  const { frames, store } = renderWithStore(<App />, backend)
  await act(() => store.start())
  const emit = (events: BatchEvent[]) => {
    act(() => {
      backend.emit(events)
    })
  }
  const emitPainted = (events: BatchEvent[]) => {
    act(() => {
      backend.emit(events)
      frames.drain()
    })
  }
  return { backend, frames, store, emit, emitPainted }
}

/** An event as a test writes it: its type and what the test is about (FakeBackend.emit fills the rest). */
type BatchEvent = Partial<AgentEvent> & Pick<AgentEvent, 'type'>

/** A chat as the list has it, idle, in folder workspace. */
export function summary(id: string, title: string, workspace: string, updatedAt: string, model = 'qwen3:4b'): ChatSummary {
  return { id, title, model, workspace, createdAt: updatedAt, updatedAt, messageCount: 2, phase: 'idle' }
}
