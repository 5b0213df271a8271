/** What the window says when the Go side did not bind its methods: never fake data. */
export const backendUnreachableText = 'Prototyper could not reach its backend; restart the app.'

/** Shown instead of the window when the page runs without the Go side's bindings. */
export function BackendUnreachable() {
  return (
    <main className="backend-unreachable" data-testid="backend-unreachable">
      <h1>Prototyper</h1>
      <p role="alert">{backendUnreachableText}</p>
    </main>
  )
}
