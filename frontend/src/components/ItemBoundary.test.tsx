import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { render, screen } from '@testing-library/react'
import { emptyChat, newCard, newMessage, type ChatState, type MessageView, type ToolCard } from '../state/chatReducer'
import { Timeline } from './ChatView'
import { ItemBoundary } from './ItemBoundary'
import { renderWithStore } from '../test/renderWithStore'

// An answer whose text holds "BOOM" makes the Markdown renderer throw, as a bug in it would.
vi.mock('../markdown/Markdown', () => ({
  Markdown: ({ text }: { text: string }) => {
    if (text.includes('BOOM')) throw new Error('the renderer failed on this text')
    return <div className="markdown">{text}</div>
  },
}))

let consoleError: MockInstance
beforeEach(() => {
  // React reports each caught error on the console; the tests expect them.
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => consoleError.mockRestore())

function answer(id: string, content: string): MessageView {
  return { ...newMessage(id, 'assistant', 'r1'), content, complete: true, doneReason: 'stop' }
}

function card(id: string, args: unknown): ToolCard {
  return { ...newCard(id, 'a1', 'r1'), name: 'write_file', args, state: 'completed', output: 'ok', durationMs: 3 }
}

function chatOf(messages: MessageView[], cards: ToolCard[] = []): ChatState {
  const s = emptyChat('c1')
  for (const m of messages) {
    s.messages[m.id] = m
    s.timeline.push({ kind: 'message', id: m.id })
  }
  for (const c of cards) {
    s.tools[c.id] = c
    s.timeline.push({ kind: 'tool', id: c.id })
  }
  return { ...s, loaded: true }
}

function show(chat: ChatState) {
  return renderWithStore(<Timeline chat={chat} />)
}

function Thrower({ message }: { message: string }): never {
  throw new Error(message)
}

describe('ItemBoundary', () => {
  it('shows the error of the item in its place and keeps its siblings', () => {
    render(
      <div>
        <p>before</p>
        <ItemBoundary what="message">
          <Thrower message="bad data" />
        </ItemBoundary>
        <p>after</p>
      </div>,
    )
    expect(screen.getByTestId('item-error').textContent).toBe('This message could not be shown: bad data')
    expect(screen.getByText('before')).toBeTruthy()
    expect(screen.getByText('after')).toBeTruthy()
  })

  it('tries the item again when it changes', () => {
    const Maybe = ({ fail }: { fail: boolean }) => (fail ? <Thrower message="not yet" /> : <p>fine now</p>)
    const { rerender } = render(
      <ItemBoundary what="message" resetKey={1}>
        <Maybe fail />
      </ItemBoundary>,
    )
    expect(screen.getByTestId('item-error')).toBeTruthy()
    rerender(
      <ItemBoundary what="message" resetKey={2}>
        <Maybe fail={false} />
      </ItemBoundary>,
    )
    expect(screen.queryByTestId('item-error')).toBeNull()
    expect(screen.getByText('fine now')).toBeTruthy()
  })
})

describe('a chat with an item that cannot be rendered', () => {
  it('shows that message’s error in place and the rest of the chat', () => {
    show(chatOf([answer('a0', 'First answer'), answer('a1', 'It went BOOM'), answer('a2', 'Last answer')]))
    const items = screen.getAllByTestId(/message-assistant|item-error/)
    expect(items.map((e) => e.textContent)).toEqual([
      'First answer',
      'This message could not be shown: the renderer failed on this text',
      'Last answer',
    ])
  })

  it('shows that tool card’s error in place, keeping its id and state, and the rest of the chat', () => {
    // Arguments whose path cannot be read make the card throw while it renders.
    const poisoned = Object.defineProperty({}, 'path', {
      enumerable: true,
      get() {
        throw new Error('unreadable arguments')
      },
    })
    show(chatOf([answer('a1', 'Writing two files')], [card('t1', poisoned), card('t2', { path: 'b.txt' })]))
    expect(screen.getByText('Writing two files')).toBeTruthy()
    const failed = screen.getByTestId('item-error')
    expect(failed.textContent).toBe('This tool call could not be shown: unreadable arguments')
    expect(failed.dataset.toolCallId).toBe('t1')
    expect(failed.dataset.toolState).toBe('completed')
    const fine = screen.getByTestId('tool-card')
    expect(fine.dataset.toolCallId).toBe('t2')
    expect(fine.textContent).toContain('b.txt')
  })
})
