import { describe, expect, it } from 'vitest'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { SettingsAndPicks } from './settings'

function setup() {
  const backend = new FakeBackend()
  const cell = new StateCell(backend)
  let newChats = 0
  const settings = new SettingsAndPicks(cell, { openNewChat: () => void newChats++, refreshOllama: async () => {} })
  return { backend, cell, settings, newChats: () => newChats }
}

describe('settings and what the header picks', () => {
  it('take a folder for the next new chat when no chat is open', async () => {
    const { backend, cell, settings } = setup()
    await settings.requestFolder('/tmp/site')
    expect(backend.callsOf('UseFolder')).toEqual([['/tmp/site']])
    expect(cell.get().config?.workspace).toBe('/tmp/site')
    expect(cell.get().pendingChange).toBeNull()
  })

  it('ask what a folder picked while a chat is open is for, and start a new chat with it when told', async () => {
    const { backend, cell, settings, newChats } = setup()
    const chat = { id: 'c1', title: 't', model: 'qwen3:4b', workspace: '/a', createdAt: '', updatedAt: '', messageCount: 0, phase: 'idle' as const }
    cell.set({ activeChatId: 'c1', chatList: [chat] })
    await settings.requestFolder('/b')
    expect(cell.get().pendingChange).toEqual({ kind: 'workspace', value: '/b', chatId: 'c1' })
    await settings.applyChange('new')
    expect(backend.callsOf('UseFolder')).toEqual([['/b']])
    expect(newChats()).toBe(1)
  })

  it('ask nothing when the model picked is the open chat’s own, and ask for another one', async () => {
    const { cell, settings } = setup()
    const chat = { id: 'c1', title: 't', model: 'gemma3', workspace: '/a', createdAt: '', updatedAt: '', messageCount: 0, phase: 'idle' as const }
    cell.set({ activeChatId: 'c1', chatList: [chat] })
    await settings.requestModel('gemma3:latest')
    expect(cell.get().pendingChange).toBeNull()
    await settings.requestModel('qwen3:4b')
    expect(cell.get().pendingChange).toEqual({ kind: 'model', value: 'qwen3:4b', chatId: 'c1' })
  })

  it('ask every budget again once the settings are saved', async () => {
    const { backend, cell, settings } = setup()
    await settings.loadConfig()
    await settings.loadBudget()
    await settings.loadBudget()
    expect(backend.callsOf('PromptBudget')).toHaveLength(1)
    await settings.saveSettings({ ...backend.cfg.saved, contextCap: 4096 })
    expect(backend.callsOf('PromptBudget')).toHaveLength(2)
    expect(cell.get().config?.saved.contextCap).toBe(4096)
  })
})
