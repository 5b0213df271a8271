import { act, fireEvent, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { DevServer } from '../backend'
import { mountPreview, onePageSite, openPreviewPane } from '../test/mountPreview'

const ws = '/home/u/site'

const site = onePageSite(ws)

const server: DevServer = { id: 'call_1', workspace: ws, command: 'python3 -m http.server 8000', cwd: '', port: 8000 }

async function mount() {
  const { backend } = await mountPreview(site, { servers: true })
  await openPreviewPane()
  return { backend }
}

describe('a development server in the Preview pane', () => {
  it('is offered once it listens, shows its output, is previewed through its forward and stops with Stop', async () => {
    const { backend } = await mount()
    backend.servers = [server]
    act(() => {
      backend.emit([{ type: 'server.started', chatId: '', toolCallId: 'call_1', update: server }])
      backend.emit([{ type: 'server.output', chatId: '', toolCallId: 'call_1', stream: 'stderr', text: '"GET / HTTP/1.1" 200 -\n' }])
    })
    expect(screen.getByRole('group', { name: 'Server at :8000' })).toBeTruthy()
    expect(screen.getByLabelText('Output of the server at :8000').textContent).toContain('GET / HTTP/1.1')
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Preview the server at :8000' }))
    })
    expect(screen.getByTestId('preview-frame').getAttribute('src')).toBe('http://127.0.0.1:48000/')
    expect(screen.getByTestId('preview-frame').getAttribute('title')).toBe('Preview of the server at :8000')
    // the folder page's report is not the server's: its count is not shown over the server
    expect(screen.queryByTestId('preview-errors')).toBeNull()
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Stop the server at :8000' }))
    })
    expect(backend.callsOf('StopDevServer')).toEqual([['call_1']])
    expect(screen.queryByRole('group', { name: 'Server at :8000' })).toBeNull()
    expect(screen.getByTestId('preview-frame').getAttribute('src')).toBe(`${site.url}index.html?r=0`)
    expect(screen.getByTestId('preview-errors')).toBeTruthy()
    expect(screen.getByText(/The server was stopped\./)).toBeTruthy()
  })
})
