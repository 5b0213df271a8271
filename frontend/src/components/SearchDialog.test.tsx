import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import { highlighted } from './SearchDialog'

describe('the words a search found', () => {
  it('are marked wherever they are, whatever their case, the longest word whole', () => {
    const { container } = render(<p>{highlighted('Make a Snake game; snakes eat', 'snake sn')}</p>)
    expect([...container.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['Snake', 'snake'])
    expect(container.textContent).toBe('Make a Snake game; snakes eat')
  })

  it('leave a text without them as it is, and signs in the query mark nothing else', () => {
    const { container } = render(<p>{highlighted('a+b (c)', '(c) x.')}</p>)
    expect([...container.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['(c)'])
    expect(render(<p>{highlighted('nothing here', '  ')}</p>).container.querySelector('mark')).toBeNull()
  })
})
