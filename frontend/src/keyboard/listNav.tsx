// Moving in a list with the keyboard: the menus (folders, models) and the search results keep
// the focus in their text field and mark one option active (aria-activedescendant), as a
// combobox does. ↑/↓ move (wrapping), Home/End jump, Enter chooses.

import { useState, type KeyboardEvent } from 'react'

export interface ListNav {
  /** The active option, or -1 when the list is empty. */
  active: number
  setActive: (i: number) => void
  /** The field's keydown: true when the key was the list's. */
  onKeyDown: (e: KeyboardEvent) => boolean
}

/** Keyboard movement over count options, from option initial (the first by default); choose(i) is called on Enter. */
export function useListNav(count: number, choose: (i: number) => void, initial = 0): ListNav {
  const [raw, setActive] = useState(initial)
  const active = count === 0 ? -1 : Math.min(Math.max(raw, 0), count - 1)
  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (count === 0) return false
    let next = active
    if (e.key === 'ArrowDown') next = (active + 1) % count
    else if (e.key === 'ArrowUp') next = (active - 1 + count) % count
    else if (e.key === 'Home' && e.ctrlKey) next = 0
    else if (e.key === 'End' && e.ctrlKey) next = count - 1
    else if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault()
      choose(active)
      return true
    } else return false
    e.preventDefault()
    setActive(next)
    document.getElementById(optionId(e.currentTarget.id, next))?.scrollIntoView?.({ block: 'nearest' })
    return true
  }
  return { active, setActive, onKeyDown }
}

/** The id of option i of the list driven by the field fieldId. */
export function optionId(fieldId: string, i: number): string {
  return `${fieldId}-option-${i}`
}

/**
 * The text field that drives a list (a combobox): it has the focus when it appears, says which
 * option is active, and gives ↑/↓/Enter to the list. Typing calls onType, and the first option
 * becomes the active one again.
 */
export function ComboField({
  id,
  listId,
  label,
  placeholder,
  value,
  nav,
  onType,
}: {
  id: string
  listId: string
  label: string
  placeholder: string
  value: string
  nav: ListNav
  onType: (text: string) => void
}) {
  return (
    <input
      id={id}
      autoFocus
      role="combobox"
      aria-expanded="true"
      aria-controls={listId}
      aria-activedescendant={nav.active >= 0 ? optionId(id, nav.active) : undefined}
      aria-label={label}
      placeholder={placeholder}
      value={value}
      onChange={(e) => {
        onType(e.target.value)
        nav.setActive(0)
      }}
      onKeyDown={(e) => nav.onKeyDown(e)}
    />
  )
}
