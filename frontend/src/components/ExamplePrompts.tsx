import { fillComposer } from '../keyboard/composerText'

/** What an empty chat offers to start from: short, and each builds something in the folder. */
export const examplePrompts = [
  'Make a to-do list web page with HTML, CSS and JavaScript',
  'Build a landing page for a small coffee shop',
  'Write a snake game that runs in the browser',
]

/**
 * The example prompts of an empty chat: a click (or Enter on one reached with Tab) writes it in
 * the message box, to be changed or sent; nothing is sent by picking one.
 */
export function ExamplePrompts() {
  return (
    <div className="example-prompts" role="group" aria-label="Examples to start from">
      {examplePrompts.map((p) => (
        <button key={p} type="button" className="example-prompt" title="Write this in the message box" onClick={() => fillComposer(p)}>
          {p}
        </button>
      ))}
    </div>
  )
}
