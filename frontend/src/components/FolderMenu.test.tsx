import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { mountApp } from '../test/mountApp'

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
})
