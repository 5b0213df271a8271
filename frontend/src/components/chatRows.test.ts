import { describe, expect, it } from 'vitest'
import type { ChatSummary } from '../backend'
import { groupByFolder } from './ChatList'
import { chatAfterKey, chatRows, rowOffsets, scrollToShow, visibleRows } from './chatRows'

function chats(n: number, folder = (i: number) => `/w/${i % 2}`): ChatSummary[] {
  return Array.from({ length: n }, (_, i) => ({ id: `c${i}`, title: `Chat ${i}`, workspace: folder(i) }) as ChatSummary)
}

describe('the chat list windowed', () => {
  it('renders only the rows in view and a few more, wherever the list is scrolled', () => {
    const { rows } = chatRows(groupByFolder(chats(10_000, () => '/w')))
    const offsets = rowOffsets(rows, { head: 20, chat: 40 })
    expect(offsets[rows.length]).toBe(400_000)
    expect(visibleRows(offsets, 0, 400, 2)).toEqual([0, 13])
    expect(visibleRows(offsets, 200_000, 400, 2)).toEqual([4998, 5013])
    expect(visibleRows(offsets, 399_600, 400, 2)).toEqual([9988, 10_000])
  })

  it('places each group heading before its chats, and knows each chat by its place in the list', () => {
    const { rows, chats: ordered, rowOf } = chatRows(groupByFolder(chats(4)))
    expect(rows.map((r) => (r.kind === 'head' ? `head ${r.group}` : r.chat.id))).toEqual(['head 0', 'c0', 'c2', 'head 1', 'c1', 'c3'])
    expect(ordered.map((c) => c.id)).toEqual(['c0', 'c2', 'c1', 'c3'])
    expect(rowOf).toEqual([1, 2, 4, 5])
    const offsets = rowOffsets(rows, { head: 20, chat: 40 })
    expect(offsets).toEqual([0, 20, 60, 100, 120, 160, 200])
  })

  it('scrolls just enough to show the chat the keys went to', () => {
    const offsets = rowOffsets(chatRows(groupByFolder(chats(100, () => '/w'))).rows, { head: 20, chat: 40 })
    expect(scrollToShow(offsets, 0, 400, 200)).toBe(0)
    expect(scrollToShow(offsets, 99, 0, 200)).toBe(4000 - 200)
    expect(scrollToShow(offsets, 11, 400, 200)).toBe(400)
  })

  it('moves by one, a page, or to the first or last chat, never past the ends', () => {
    expect(chatAfterKey('ArrowDown', 9, 10, 5)).toBe(9)
    expect(chatAfterKey('ArrowUp', 0, 10, 5)).toBe(0)
    expect(chatAfterKey('PageDown', 2, 10, 5)).toBe(7)
    expect(chatAfterKey('End', 2, 10_000, 5)).toBe(9999)
    expect(chatAfterKey('Home', 2, 10, 5)).toBe(0)
    expect(chatAfterKey('a', 2, 10, 5)).toBeNull()
  })
})
