import { useEffect, useRef } from 'react'
import { focusComposer } from '../keyboard/menus'
import { helpList } from '../keyboard/shortcuts'
import { Dialog } from './Dialog'

/**
 * The keyboard shortcuts, listed (? or Ctrl+/); Esc or any button closes it. It opens at its
 * top with the focus on its title: the Close button at the end of a long list would scroll the
 * title and the first shortcuts out of view. Tab goes on to Close.
 */
export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const title = useRef<HTMLHeadingElement>(null)
  useEffect(() => title.current?.focus(), [])
  const close = () => {
    onClose()
    focusComposer()
  }
  return (
    <Dialog label="Keyboard shortcuts" testId="help-overlay" onClose={close}>
      <h2 ref={title} tabIndex={-1}>
        Keyboard shortcuts
      </h2>
      <table className="shortcuts">
        <tbody>
          {helpList.map((s) => (
            <tr key={s.label}>
              <td>
                <kbd>{s.label}</kbd>
              </td>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row end">
        <button type="button" className="primary" onClick={close}>
          Close
        </button>
      </div>
    </Dialog>
  )
}
