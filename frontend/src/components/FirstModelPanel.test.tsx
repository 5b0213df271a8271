import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import { FakeBackend } from '../fakeBackend'
import { mountApp } from '../test/mountApp'
import { firstModelPollMs } from './FirstModelPanel'

const offline =
  'Ollama could not download qwen3:4b because it cannot reach the model registry (no such host) — this computer seems to be offline; once it is online, pull the model again here or with `prototyper pull qwen3:4b`'

/** The window on a server Prototyper started, with no model yet and none chosen. */
function mountEmptyServer(prepare: (b: FakeBackend) => void = () => {}) {
  return mountApp([], (backend) => {
    backend.modelList = []
    backend.cfg.model = ''
    backend.status = { ...backend.status, startedByApp: true, logPath: '/home/me/.config/prototyper/ollama.log' }
    prepare(backend)
  })
}

afterEach(() => vi.useRealTimers())

describe('the first-model offer', () => {
  it('offers small models with tools, their size and what they are good at, the recommended one focused', async () => {
    await mountEmptyServer()
    const offer = screen.getByTestId('first-model')
    const items = within(offer).getAllByTestId('starter-model')
    expect(items).toHaveLength(2)
    expect(items[0].textContent).toContain('qwen3:4b')
    expect(items[0].textContent).toContain('2.5 GB')
    expect(items[0].textContent).toContain('Thinks, calls tools reliably.')
    expect(items[0].textContent).toContain('recommended')
    expect(document.activeElement).toBe(within(items[0]).getByRole('button', { name: /Pull qwen3:4b/ }))
    expect(screen.getByTestId('composer-disabled-reason').textContent).toMatch(/Pull a first model/)
    expect(offer.textContent).toContain('prototyper pull qwen3:4b')
  })

  it('says why the recommended model suits this machine, and only for that one', async () => {
    await mountEmptyServer((b) => {
      b.starters = [
        { name: 'qwen3:1.7b', size: 1.4e9, parameterSize: '1.7B', goodAt: 'Quick.', recommended: true, minMemory: 4 * 2 ** 30, why: 'It fits this machine’s 6 GB of memory.' },
        { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4B', goodAt: 'The best start.', minMemory: 8 * 2 ** 30 },
      ]
    })
    const items = within(screen.getByTestId('first-model')).getAllByTestId('starter-model')
    expect(items[0].textContent).toContain('It fits this machine’s 6 GB of memory.')
    expect(items[1].textContent).not.toContain('fits')
    expect(document.activeElement).toBe(within(items[0]).getByRole('button', { name: /Pull qwen3:1.7b/ }))
  })

  it('pulls the chosen model with the progress bar, then uses it', async () => {
    const { backend } = await mountEmptyServer()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Pull qwen3:8b/ })))
    expect(backend.callsOf('PullModel')).toEqual([['qwen3:8b']])
    act(() => backend.emitPull({ name: 'qwen3:8b', status: 'pulling 7df6', digest: 'sha256:7df6', total: 1000, completed: 250 }))
    const bar = within(screen.getByTestId('first-model')).getByTestId('pull-progress')
    expect(within(bar).getByRole('progressbar', { name: 'Pulling qwen3:8b' }).getAttribute('value')).toBe('25')
    expect((screen.getByRole('button', { name: /Pull qwen3:8b/ }) as HTMLButtonElement).disabled).toBe(true)

    backend.modelList = [{ name: 'qwen3:8b', size: 5.2e9, parameterSize: '8B', family: 'qwen3', tools: true, thinking: true, contextLength: 40960 }]
    await act(async () => backend.finishPull?.())
    expect(screen.queryByTestId('first-model')).toBeNull()
    expect(backend.callsOf('SetModel')).toEqual([['qwen3:8b']])
    expect(screen.getByTestId('model-button').textContent).toContain('qwen3:8b')
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).disabled).toBe(false)
  })

  it('says when the pull failed because the computer is offline, and how to pull later', async () => {
    const { backend } = await mountEmptyServer()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Pull qwen3:4b/ })))
    act(() => {
      backend.emit([{ type: 'error', chatId: '', model: 'qwen3:4b', code: 'stream_error', message: offline, retryable: true }])
    })
    const offer = screen.getByTestId('first-model')
    expect(offer.textContent).toContain('seems to be offline')
    expect(offer.textContent).toContain('`prototyper pull qwen3:4b`')
    expect((screen.getByRole('button', { name: /Pull qwen3:4b/ }) as HTMLButtonElement).disabled).toBe(false)
  })

  it('notices a model pulled elsewhere while it is shown', async () => {
    vi.useFakeTimers()
    const { backend } = await mountEmptyServer((b) => {
      b.cfg.model = 'scripted'
    })
    expect(screen.getByTestId('first-model')).toBeTruthy()
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).disabled).toBe(false)
    backend.modelList = [{ name: 'scripted:latest', size: 1e6, parameterSize: '1M', family: 'llama', tools: true, thinking: true, contextLength: 4096 }]
    await act(async () => vi.advanceTimersByTime(firstModelPollMs))
    expect(screen.queryByTestId('first-model')).toBeNull()
  })

  it('is not offered while the server has models', async () => {
    await mountApp([])
    expect(screen.queryByTestId('first-model')).toBeNull()
    expect(screen.queryByTestId('ollama-started')).toBeNull()
  })
})

describe('the Ollama Prototyper started', () => {
  it('is named in the header', async () => {
    await mountEmptyServer()
    expect(screen.getByTestId('ollama-started').textContent).toBe('Ollama (started by Prototyper)')
  })

  it('that could not start is one sentence with its log, and the panel keeps Retry', async () => {
    const { backend } = await mountEmptyServer((b) => {
      b.status = {
        running: false,
        url: 'http://127.0.0.1:11434',
        version: '',
        error: 'Ollama is not running at http://127.0.0.1:11434',
        startError: 'Prototyper could not start Ollama at http://127.0.0.1:11434 (/usr/bin/ollama serve): Error: listen tcp 127.0.0.1:11434: bind: address already in use (its log: /tmp/ollama.log)',
        logPath: '/tmp/ollama.log',
      }
    })
    expect(screen.getByTestId('ollama-start-error').textContent).toContain('bind: address already in use')
    backend.status = { running: true, url: 'http://127.0.0.1:11434', version: '0.11.4', error: '', startedByApp: true }
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })))
    expect(screen.queryByTestId('ollama-down')).toBeNull()
    expect(screen.getByTestId('ollama-started')).toBeTruthy()
  })

  it('is named in the settings, where starting it can be turned off and its program set', async () => {
    const { backend } = await mountEmptyServer()
    fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    const dialog = screen.getByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByTestId('settings-ollama-started').textContent).toContain('Ollama (started by Prototyper)')
    fireEvent.change(within(dialog).getByLabelText(/Ollama program/), { target: { value: ' /opt/ollama/bin/ollama ' } })
    fireEvent.click(within(dialog).getByLabelText(/Start Ollama when it is not running/))
    expect(within(dialog).queryByLabelText(/Ollama program/)).toBeNull()
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: 'Save' })))
    expect(backend.callsOf('SaveSettings')[0][0]).toMatchObject({ manualOllama: true, ollamaBinary: '/opt/ollama/bin/ollama' })
  })
})
