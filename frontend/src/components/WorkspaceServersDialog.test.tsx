import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { WorkspaceServers } from '../backend'
import { mountApp } from '../test/mountApp'
import { commandLine } from './WorkspaceServersDialog'

const folder = '/home/me/project'

const file: WorkspaceServers = {
  workspace: folder,
  file: `${folder}/.prototyper/mcp.json`,
  hash: 'abc123',
  servers: [
    { name: 'files', command: 'npx', args: ['-y', 'some server', '--root', '.'], env: ['TOKEN'], headers: [] },
    { name: 'remote', url: 'https://example.test/mcp', args: [], env: [], headers: ['Authorization'] },
  ],
}

describe('WorkspaceServersDialog', () => {
  it('shows each command with its arguments and each url, and Allow sends the hash shown', async () => {
    const { backend } = await mountApp([], (b) => (b.serversToAsk[folder] = structuredClone(file)))
    const dialog = await screen.findByRole('dialog', { name: "Allow this folder's MCP servers?" })
    expect(dialog.textContent).toContain('npx -y "some server" --root .')
    expect(dialog.textContent).toContain('https://example.test/mcp')
    expect(dialog.textContent).toContain('TOKEN')
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Don’t allow' }))
    fireEvent.click(screen.getByRole('button', { name: 'Allow' }))
    await waitFor(() => expect(backend.callsOf('AllowWorkspaceServers')).toEqual([[folder, 'abc123']]))
    expect(screen.queryByRole('dialog', { name: "Allow this folder's MCP servers?" })).toBeNull()
  })

  it("Don't allow records the refusal of the hash shown", async () => {
    const { backend } = await mountApp([], (b) => (b.serversToAsk[folder] = structuredClone(file)))
    await screen.findByRole('dialog', { name: "Allow this folder's MCP servers?" })
    fireEvent.click(screen.getByRole('button', { name: 'Don’t allow' }))
    await waitFor(() => expect(backend.callsOf('RefuseWorkspaceServers')).toEqual([[folder, 'abc123']]))
    expect(backend.callsOf('AllowWorkspaceServers')).toEqual([])
  })

  it('Esc closes it answering nothing', async () => {
    const { backend } = await mountApp([], (b) => (b.serversToAsk[folder] = structuredClone(file)))
    await screen.findByRole('dialog', { name: "Allow this folder's MCP servers?" })
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' })
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(backend.callsOf('RefuseWorkspaceServers')).toEqual([])
    expect(backend.callsOf('AllowWorkspaceServers')).toEqual([])
  })

  it('asks nothing when the folder has nothing to ask', async () => {
    const { backend } = await mountApp([])
    await waitFor(() => expect(backend.callsOf('WorkspaceServersToAsk')).toEqual([[folder, false]]))
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('the settings ask again about servers the user refused', async () => {
    const { backend } = await mountApp([], (b) => {
      b.cfg.mcpServers = [{ name: 'files', state: 'not allowed', source: file.file, tools: [], error: 'not allowed' }]
    })
    await waitFor(() => expect(backend.callsOf('WorkspaceServersToAsk')).toEqual([[folder, false]]))
    expect(screen.queryByRole('dialog')).toBeNull()
    backend.serversToAsk[folder] = structuredClone(file)
    fireEvent.keyDown(window, { key: ',', ctrlKey: true })
    fireEvent.click(await screen.findByRole('button', { name: 'Review and allow…' }))
    await screen.findByRole('dialog', { name: "Allow this folder's MCP servers?" })
    expect(backend.callsOf('WorkspaceServersToAsk')).toContainEqual([folder, true])
  })

  it('quotes the arguments a terminal would need quoted', () => {
    expect(commandLine({ name: 'x', command: 'sh', args: ['-c', 'touch "$0"', ''], env: [], headers: [] })).toBe('sh -c "touch \\"$0\\"" ""')
  })
})
