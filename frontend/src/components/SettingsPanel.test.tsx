import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import type { Settings } from '../backend'
import type { FakeBackend } from '../fakeBackend'
import { mountApp } from '../test/mountApp'
import { keepAliveChoices } from './SettingsPanel'

async function mount(prepare?: (backend: FakeBackend) => void) {
  return (await mountApp([], prepare)).backend
}

// Opens the settings with Ctrl+, as a user does.
function openSettings() {
  fireEvent.keyDown(document.body, { key: ',', code: 'Comma', ctrlKey: true })
  return screen.getByRole('dialog', { name: 'Settings' })
}

// Saves the open settings and returns what the Go side was given.
async function save(backend: FakeBackend, dialog: HTMLElement): Promise<Settings> {
  await act(async () => {
    fireEvent.submit(dialog)
  })
  const [[saved]] = backend.callsOf('SaveSettings') as [[Settings]]
  return saved
}

describe('the model server and the MCP servers in the settings', () => {
  it('opens with Ctrl+, and saves an OpenAI-compatible server with the name of its key variable', async () => {
    const backend = await mount()
    const dialog = openSettings()
    expect(within(dialog).queryByLabelText(/Server URL/)).toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'openai' } })
    fireEvent.change(within(dialog).getByLabelText(/Server URL/), { target: { value: ' http://gpu:8000/v1 ' } })
    fireEvent.change(within(dialog).getByLabelText(/API key variable/), { target: { value: 'VLLM_API_KEY' } })
    const saved = await save(backend, dialog)
    expect(saved).toMatchObject({ provider: 'openai', baseUrl: 'http://gpu:8000/v1', apiKeyEnv: 'VLLM_API_KEY' })
    expect(saved.mcpServers).toBeUndefined()
  })

  it('asks for a key variable only for a server that takes a key, and how long a model stays loaded only of Ollama', async () => {
    const backend = await mount()
    const dialog = openSettings()
    const key = () => within(dialog).queryByLabelText(/API key variable/)
    const keepLoaded = () => within(dialog).queryByLabelText('Keep the model loaded after an answer')
    expect(key()).toBeNull() // a local Ollama takes no key
    expect(keepLoaded()).not.toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Ollama address'), { target: { value: 'https://ollama.example.org' } })
    expect(key()).not.toBeNull() // an Ollama behind a proxy may
    fireEvent.change(within(dialog).getByLabelText('Ollama address'), { target: { value: 'localhost:11434' } })
    expect(key()).toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'openai' } })
    expect(key()).not.toBeNull()
    expect(keepLoaded()).toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'ollama' } })
    expect(key()).toBeNull()
    expect((await save(backend, dialog)).apiKeyEnv).toBe('')
  })

  it('keeps a key variable already set for Ollama in view, so that it can be cleared', async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: { ...b.cfg.saved, apiKeyEnv: 'OLLAMA_PROXY_KEY' } }
    })
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText(/API key variable/), { target: { value: '' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).not.toBeNull()
    expect((await save(backend, dialog)).apiKeyEnv).toBe('')
  })

  it('sends no key variable typed for an OpenAI-compatible server once the server is a local Ollama again', async () => {
    const backend = await mount()
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'openai' } })
    fireEvent.change(within(dialog).getByLabelText(/API key variable/), { target: { value: 'VLLM_API_KEY' } })
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'ollama' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).toBeNull()
    expect((await save(backend, dialog)).apiKeyEnv).toBe('')
  })

  it('hides and drops the key variable of a saved OpenAI-compatible server when the server becomes a local Ollama', async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, provider: 'openai', saved: { ...b.cfg.saved, provider: 'openai', baseUrl: 'http://gpu:8000/v1', apiKeyEnv: 'VLLM_API_KEY' } }
    })
    const dialog = openSettings()
    expect(within(dialog).queryByLabelText(/API key variable/)).not.toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'ollama' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).toBeNull()
    expect((await save(backend, dialog)).apiKeyEnv).toBe('')
  })

  it('says what each tool does in words, its name beside', async () => {
    await mount((b) => {
      b.cfg = { ...b.cfg, tools: ['write_file', 'mcp__everything__echo'], saved: { ...b.cfg.saved, alwaysAllow: { '/home/me/site': ['delete_path'] } } }
    })
    const dialog = openSettings()
    const approval = within(dialog).getByLabelText('Approval for write_file').closest('label')!
    expect(approval.textContent).toContain('Create or replace a file')
    expect(approval.textContent).toContain('write_file')
    expect(within(dialog).getByLabelText('Approval for mcp__everything__echo').closest('label')!.textContent).toContain('echo of the everything server')
    expect(within(dialog).getByTestId('always-allowed').textContent).toContain('Delete a file or folder')
  })

  it('says a refused save where the user looks, and stays open', async () => {
    const scrolled: Element[] = []
    const scrollIntoView = Element.prototype.scrollIntoView
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this)
    }
    const refusal = 'Ollama address "localhost:abc" has an invalid port "abc": use a number from 0 to 65535'
    const backend = await mount((b) => {
      b.saveSettings = async () => {
        throw new Error(refusal)
      }
    })
    const dialog = openSettings()
    await act(async () => {
      fireEvent.submit(dialog)
    })
    const alert = within(dialog).getByRole('alert')
    expect(alert.textContent).toBe(refusal)
    expect(scrolled).toContain(alert)
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBe(dialog)
    expect(backend.callsOf('SaveSettings')).toEqual([])
    Element.prototype.scrollIntoView = scrollIntoView
  })

  it('takes a refusal about the key of an OpenAI-compatible server away when Ollama is chosen again', async () => {
    const refusal = 'The API key variable is not set: the environment variable MY_KEY holds no key'
    await mount((b) => {
      b.saveSettings = async () => {
        throw new Error(refusal)
      }
    })
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'openai' } })
    fireEvent.change(within(dialog).getByLabelText(/API key variable/), { target: { value: 'MY_KEY' } })
    await act(async () => {
      fireEvent.submit(dialog)
    })
    expect(within(dialog).getByRole('alert').textContent).toBe(refusal)
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'ollama' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).toBeNull()
    expect(within(dialog).queryByRole('alert')).toBeNull()
  })

  it('lists the MCP servers, with the sentence of one that failed', async () => {
    await mount((b) => {
      b.cfg.mcpServers = [
        { name: 'everything', state: 'running', source: 'the settings', tools: ['mcp__everything__echo'] },
        { name: 'search', state: 'failed', source: '/w/.prototyper/mcp.json', tools: [], error: 'the MCP server search did not answer within 30s' },
      ]
      b.cfg.tools = [...b.cfg.tools, 'mcp__everything__echo']
      b.cfg.toolApproval = { ...b.cfg.toolApproval, mcp__everything__echo: 'ask' }
    })
    fireEvent.click(screen.getByRole('button', { name: 'Settings' }))
    const running = screen.getByRole('group', { name: 'MCP server everything' })
    expect(running.textContent).toContain('running')
    // Go's sentence (lower case, since it is wrapped) reads as a sentence
    expect(screen.getByRole('group', { name: 'MCP server search' }).textContent).toContain('The MCP server search did not answer within 30s')
    expect((screen.getByLabelText('Approval for mcp__everything__echo') as HTMLSelectElement).value).toBe('ask')
  })
})

/** The settings as the store keeps them: a zero value (omitempty) is no value. */
function stored(s: Settings): Settings {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined && v !== '' && v !== 0 && v !== false)) as Settings
}

describe('the settings saved back', () => {
  const everySetting: Settings = {
    ollamaUrl: 'http://127.0.0.1:11434',
    defaultModel: 'qwen3:4b',
    workspace: '/home/me/project',
    think: 'low',
    contextCap: 8192,
    toolApproval: { write_file: 'deny', '*': 'ask' },
    ackFallbackMs: 250,
    firstByteTimeoutSec: 90,
    manualOllama: true,
    ollamaBinary: '/opt/ollama/bin/ollama',
    checkpointMaxBytes: 1 << 20,
    maxAnswerBytes: 1.5 * (1 << 20) + 1,
    alwaysAllow: { '/home/me/project': ['write_file'], '/home/me/empty': [] },
    commandRules: { '/home/me/project': [{ pattern: 'go test', network: true }] },
    commandDeny: ['rm -rf /'],
    unconfinedCommands: true,
    instructions: { '/home/me/project': 'Answer in French.', '/elsewhere': 'Be brief.' },
    keepAliveMin: 5,
    loopRepeats: 4,
    olderTurns: 'never',
    provider: 'ollama',
    baseUrl: 'http://gpu:8000/v1',
    apiKeyEnv: 'OLLAMA_PROXY_KEY',
    mcpServers: { mcpServers: { everything: { command: 'npx', args: ['-y', 'server-everything'] } } },
    theme: 'dark',
    sidebar: 'hidden',
    recentFolders: ['/home/me/project'],
    ignoreTextToolCalls: true,
  }

  it.each([
    ['every field set', everySetting],
    ['none set', { commandDeny: null }],
  ])('are the settings given, as they were, when the user changed nothing (%s)', async (_, given) => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: structuredClone(given), instructions: given.instructions?.['/home/me/project'] }
    })
    expect(stored(await save(backend, openSettings()))).toEqual({ ...given, ollamaUrl: 'http://127.0.0.1:11434', provider: 'ollama' })
  })

  it('send MCP servers as the document typed, or text that is not JSON as it is, for the Go side to say what is wrong', async () => {
    const backend = await mount()
    let dialog = openSettings()
    const field = () => within(dialog).getByLabelText(/Servers of the settings/)
    fireEvent.change(field(), { target: { value: ' {"mcpServers": {"x": {"command": "y"}}} ' } })
    expect((await save(backend, dialog)).mcpServers).toEqual({ mcpServers: { x: { command: 'y' } } })
    backend.calls = []
    dialog = openSettings()
    expect((field() as HTMLTextAreaElement).value).toBe('{"mcpServers":{"x":{"command":"y"}}}')
    fireEvent.change(field(), { target: { value: '{"mcpServers": {' } })
    expect((await save(backend, dialog)).mcpServers).toBe('{"mcpServers": {')
  })

  it("edit the instructions of the session's folder, keeping the other folders'", async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: { ...b.cfg.saved, instructions: { '/elsewhere': 'Be brief.' } } }
    })
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText(/Instructions for the model in \/home\/me\/project/), { target: { value: 'Answer in French.' } })
    expect((await save(backend, dialog)).instructions).toEqual({ '/elsewhere': 'Be brief.', '/home/me/project': 'Answer in French.' })
  })
})

describe('the fields of Ollama in the settings', () => {
  it('are shown for Ollama alone, but its address, where the model menu pulls models whatever the server', async () => {
    await mount()
    const dialog = openSettings()
    const ollamaOnly = [/Start Ollama when it is not running/, /Ollama program/, 'Keep the model loaded after an answer']
    for (const label of ollamaOnly) expect(within(dialog).queryByLabelText(label)).not.toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'openai' } })
    for (const label of ollamaOnly) expect(within(dialog).queryByLabelText(label)).toBeNull()
    expect(within(dialog).queryByLabelText('Ollama address')).not.toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Model server'), { target: { value: 'ollama' } })
    for (const label of ollamaOnly) expect(within(dialog).queryByLabelText(label)).not.toBeNull()
  })

  it("take this machine's own name for a local address: no key is asked", async () => {
    await mount((b) => {
      b.cfg = { ...b.cfg, hostName: 'workstation' }
    })
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText('Ollama address'), { target: { value: 'http://workstation:11434' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Ollama address'), { target: { value: 'http://[::]:11434' } })
    expect(within(dialog).queryByLabelText(/API key variable/)).toBeNull()
  })
})

describe('an OpenAI-compatible server that does not answer', () => {
  it('is said as such, never as Ollama to start with ollama serve', async () => {
    await mount((b) => {
      b.cfg.provider = 'openai'
      b.status = { running: false, url: 'http://gpu:8000/v1', version: '', error: 'nothing answers at http://gpu:8000/v1' }
    })
    const panel = screen.getByTestId('model-server-down')
    expect(panel.textContent).toContain('http://gpu:8000/v1')
    expect(panel.textContent).not.toContain('ollama serve')
    expect(screen.queryByTestId('ollama-down')).toBeNull()
  })
})

describe('older messages that no longer fit, in the settings', () => {
  it('asks by default, and saves "leave them out"', async () => {
    const backend = await mount()
    const dialog = openSettings()
    const choice = within(dialog).getByLabelText('When older messages no longer fit') as HTMLSelectElement
    expect(choice.value).toBe('ask')
    fireEvent.change(choice, { target: { value: 'never' } })
    expect((await save(backend, dialog)).olderTurns).toBe('never')
  })
})

describe('how long a model stays loaded, in the settings', () => {
  it('is said in words, not in a code of minutes, and saves the minutes', async () => {
    const backend = await mount((b) => {
      b.cfg.saved.keepAliveMin = -1
    })
    const dialog = openSettings()
    const choice = within(dialog).getByLabelText('Keep the model loaded after an answer') as HTMLSelectElement
    expect(choice.selectedOptions[0].textContent).toBe('As long as Ollama runs')
    expect(Array.from(choice.options, (o) => o.textContent)).toEqual(['5 minutes', '30 minutes', '1 hour', '4 hours', 'As long as Ollama runs'])
    fireEvent.change(choice, { target: { value: '5' } })
    expect((await save(backend, dialog)).keepAliveMin).toBe(5)
  })

  it('keeps a value set elsewhere as a choice of its own, and the default as 30 minutes', async () => {
    expect(keepAliveChoices('15').map(([, words]) => words)).toEqual(['5 minutes', '15 minutes', '30 minutes', '1 hour', '4 hours', 'As long as Ollama runs'])
    expect(keepAliveChoices('120').find(([v]) => v === '120')?.[1]).toBe('2 hours')
    const backend = await mount()
    const dialog = openSettings()
    const choice = within(dialog).getByLabelText('Keep the model loaded after an answer') as HTMLSelectElement
    expect(choice.selectedOptions[0].textContent).toBe('30 minutes')
    expect((await save(backend, dialog)).keepAliveMin).toBe(0)
  })
})

describe('the settings, in groups', () => {
  it('come in titled groups, each a group a screen reader names', async () => {
    await mount()
    const dialog = openSettings()
    const groups = within(dialog).getAllByRole('group').filter((g) => g.classList.contains('settings-group'))
    expect(groups.map((g) => g.getAttribute('aria-labelledby') && document.getElementById(g.getAttribute('aria-labelledby')!)?.textContent)).toEqual([
      'Server',
      'Answers',
      'Appearance',
      'This folder',
      'Tools and commands',
      'MCP servers',
    ])
  })
})

describe('the largest answer kept, in the settings', () => {
  it('shows the saved size in MiB (empty: the default) and saves it in bytes', async () => {
    const backend = await mount((b) => {
      b.cfg.saved.maxAnswerBytes = 16 << 20
    })
    const dialog = openSettings()
    const field = within(dialog).getByLabelText(/Largest answer kept/) as HTMLInputElement
    expect(field.value).toBe('16')
    fireEvent.change(field, { target: { value: '32' } })
    expect((await save(backend, dialog)).maxAnswerBytes).toBe(32 << 20)
  })
})

describe('the commands in the settings', () => {
  const withRules = (b: FakeBackend) => {
    b.cfg.saved = {
      ...b.cfg.saved,
      commandRules: {
        '/home/me/project': [
          { pattern: 'npm test', network: false },
          { pattern: 'npm install', network: true },
        ],
        '/home/me/other': [{ pattern: 'go build', network: false }],
      },
      commandDeny: ['sudo', 'curl * | sh'],
      unconfinedCommands: false,
    }
  }

  it('lists the commands allowed in each workspace; Remove takes one out, the focus staying in the dialog', async () => {
    const backend = await mount(withRules)
    const dialog = openSettings()
    const section = within(dialog).getByRole('group', { name: 'Commands allowed without asking' })
    expect(section.textContent).toContain('npm install')
    expect(section.textContent).toContain('with network, in /home/me/project')
    const first = within(section).getByRole('button', { name: 'Remove npm test in /home/me/project' })
    first.focus()
    fireEvent.click(first)
    expect(document.activeElement).toBe(within(section).getByRole('button', { name: 'Remove npm install in /home/me/project' }))
    fireEvent.click(document.activeElement as HTMLElement)
    expect(document.activeElement).toBe(within(section).getByRole('button', { name: 'Remove go build in /home/me/other' }))
    fireEvent.click(document.activeElement as HTMLElement)
    // the last one gone: the deny list takes the focus
    expect(document.activeElement).toBe(within(dialog).getByRole('textbox', { name: /Never run commands matching/ }))
    expect(dialog.contains(document.activeElement)).toBe(true)
    const saved = await save(backend, dialog)
    expect(saved.commandRules).toEqual({})
  })

  it('saves the deny list one pattern a line, and the unconfined toggle with the sentence saying what it means', async () => {
    const backend = await mount(withRules)
    const dialog = openSettings()
    const deny = within(dialog).getByRole('textbox', { name: /Never run commands matching/ }) as HTMLTextAreaElement
    expect(deny.value).toBe('sudo\ncurl * | sh')
    fireEvent.change(deny, { target: { value: 'sudo\n\n  rm -rf /  \ncurl * | sh\n' } })
    const toggle = within(dialog).getByRole('checkbox', { name: 'Run commands without the sandbox where it cannot start' })
    expect(toggle.getAttribute('aria-describedby')).toBe('unconfined-meaning')
    expect(document.getElementById('unconfined-meaning')?.textContent).toMatch(/runs as you, with your files, your network/)
    fireEvent.click(toggle)
    const saved = await save(backend, dialog)
    expect(saved.commandDeny).toEqual(['sudo', 'rm -rf /', 'curl * | sh'])
    expect(saved.unconfinedCommands).toBe(true)
    expect(saved.commandRules?.['/home/me/project']).toEqual([
      { pattern: 'npm test', network: false },
      { pattern: 'npm install', network: true },
    ])
  })

  it('sends back a deny list the Go side left to its defaults as none, unless the user wrote one', async () => {
    const backend = await mount()
    const dialog = openSettings()
    expect((await save(backend, dialog)).commandDeny).toBeNull()
  })
})

describe('closing the settings', () => {
  it('gives the keys back to the message box, by Esc and by Cancel', async () => {
    await mount()
    for (const close of ['Escape', 'Cancel']) {
      const dialog = openSettings()
      await act(async () => {
        if (close === 'Escape') fireEvent.keyDown(dialog, { key: 'Escape' })
        else fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
        await new Promise((r) => setTimeout(r, 10))
      })
      expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
      expect(document.activeElement?.id).toBe('composer')
      ;(document.activeElement as HTMLElement).blur()
    }
  })
})

describe('leaving the settings with edits', () => {
  it('keeps what was typed when the user presses beside the dialog, and asks whether to discard it', async () => {
    const backend = await mount()
    const dialog = openSettings()
    const box = () => within(dialog).getByLabelText(/Instructions for the model/) as HTMLTextAreaElement
    fireEvent.change(box(), { target: { value: 'Answer in French.' } })
    const backdrop = dialog.parentElement as HTMLElement
    fireEvent.mouseDown(backdrop)
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBe(dialog)
    expect(box().value).toBe('Answer in French.')
    expect(within(dialog).getByRole('alert').textContent).toBe('Your changes are not saved: save them, or discard them.')
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep editing' }))
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' }))
    expect(within(dialog).queryByTestId('settings-unsaved')).toBeNull()
    expect(box().value).toBe('Answer in French.')
    fireEvent.mouseDown(backdrop)
    fireEvent.click(within(dialog).getByRole('button', { name: 'Discard changes' }))
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
    expect(backend.callsOf('SaveSettings')).toEqual([])
  })

  it('asks at Esc, and a second Esc goes back to the edits', async () => {
    await mount()
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText('Thinking'), { target: { value: 'high' } })
    fireEvent.keyDown(dialog, { key: 'Escape' })
    expect(within(dialog).getByTestId('settings-unsaved')).toBeTruthy()
    fireEvent.keyDown(document.activeElement as HTMLElement, { key: 'Escape' })
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBe(dialog)
    expect(within(dialog).queryByTestId('settings-unsaved')).toBeNull()
    expect((within(dialog).getByLabelText('Thinking') as HTMLSelectElement).value).toBe('high')
  })

  it('closes at once, beside it or by Esc, when nothing was edited or an edit was undone', async () => {
    await mount()
    let dialog = openSettings()
    fireEvent.mouseDown(dialog.parentElement as HTMLElement)
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
    dialog = openSettings()
    const think = within(dialog).getByLabelText('Thinking') as HTMLSelectElement
    const was = think.value
    fireEvent.change(think, { target: { value: was === 'high' ? 'low' : 'high' } })
    fireEvent.change(think, { target: { value: was } })
    fireEvent.keyDown(dialog, { key: 'Escape' })
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
  })
})

describe('the context cap in the settings', () => {
  it('shows no cap as an empty field with the default in its label as the header writes it, and saves none back', async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: { ...b.cfg.saved, contextCap: 0 }, defaults: { ...b.cfg.defaults, contextCap: 16384 } }
    })
    const dialog = openSettings()
    const field = within(dialog).getByLabelText(/Longest context sent to the model/) as HTMLInputElement
    expect(field.value).toBe('')
    // no placeholder: a screen reader reads it with the field's name, as if 16384 were set
    expect(field.placeholder).toBe('')
    expect(field.closest('label')!.textContent).toBe(
      "Longest context sent to the model, in tokens (empty: what this machine's free memory holds, at most 16K)",
    )
    expect((await save(backend, dialog)).contextCap).toBe(0)
  })

  it('leaves the repeated calls that stop a run empty when none is saved, its default in the label like the others', async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: { ...b.cfg.saved, loopRepeats: 0 }, defaults: { ...b.cfg.defaults, loopRepeats: 3 } }
    })
    const dialog = openSettings()
    const field = within(dialog).getByLabelText(/Stop a run when the model makes the same call/) as HTMLInputElement
    expect(field.value).toBe('')
    expect(field.closest('label')!.textContent).toBe('Stop a run when the model makes the same call this many times in a row (empty: 3)')
    expect((await save(backend, dialog)).loopRepeats).toBe(0)
  })

  it('saves a cap typed equal to the default as a cap', async () => {
    const backend = await mount((b) => {
      b.cfg = { ...b.cfg, saved: { ...b.cfg.saved, contextCap: 0 }, defaults: { ...b.cfg.defaults, contextCap: 16384 } }
    })
    const dialog = openSettings()
    fireEvent.change(within(dialog).getByLabelText(/Longest context sent to the model/), { target: { value: '16384' } })
    expect((await save(backend, dialog)).contextCap).toBe(16384)
  })
})
