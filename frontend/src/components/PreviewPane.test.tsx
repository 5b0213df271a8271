import { act, fireEvent, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { PreviewPage, PreviewReport } from '../backend'
import { mountPreview } from '../test/mountPreview'
import { previewSandbox } from './PreviewPane'

const ws = '/home/u/site'

function report(errors: PreviewReport['errors'], load = 1): PreviewReport {
  return {
    workspace: ws,
    url: 'http://127.0.0.1:4000/s3cr3t/s/ab/',
    page: 'index.html',
    load,
    painted: true,
    errors,
    console: [],
    text: `The preview of index.html reported ${errors?.length ?? 0} errors.`,
  }
}

const site: PreviewPage = {
  url: 'http://127.0.0.1:4000/s3cr3t/s/ab/',
  origin: 'http://127.0.0.1:4000',
  workspace: ws,
  page: 'index.html',
  pages: ['index.html', 'game.html'],
  report: report([], 0),
}

const altP = { key: 'p', code: 'KeyP', altKey: true }

describe('the Preview pane', () => {
  it('opens with Alt+P on the folder’s index.html in a sandboxed frame of the preview’s origin', async () => {
    const { backend } = await mountPreview(site)
    expect(screen.queryByTestId('preview-pane')).toBeNull()
    await act(async () => {
      fireEvent.keyDown(window, altP)
    })
    const frame = await screen.findByTestId('preview-frame')
    expect(frame.getAttribute('src')).toBe(`${site.url}index.html?r=0`)
    expect(frame.getAttribute('sandbox')).toBe(previewSandbox)
    expect(previewSandbox).not.toMatch(/allow-top-navigation|allow-popups/)
    expect(backend.callsOf('PreviewOpen')).toEqual([['c1', '']])
    await act(async () => {
      fireEvent.keyDown(window, altP)
    })
    expect(screen.queryByTestId('preview-pane')).toBeNull()
  })

  it('reloads after a change a run made to its folder, counts the errors and sends them with Fix these', async () => {
    const { backend } = await mountPreview(site)
    await act(async () => {
      fireEvent.keyDown(window, altP)
    })
    await screen.findByTestId('preview-frame')
    act(() => {
      backend.emit([{ type: 'preview.report', chatId: '', report: report([{ kind: 'error', message: 'ReferenceError: x' }]) }])
    })
    expect(screen.getByTestId('preview-errors').textContent).toBe('1 error')
    act(() => {
      backend.emit([{ type: 'tool.result', chatId: 'c1', toolCallId: 't1', ok: true, details: { path: 'app.js', changed: true } }])
    })
    expect(screen.getByTestId('preview-frame').getAttribute('src')).toBe(`${site.url}index.html?r=1`)
    act(() => {
      backend.emit([{ type: 'tool.result', chatId: 'c1', toolCallId: 't2', ok: true, details: { path: 'app.js' } }]) // a read
    })
    expect(screen.getByTestId('preview-frame').getAttribute('src')).toBe(`${site.url}index.html?r=1`)
    act(() => {
      backend.emit([{ type: 'undo', chatId: 'c1', paths: ['app.js'] }])
    })
    expect(screen.getByTestId('preview-frame').getAttribute('src')).toBe(`${site.url}index.html?r=2`)
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Fix these' }))
    })
    // the page's words reach the model as preview_errors' output, never as the user's
    expect(backend.callsOf('Send')).toEqual([['c1', 'The preview shows 1 error. Please read them with preview_errors and fix them.']])
    act(() => {
      backend.emit([{ type: 'preview.report', chatId: '', report: report([], 2) }])
    })
    expect(screen.getByTestId('preview-errors').textContent).toBe('0 errors')
    expect(screen.queryByRole('button', { name: 'Fix these' })).toBeNull()
  })

  it('switches between desktop, tablet and phone widths and takes the whole width with Alt+W', async () => {
    await mountPreview(site)
    await act(async () => {
      fireEvent.keyDown(window, { key: 'w', code: 'KeyW', altKey: true })
    })
    const frame = await screen.findByTestId('preview-frame')
    expect(screen.getByTestId('preview-pane').className).toBe('preview-pane wide')
    expect(frame.style.width).toBe('')
    fireEvent.click(screen.getByRole('button', { name: 'Phone' }))
    expect(screen.getByTestId('preview-frame').style.width).toBe('390px')
    expect(screen.getByRole('button', { name: 'Phone' }).getAttribute('aria-pressed')).toBe('true')
    fireEvent.click(screen.getByRole('button', { name: 'Tablet' }))
    expect(screen.getByTestId('preview-frame').style.width).toBe('768px')
    await act(async () => {
      fireEvent.keyDown(window, { key: 'w', code: 'KeyW', altKey: true })
    })
    expect(screen.getByTestId('preview-pane').className).toBe('preview-pane')
  })
})
