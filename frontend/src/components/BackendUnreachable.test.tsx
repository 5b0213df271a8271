import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { BackendUnreachable } from './BackendUnreachable'

describe('BackendUnreachable', () => {
  it('says in one sentence what is wrong and what to do, as an alert', () => {
    render(<BackendUnreachable />)
    expect(screen.getByRole('alert').textContent).toBe('Prototyper could not reach its backend; restart the app.')
  })
})
