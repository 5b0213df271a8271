import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { mountApp } from '../test/mountApp'
import { resolveTheme } from '../theme'

describe('theme', () => {
  it('system follows the desktop; light and dark are always so', () => {
    expect(resolveTheme('system', true)).toBe('dark')
    expect(resolveTheme('system', false)).toBe('light')
    expect(resolveTheme(undefined, true)).toBe('dark')
    expect(resolveTheme('light', true)).toBe('light')
    expect(resolveTheme('dark', false)).toBe('dark')
  })

  it('is chosen in the settings and applied to the window at once', async () => {
    const { backend } = await mountApp([])
    expect(document.documentElement.dataset.theme).toBe('light')
    fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    fireEvent.change(screen.getByRole('combobox', { name: 'Theme' }), { target: { value: 'dark' } })
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })))
    expect(backend.callsOf('SaveSettings')[0][0]).toMatchObject({ theme: 'dark' })
    expect(document.documentElement.dataset.theme).toBe('dark')
  })
})
