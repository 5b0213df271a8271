import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { App } from './App'

describe('App', () => {
  it('shows the chat layout: sidebar, messages and a focused composer', () => {
    render(<App />)
    expect(screen.getByRole('navigation', { name: 'Chats' })).toBeTruthy()
    const composer = screen.getByPlaceholderText(/Ask Prototyper/)
    expect(document.activeElement).toBe(composer)
  })
})
