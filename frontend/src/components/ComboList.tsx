// A list that a text field drives (a combobox): the folder and model menus and the search
// results. The field has the focus, typing calls onType, ↑/↓ move the active option, Enter or a
// click chooses it: the same elements, ids and keys wherever such a list is shown.

import type { ReactNode } from 'react'
import { ComboField, optionId, useListNav, type ListNav } from '../keyboard/listNav'

/** How an item is shown as an option: its key, class and content; title and data-testid go on the element. */
export interface ComboOption {
  key: string
  className: string
  content: ReactNode
  title?: string
  'data-testid'?: string
}

/**
 * The field (id, label, placeholder; its text is value) and, below it, the listbox (listId,
 * listLabel, listClassName) of one option per item, as option shows it; choose is called with
 * the item picked. Children go at the top of the list (what is said when it is empty); between
 * goes between the field and the list. The option active when the list appears is the item at
 * index initial (the one in use, so that Enter keeps it), else the first.
 */
export function ComboList<T>({
  id,
  label,
  placeholder,
  value,
  onType,
  listId,
  listLabel,
  listClassName,
  items,
  option,
  choose,
  between,
  children,
  initial = 0,
}: {
  id: string
  label: string
  placeholder: string
  value: string
  onType: (text: string) => void
  listId: string
  listLabel: string
  listClassName?: string
  items: readonly T[]
  option: (item: T) => ComboOption
  choose: (item: T, index: number) => void
  between?: ReactNode
  children?: ReactNode
  initial?: number
}) {
  const nav = useListNav(
    items.length,
    (i) => {
      if (i >= 0 && i < items.length) choose(items[i], i)
    },
    Math.max(initial, 0),
  )
  return (
    <>
      <ComboField id={id} listId={listId} label={label} placeholder={placeholder} value={value} nav={nav} onType={onType} />
      {between}
      <div role="listbox" id={listId} aria-label={listLabel} className={listClassName}>
        {children}
        {items.map((item, i) => {
          const { key, content, ...attributes } = option(item)
          return (
            <ListOption key={key} fieldId={id} index={i} nav={nav} onPick={() => choose(item, i)} {...attributes}>
              {content}
            </ListOption>
          )
        })}
      </div>
    </>
  )
}

/**
 * Option index of the list driven by the field fieldId: it is the active one (class
 * `active`, aria-selected) while the arrows chose it or the pointer is over it; a click
 * picks it. Other attributes (title, data-testid) go on the element as given.
 */
function ListOption({
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
  'data-testid'?: string
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
