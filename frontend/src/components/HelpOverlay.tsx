import { focusComposer } from '../keyboard/menus'
import { helpList } from '../keyboard/shortcuts'
import { Dialog } from './Dialog'

/** The keyboard shortcuts, listed (? or Ctrl+/); Esc or any button closes it. */
export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const close = () => {
    onClose()
    focusComposer()
  }
  return (
    <Dialog label="Keyboard shortcuts" testId="help-overlay" onClose={close}>
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
    </Dialog>
  )
}
