import { useCallback, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react'
import { chatAfterKey, rowOffsets, scrollToShow, visibleRows, type ChatRow, type RowHeights } from './chatRows'

/** Row heights before the window measured one (a chat's two lines, a group's heading). */
const guessedHeights: RowHeights = { head: 24, chat: 46 }

/**
 * The rows of the chat list to render, for the list scrolled in view (the element of ref), and
 * the keys that move between chats: arrows, Page Up/Down, Home and End scroll the chat they go
 * to into view, render it and give it the focus, so that every chat is reachable by keyboard
 * though only those in view are in the page.
 */
export function useChatWindow(ref: RefObject<HTMLElement | null>, rows: ChatRow[], rowOf: number[], chatIds: string[]) {
  const [view, setView] = useState({ top: 0, height: 0 })
  const [heights, setHeights] = useState(guessedHeights)
  const [current, setCurrent] = useState<string | null>(null)
  const focusNext = useRef<string | null>(null)
  const offsets = useMemo(() => rowOffsets(rows, heights), [rows, heights])
  const [start, end] = visibleRows(offsets, view.top, view.height)

  const readView = useCallback(() => {
    const el = ref.current
    if (!el) return
    setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }))
  }, [ref])

  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    readView()
    el.addEventListener('scroll', readView, { passive: true })
    const resized = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(readView)
    resized?.observe(el)
    return () => {
      el.removeEventListener('scroll', readView)
      resized?.disconnect()
    }
  }, [ref, readView])

  // The heights as laid out (fonts and text scale vary): the distance between two chats in a
  // list, and a heading with its margins. Unmeasured (no layout, as in tests), the guesses stand.
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const items = el.querySelectorAll<HTMLElement>('ul > li.chat-item:not(.confirm)')
    const head = el.querySelector<HTMLElement>('.chat-group-head')
    let chat = heights.chat
    for (let i = 1; i < items.length; i++) {
      const step = items[i].offsetTop - items[i - 1].offsetTop
      if (items[i].parentElement === items[i - 1].parentElement && step > 0) {
        chat = step
        break
      }
    }
    let headH = heights.head
    if (head && head.offsetHeight > 0) {
      const style = getComputedStyle(head)
      headH = head.offsetHeight + parseFloat(style.marginTop || '0') + parseFloat(style.marginBottom || '0')
    }
    if (chat !== heights.chat || headH !== heights.head) setHeights({ head: headH, chat })
  }, [ref, start, end, rows, heights.chat, heights.head])

  // A chat the keys moved to gets the focus once it is rendered.
  useLayoutEffect(() => {
    const el = ref.current
    const id = focusNext.current
    if (el && id !== null) {
      const button = el.querySelector<HTMLElement>(`li[data-chat-id="${CSS.escape(id)}"] button.chat-title`)
      if (button) {
        focusNext.current = null
        button.focus()
      }
    }
  }, [ref, start, end, current])

  const focusChat = useCallback(
    (i: number) => {
      const el = ref.current
      if (!el || i < 0 || i >= chatIds.length) return
      // the first and last chats to the very ends, so that the list's padding shows their focus ring
      const ends = i === 0 ? 0 : i === chatIds.length - 1 ? el.scrollHeight : null
      el.scrollTop = ends ?? scrollToShow(offsets, rowOf[i], el.scrollTop, el.clientHeight)
      readView()
      focusNext.current = chatIds[i]
      setCurrent(chatIds[i])
    },
    [ref, offsets, rowOf, chatIds, readView],
  )

  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLElement>) => {
      const id = (e.target as HTMLElement).closest('button.chat-title')?.closest('li')?.dataset.chatId
      if (id === undefined || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return
      const page = Math.max(1, Math.floor(view.height / heights.chat) - 1)
      const next = chatAfterKey(e.key, chatIds.indexOf(id), chatIds.length, page)
      if (next === null) return
      e.preventDefault()
      focusChat(next)
    },
    [chatIds, focusChat, view.height, heights.chat],
  )

  const onFocus = useCallback((e: { target: EventTarget }) => {
    const id = (e.target as HTMLElement).closest?.('button.chat-title')?.closest('li')?.dataset.chatId
    if (id !== undefined) setCurrent(id)
  }, [])

  return { start, end, offsets, current, onKeyDown, onFocus }
}
