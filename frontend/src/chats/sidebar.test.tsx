import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { mountApp } from '../test/mountApp'
import { sidebarShown } from '../sidebar'

/** A window as wide as given: matchMedia answers the list's width query for it. */
function windowWidth(px: number) {
  vi.stubGlobal('matchMedia', (q: string) => ({
    matches: Number(/min-width: (\d+)px/.exec(q)?.[1] ?? 0) <= px,
    addEventListener: () => {},
    removeEventListener: () => {},
  }))
}

afterEach(() => vi.unstubAllGlobals())

describe('the list of chats', () => {
  it('is shown as the user chose it, and before any choice only in a wide window', () => {
    expect(sidebarShown(undefined, true)).toBe(true)
    expect(sidebarShown('', false)).toBe(false)
    expect(sidebarShown('shown', false)).toBe(true)
    expect(sidebarShown('hidden', true)).toBe(false)
  })

  it('starts hidden in a 900 px window; Ctrl+B shows it and saves the choice', async () => {
    windowWidth(900)
    const { backend } = await mountApp([])
    expect(screen.queryByTestId('new-chat')).toBeNull()
    expect(screen.getByRole('button', { name: 'List of chats' }).getAttribute('aria-expanded')).toBe('false')
    await act(async () => {
      fireEvent.keyDown(document.body, { key: 'b', ctrlKey: true })
    })
    expect(screen.getByTestId('new-chat')).toBeTruthy()
    expect(backend.callsOf('SetSidebar')).toEqual([['shown']])
  })

  it('hides with its header button in a wide window, and saves that choice', async () => {
    windowWidth(1440)
    const { backend } = await mountApp([])
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'List of chats' })))
    expect(screen.queryByTestId('new-chat')).toBeNull()
    expect(backend.callsOf('SetSidebar')).toEqual([['hidden']])
  })
})
