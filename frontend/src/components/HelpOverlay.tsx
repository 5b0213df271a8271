import { focusComposer } from '../keyboard/menus'
import { helpList } from '../keyboard/shortcuts'

/** The keyboard shortcuts, listed (? or Ctrl+/); Esc or any button closes it. */
export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const close = () => {
    onClose()
    focusComposer()
  }
  return (
    <div role="presentation" className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label="Keyboard shortcuts"
        data-testid="help-overlay"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation()
            e.preventDefault()
            close()
          }
        }}
      >
        <h2>Keyboard shortcuts</h2>
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
          <button type="button" autoFocus className="primary" onClick={close}>
            Close
          </button>
        </div>
      </div>
    </div>
  )
}
