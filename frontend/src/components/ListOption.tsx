// One option of a list that a ComboField drives (the folder and model menus, the search
// results): the same element, ids and pointer behaviour wherever such a list is shown.

import type { ReactNode } from 'react'
import { optionId, type ListNav } from '../keyboard/listNav'

/**
 * Option index of the list driven by the field fieldId: it is the active one (class
 * `active`, aria-selected) while the arrows chose it or the pointer is over it; a click
 * picks it. Other attributes (title, data-testid) go on the element as given.
 */
export function ListOption({
  fieldId,
  index,
  nav,
  className,
  onPick,
  children,
  ...attributes
}: {
  fieldId: string
  index: number
  nav: ListNav
  className: string
  onPick: () => void
  children: ReactNode
  title?: string
}) {
  const active = index === nav.active
  return (
    <div
      role="option"
      id={optionId(fieldId, index)}
      aria-selected={active}
      className={`${className}${active ? ' active' : ''}`}
      onMouseEnter={() => nav.setActive(index)}
      onClick={onPick}
      {...attributes}
    >
      {children}
    </div>
  )
}
