import { StrictMode } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { Composer } from './Composer'
import { FakeBackend } from '../fakeBackend'
import { Drafts } from '../state/drafts'

function setup(props: Partial<Parameters<typeof Composer>[0]> = {}) {
  const onSend = vi.fn()
  const onStop = vi.fn()
  render(<Composer disabledReason="" busy={false} onSend={onSend} onStop={onStop} {...props} />)
  const box = screen.getByTestId('composer') as HTMLTextAreaElement
  return { onSend, onStop, box }
}

describe('Composer', () => {
  it('has the focus at start', () => {
    const { box } = setup()
    expect(document.activeElement).toBe(box)
  })

  it('sends on Enter and clears the box', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: 'make a page' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('make a page')
    expect(box.value).toBe('')
  })

  it('does not send on Shift+Enter (the box gets a new line)', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: 'line one' } })
    const notPrevented = fireEvent.keyDown(box, { key: 'Enter', shiftKey: true })
    expect(onSend).not.toHaveBeenCalled()
    expect(notPrevented).toBe(true)
  })

  it('does not send an empty message', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: '   ' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('stops a busy run on Esc, and offers a Stop button', () => {
    const { onStop, box } = setup({ busy: true })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(onStop).toHaveBeenCalledTimes(1)
    fireEvent.click(screen.getByTestId('stop'))
    expect(onStop).toHaveBeenCalledTimes(2)
  })

  it('ignores Esc when nothing runs', () => {
    const { onStop, box } = setup({ busy: false })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(onStop).not.toHaveBeenCalled()
    expect(screen.queryByTestId('stop')).toBeNull()
  })

  it('is disabled with its reason while nothing is configured', () => {
    const { onSend, box } = setup({ disabledReason: 'Pick a workspace folder (top left) to start.' })
    expect(box.disabled).toBe(true)
    expect(screen.getByTestId('composer-disabled-reason').textContent).toBe('Pick a workspace folder (top left) to start.')
    fireEvent.change(box, { target: { value: 'x' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('takes the focus once it becomes usable', () => {
    const onSend = vi.fn()
    const { rerender } = render(<Composer disabledReason="Loading…" busy={false} onSend={onSend} onStop={() => {}} />)
    rerender(<Composer disabledReason="" busy={false} onSend={onSend} onStop={() => {}} />)
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('shows a warning that does not block sending', () => {
    const { onSend, box } = setup({ warning: 'gemma3:1b cannot call tools' })
    expect(screen.getByTestId('composer-warning').textContent).toContain('cannot call tools')
    fireEvent.change(box, { target: { value: 'hi' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('hi')
  })

  it('says while typing that a message is too long for the model, and does not send it', () => {
    const budget = { model: 'qwen3:4b', numCtx: 1000, maxTokens: 100, charsPerToken: 3.5, perMessageTokens: 4 }
    const { onSend, box } = setup({ budget })
    // 96 tokens of text and the message's 4: just fits.
    fireEvent.change(box, { target: { value: 'x'.repeat(336) } })
    expect(screen.queryByTestId('composer-too-long')).toBeNull()
    fireEvent.change(box, { target: { value: 'x'.repeat(340) } })
    expect(screen.getByRole('alert').textContent).toBe(
      "This message is about 101 tokens; qwen3:4b's context holds 1000, of which about 100 are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less.",
    )
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
    expect((screen.getByTestId('send') as HTMLButtonElement).disabled).toBe(true)
    expect(box.value).toBe('x'.repeat(340))
  })

  it('counts a pasted text by its UTF-8 bytes, as the Go side does', () => {
    const budget = { model: 'm', numCtx: 10_000, maxTokens: 8000, charsPerToken: 3.5, perMessageTokens: 4 }
    const { box } = setup({ budget })
    // 20,000 three-byte characters: about 17,000 tokens, more than the whole context.
    fireEvent.change(box, { target: { value: '語'.repeat(20_000) } })
    expect(screen.getByTestId('composer-too-long').textContent).toBe(
      "This message is about 17K tokens; m's context holds 9.8K. Shorten it or attach less.",
    )
  })
})

describe('images in the composer', () => {
  const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'dot.png', { type: 'image/png' })

  it('sends pasted images with the message to a model that can see', async () => {
    const sent: Array<[string, string[]]> = []
    render(<Composer disabledReason="" busy={false} vision model="llava" onSend={(t, i) => void sent.push([t, i ?? []])} onStop={() => {}} />)
    const box = screen.getByTestId('composer')
    fireEvent.paste(box, { clipboardData: { files: [png] } })
    await waitFor(() => expect(screen.getByTestId('composer-images').querySelectorAll('img')).toHaveLength(1))
    fireEvent.change(box, { target: { value: 'what is this?' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(sent).toEqual([['what is this?', ['iVBORw==']]])
  })

  it('reads a pasted image from the clipboard when the paste event lists none (WebKitGTK)', async () => {
    const read = vi.fn(async () => [{ types: ['text/html', 'image/png'], getType: async () => png }])
    Object.defineProperty(navigator, 'clipboard', { value: { read }, configurable: true })
    try {
      const sent: Array<[string, string[]]> = []
      render(<Composer disabledReason="" busy={false} vision model="llava" onSend={(t, i) => void sent.push([t, i ?? []])} onStop={() => {}} />)
      const box = screen.getByTestId('composer')
      fireEvent.paste(box, { clipboardData: { types: [], files: [], items: [] } })
      await waitFor(() => expect(screen.getByRole('button', { name: 'Remove image 1' })).toBeTruthy())
      fireEvent.change(box, { target: { value: 'what is this?' } })
      fireEvent.keyDown(box, { key: 'Enter' })
      expect(sent).toEqual([['what is this?', ['iVBORw==']]])
      // a paste of text is the box's own: the clipboard is not read for it
      fireEvent.paste(box, { clipboardData: { types: ['text/plain'], files: [], items: [] } })
      expect(read).toHaveBeenCalledTimes(1)
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard')
    }
  })

  it('refuses them before sending for a model that cannot see', async () => {
    const sent: string[] = []
    render(<Composer disabledReason="" busy={false} vision={false} model="qwen3:4b" onSend={(t) => void sent.push(t)} onStop={() => {}} />)
    const box = screen.getByTestId('composer')
    fireEvent.drop(box, { dataTransfer: { files: [png] } })
    await waitFor(() => expect(screen.getByTestId('composer-no-vision').textContent).toMatch(/^qwen3:4b cannot see images/))
    fireEvent.change(box, { target: { value: 'what is this?' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(sent).toEqual([])
    fireEvent.click(screen.getByRole('button', { name: 'Remove image 1' }))
    expect(screen.queryByTestId('composer-no-vision')).toBeNull()
  })
})

describe('files dropped on the window', () => {
  const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'dot.png', { type: 'image/png' })
  const pdf = new File([new Uint8Array([0x25, 0x50, 0x44, 0x46])], 'paper.pdf', { type: 'application/pdf' })

  it('attaches an image dropped anywhere, and keeps the webview from opening the file', async () => {
    setup({ vision: true })
    const drop = new Event('drop', { bubbles: true, cancelable: true })
    Object.assign(drop, { dataTransfer: { types: ['Files'], files: [png] } })
    document.body.dispatchEvent(drop)
    expect(drop.defaultPrevented).toBe(true)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Remove image 1' })).toBeTruthy())
  })

  it('says that a file which is no image cannot go with a message', () => {
    const { box } = setup({ vision: true })
    fireEvent.drop(box, { dataTransfer: { types: ['Files'], files: [pdf] } })
    expect(screen.getByTestId('composer-not-an-image').textContent).toMatch(/^Only images/)
    expect(screen.queryByTestId('composer-images')).toBeNull()
    fireEvent.change(box, { target: { value: 'hello' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(screen.queryByTestId('composer-not-an-image')).toBeNull()
  })

  it('leaves a drag of text to the page', () => {
    setup()
    const over = new Event('dragover', { bubbles: true, cancelable: true })
    Object.assign(over, { dataTransfer: { types: ['text/plain'], files: [] } })
    document.body.dispatchEvent(over)
    expect(over.defaultPrevented).toBe(false)
  })
})

describe('@ completion over the workspace files', () => {
  it('offers the files after an @ and puts the one picked with Enter in the message', async () => {
    const asked: string[] = []
    const sent: string[] = []
    const suggestFiles = async (q: string) => {
      asked.push(q)
      return ['src/app.ts', 'src/api.ts'].filter((f) => f.includes(q))
    }
    render(<Composer disabledReason="" busy={false} onSend={(t) => void sent.push(t)} onStop={() => {}} suggestFiles={suggestFiles} />)
    const box = screen.getByTestId('composer') as HTMLTextAreaElement
    fireEvent.change(box, { target: { value: 'look at @src/a', selectionStart: 14 } })
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(2))
    expect(asked).toEqual(['src/a'])
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    expect(screen.getAllByRole('option')[1].getAttribute('aria-selected')).toBe('true')
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(box.value).toBe('look at @src/api.ts ')
    expect(sent).toEqual([])
    expect(screen.queryByTestId('file-mentions')).toBeNull()
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(sent).toEqual(['look at @src/api.ts'])
  })
})

describe('the box’s unsent text and images', () => {
  it('are not forgotten by the empty box a mount starts with, when they were read before it', async () => {
    const backend = new FakeBackend()
    backend.savedDrafts = { '': 'the first words' }
    backend.savedDraftImages = { '': ['iVBORw0KGgo='] }
    const drafts = new Drafts(backend)
    await drafts.load() // the Go side answered before the first render's effects ran
    setup({ draftKey: '', onDraft: drafts.draftChanged, onDraftImages: drafts.imagesChanged })
    await waitFor(() => expect(drafts.draftOf('')).toBe('the first words'))
    expect(drafts.imagesOf('')).toEqual(['iVBORw0KGgo='])
    expect(backend.callsOf('SaveDraft')).toEqual([])
    expect(backend.callsOf('SaveDraftImages')).toEqual([])
  })

  it('are not forgotten under StrictMode, whose effects run twice as the box mounts', async () => {
    const backend = new FakeBackend()
    backend.savedDrafts = { '': 'the first words' }
    backend.savedDraftImages = { '': ['iVBORw0KGgo='] }
    const drafts = new Drafts(backend)
    await drafts.load()
    render(
      <StrictMode>
        <Composer disabledReason="" busy={false} onSend={vi.fn()} onStop={vi.fn()} draftKey="" onDraft={drafts.draftChanged} onDraftImages={drafts.imagesChanged} />
      </StrictMode>,
    )
    const box = screen.getByTestId('composer') as HTMLTextAreaElement
    fireEvent.change(box, { target: { value: 'typed' } })
    await waitFor(() => expect(drafts.draftOf('')).toBe('typed')) // what is typed is still reported
    expect(drafts.imagesOf('')).toEqual(['iVBORw0KGgo='])
    expect(backend.callsOf('SaveDraftImages')).toEqual([])
  })
})
