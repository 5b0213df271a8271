import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { mountApp, summary } from './test/mountApp'

const deadOpenAI = {
  running: false,
  url: 'http://127.0.0.1:9/v1',
  version: '',
  error: 'nothing answers at http://127.0.0.1:9/v1 — start the model server',
}

const mount = () => mountApp([summary('c1', 'A chat', '/w', '2025-01-02T00:00:00Z')])

describe('the window while the model server in effect does not answer', () => {
  it('names the OpenAI-compatible server and its address above the composer, not Ollama', async () => {
    await mountApp([], (b) => {
      b.cfg.provider = 'openai'
      b.status = deadOpenAI
    })
    expect(screen.getByTestId('model-server-down')).toBeTruthy()
    const line = screen.getByTestId('composer-disabled-reason').textContent ?? ''
    expect(line).toBe('The OpenAI-compatible server at http://127.0.0.1:9/v1 does not answer.')
  })

  it('names Ollama and its address when Ollama is the server in effect', async () => {
    await mountApp([], (b) => {
      b.status = { running: false, url: 'http://127.0.0.1:11434', version: '', error: 'connection refused' }
    })
    expect(screen.getByTestId('composer-disabled-reason').textContent).toBe('Ollama is not running at http://127.0.0.1:11434.')
  })

  it('gives the focus to Retry when the settings close on a server that does not answer', async () => {
    const { backend } = await mount()
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
    fireEvent.keyDown(window, { key: ',', ctrlKey: true })
    const save = await screen.findByRole('button', { name: 'Save' })
    // what the save points the window at does not answer
    backend.cfg.provider = 'openai'
    backend.status = deadOpenAI
    await act(async () => fireEvent.click(save))
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save' })).toBeNull(), { timeout: 10000 })
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Retry' })), { timeout: 10000 })
  }, 30000)

  it('gives the focus back to the composer when a dialog closes and the composer can be used', async () => {
    await mount()
    fireEvent.keyDown(window, { key: ',', ctrlKey: true })
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: 'Cancel' })))
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('composer')), { timeout: 10000 })
  }, 30000)

  it('keeps the focus on Retry while it checks again', async () => {
    const { backend } = await mountApp([], (b) => {
      b.cfg.provider = 'openai'
      b.status = deadOpenAI
    })
    let answer: () => void = () => {}
    backend.ollamaStatus = () => new Promise((resolve) => (answer = () => resolve({ ...deadOpenAI })))
    const retry = screen.getByRole('button', { name: 'Retry' })
    retry.focus()
    act(() => fireEvent.click(retry))
    const checking = screen.getByRole('button', { name: 'Checking…' })
    expect(checking.getAttribute('aria-disabled')).toBe('true')
    expect(document.activeElement).toBe(checking)
    await act(async () => answer())
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Retry' }))
  })
})
