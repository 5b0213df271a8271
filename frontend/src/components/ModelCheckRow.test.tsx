import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import type { ModelCheck } from '../backend'
import { mountApp } from '../test/mountApp'

function result(model: string, passed: number, tokPerSec = 14): ModelCheck {
  return {
    model, numCtx: 8192, passed, total: 6, calls: 8, wellFormed: 8, textCalls: 0, firstTokenMs: 300,
    promptTokensPerSec: 200, answerTokensPerSec: tokPerSec, durationMs: 40000, at: '2026-11-27T01:00:00Z',
  }
}

async function openMenu() {
  await act(async () => fireEvent.click(screen.getByTestId('model-button')))
  return screen.getByTestId('model-check')
}

describe('the model check in the model menu', () => {
  it('offers Check for a model never checked, shows which case runs and how far, and stops it keeping the earlier state', async () => {
    const { backend, emit } = await mountApp([])
    const row = await openMenu()
    expect(row.textContent).toContain('qwen3:4b: not checked')
    await act(async () => fireEvent.click(within(row).getByRole('button', { name: 'Check' })))
    expect(backend.callsOf('CheckModel')).toEqual([['qwen3:4b']])
    emit([{ type: 'check.progress', chatId: '', model: 'qwen3:4b', status: 'running', name: 'create a file', completed: 0, total: 6 }])
    emit([{ type: 'check.progress', chatId: '', model: 'qwen3:4b', status: 'case', name: 'create a file', ok: true, completed: 1, total: 6 }])
    emit([{ type: 'check.progress', chatId: '', model: 'qwen3:4b', status: 'running', name: 'edit one place', completed: 1, total: 6 }])
    const running = screen.getByTestId('model-check')
    expect(running.textContent).toContain('Checking qwen3:4b: 1 of 6 done · edit one place')
    expect(within(running).getByRole('progressbar').getAttribute('value')).toBe('1')

    await act(async () => fireEvent.click(within(running).getByRole('button', { name: 'Stop the check' })))
    expect(backend.callsOf('StopModelCheck')).toEqual([['qwen3:4b']])
    const after = screen.getByTestId('model-check')
    expect(after.textContent).toContain('not checked')
    expect(after.textContent).not.toContain('did not finish')
    expect(within(after).getByRole('button', { name: 'Check' })).toBeTruthy()
  })

  it('shows a finished check as the badge of the model, in the menu and for every listed model', async () => {
    const { backend } = await mountApp([], (b) => {
      b.checks = [result('gemma3:1b', 1, 1234.5)]
    })
    await openMenu()
    await act(async () => fireEvent.click(within(screen.getByTestId('model-check')).getByRole('button', { name: 'Check' })))
    await act(async () => backend.finishCheck?.(result('qwen3:4b', 5, 14.4)))
    expect(screen.getByTestId('model-check').textContent).toContain('qwen3:4b: 5/6 on this machine, 14 tok/s')
    expect(within(screen.getByTestId('model-check')).getByRole('button', { name: 'Check again' })).toBeTruthy()
    const options = screen.getAllByRole('option')
    const gemma = options.find((o) => o.textContent?.includes('gemma3:1b'))
    expect(gemma?.textContent).toContain('1/6 on this machine, 1,235 tok/s')
    expect(gemma?.querySelector('.badge.err[title]')?.getAttribute('title')).toMatch(/failed most/)
  })

  it('marks the model in use in the header when it failed most of the check, before a chat starts', async () => {
    await mountApp([], (b) => {
      b.checks = [result('qwen3:4b', 2)]
    })
    expect(screen.getByTestId('model-button').textContent).toContain('2/6 on this machine')
  })

  it('says why a check did not finish', async () => {
    const { backend } = await mountApp([])
    await openMenu()
    await act(async () => fireEvent.click(within(screen.getByTestId('model-check')).getByRole('button', { name: 'Check' })))
    await act(async () => backend.finishCheck?.(new Error('cannot load qwen3:4b: model not found')))
    expect(screen.getByTestId('model-check').textContent).toContain('The check did not finish. Cannot load qwen3:4b: model not found')
  })
})
