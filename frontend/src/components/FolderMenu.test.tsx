import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { mountApp, summary } from '../test/mountApp'

const key = (k: string, init: KeyboardEventInit = {}) =>
  act(async () => {
    fireEvent.keyDown(document.activeElement ?? document.body, { key: k, ...init })
  })

describe('the folder menu', () => {
  it('offers to create a typed folder that does not exist inside one that does, and works in it', async () => {
    const { backend } = await mountApp([], (b) => {
      b.missingFolders['/home/me/site'] = { canCreate: true }
    })
    await key('o', { ctrlKey: true })
    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Folder path' }), { target: { value: '/home/me/site' } }))
    expect(screen.getByRole('option', { name: /Create \/home\/me\/site and use it/ })).toBeTruthy()
    await key('Enter')
    expect(backend.callsOf('CreateFolder')).toEqual([['/home/me/site']])
    expect(backend.callsOf('UseFolder')).toEqual([['/home/me/site']])
    expect(screen.getByTestId('workspace-button').textContent).toContain('site')
  })

  it('a folder that cannot be created is offered as typed, and not created', async () => {
    const { backend } = await mountApp([], (b) => {
      b.missingFolders['/no/such/site'] = { canCreate: false }
    })
    await key('o', { ctrlKey: true })
    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Folder path' }), { target: { value: '/no/such/site' } }))
    expect(screen.getByRole('option', { name: /Use \/no\/such\/site/ })).toBeTruthy()
    await key('Enter')
    expect(backend.callsOf('CreateFolder')).toEqual([])
  })

  it('offers to create again a listed folder that is gone, and the sentence that it does not exist goes once it is', async () => {
    const { backend, store } = await mountApp([summary('c1', 'Site', '/home/me/site', '2025-01-02T00:00:00Z')], (b) => {
      b.missingFolders['/home/me/site'] = { canCreate: true }
      b.cfg = { ...b.cfg, recentFolders: [{ path: '/home/me/site', missing: true }] }
      b.send = async () => {
        throw 'the workspace folder /home/me/site does not exist (any more): choose an existing folder, or create it again'
      }
    })
    await act(() => store.selectChat('c1'))
    await act(() => store.send('Write it').catch(() => {}))
    expect(screen.getByTestId('error-line').textContent).toContain('does not exist')
    await key('o', { ctrlKey: true })
    expect(screen.getByRole('option', { name: /Not found: moved or deleted/ })).toBeTruthy()
    await key('Enter')
    expect(screen.getByRole('option', { name: /^Create \/home\/me\/site and use it$/ })).toBeTruthy()
    await key('Enter')
    expect(backend.callsOf('CreateFolder')).toEqual([['/home/me/site']])
    expect(screen.queryByTestId('error-line')).toBeNull()
  })

  it('says why a listed folder that is gone cannot be created again when the folder it was in is gone too', async () => {
    const { backend } = await mountApp([summary('c1', 'Site', '/home/me/gone/site', '2025-01-02T00:00:00Z')], (b) => {
      b.missingFolders['/home/me/gone/site'] = { canCreate: false }
      b.cfg = { ...b.cfg, recentFolders: [{ path: '/home/me/gone/site', missing: true }] }
    })
    await key('o', { ctrlKey: true })
    await key('Enter')
    expect(screen.getByRole('alert').textContent).toBe(
      '/home/me/gone/site cannot be created again because /home/me/gone is gone too: pick another folder, or create /home/me/gone first.',
    )
    expect(backend.callsOf('CreateFolder')).toEqual([])
    expect(backend.callsOf('UseFolder')).toEqual([])
  })
})
