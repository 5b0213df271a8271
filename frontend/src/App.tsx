import { useState } from 'react'

/** The window: chat list on the left, the chat and its composer on the right. */
export function App() {
  const [draft, setDraft] = useState('')
  return (
    <div className="app">
      <aside className="sidebar">
        <div className="brand">Prototyper</div>
        <button className="new-chat">New chat</button>
        <nav className="chat-list" aria-label="Chats" />
      </aside>
      <main className="chat">
        <header className="chat-header">
          <span className="workspace">No workspace</span>
        </header>
        <section className="messages" aria-live="polite">
          <div className="empty">Open a workspace, pick a model, and describe what to build.</div>
        </section>
        <form className="composer" onSubmit={(e) => e.preventDefault()}>
          <textarea
            autoFocus
            value={draft}
            placeholder="Ask Prototyper to build something…"
            onChange={(e) => setDraft(e.target.value)}
          />
        </form>
      </main>
    </div>
  )
}
