import { useEffect, useRef, useState, type ReactNode } from 'react'
import { errorText, type ApprovalPolicy, type CommandRule, type Config, type OlderTurnsPolicy, type Provider, type Theme, type ThinkLevel } from '../backend'
import { asSentence } from '../state/sentence'
import { useAppState, useStore } from '../state/useAppState'
import { useModalFocus } from './modalFocus'
import { reviewWorkspaceServers } from './WorkspaceServersDialog'
import { isLocalAddress } from './localAddress'
import { toolAction } from './toolTitle'
import { tokenCount } from '../tokenCount'

const thinkLevels: ThinkLevel[] = ['off', 'on', 'low', 'medium', 'high']
const thinkWords: Record<ThinkLevel, string> = { off: 'Off', on: 'On', low: 'Low', medium: 'Medium', high: 'High' }

/**
 * How long a model stays loaded, as the settings offer it ([value, words]; keepAliveMin: 0 is
 * the default, 30 minutes, and -1 as long as Ollama runs). A value set elsewhere (the command
 * line, an older version) is offered too, so that opening the settings never changes it.
 */
export function keepAliveChoices(current: string): [string, string][] {
  const choices: [string, string][] = [
    ['5', '5 minutes'],
    ['', '30 minutes'],
    ['60', '1 hour'],
    ['240', '4 hours'],
    ['-1', 'As long as Ollama runs'],
  ]
  const n = Number(current)
  if (current === '0' || choices.some(([v]) => v === current) || !Number.isInteger(n)) return choices
  const words = n % 60 === 0 ? `${n / 60} hours` : `${n} minute${n === 1 ? '' : 's'}`
  return [...choices, [current, words] as [string, string]].sort(([a], [b]) => keepOrder(a) - keepOrder(b))
}

function keepOrder(v: string): number {
  const n = Number(v || 30)
  return n < 0 ? Infinity : n
}

/** One group of the settings, titled, so that a long form reads as a few short ones. */
function SettingsGroup({ title, children }: { title: string; children: ReactNode }) {
  const id = `settings-${title.toLowerCase().replace(/\W+/g, '-')}`
  return (
    <section className="settings-group" role="group" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  )
}
const policies: ApprovalPolicy[] = ['auto', 'ask', 'deny']

/** A tool as the settings list it: what it does in words, its name beside for those who know it. */
function ToolNamed({ name }: { name: string }) {
  const words = toolAction(name)
  return (
    <span className="tool-named">
      {words && <span>{words}</span>}
      <code className={words ? 'tool-name muted small' : 'tool-name'}>{name}</code>
    </span>
  )
}

/** Whether Prototyper starts Ollama itself, with which program, and what it started. */
function OllamaServerSettings(props: {
  startOllama: boolean
  onStartOllama: (v: boolean) => void
  ollamaBinary: string
  onOllamaBinary: (v: string) => void
}) {
  const status = useAppState((s) => s.ollama)
  return (
    <>
      <label className="check">
        <input type="checkbox" checked={props.startOllama} onChange={(e) => props.onStartOllama(e.target.checked)} />
        Start Ollama when it is not running at a local address (stopped when Prototyper quits)
      </label>
      {props.startOllama && (
        <label>
          Ollama program (used when no ollama is on PATH or beside Prototyper)
          <input
            value={props.ollamaBinary}
            onChange={(e) => props.onOllamaBinary(e.target.value)}
            placeholder="/usr/local/bin/ollama"
          />
        </label>
      )}
      {status?.running && status.startedByApp && (
        <div className="muted small" data-testid="settings-ollama-started">
          Ollama (started by Prototyper){status.logPath ? `, its log in ${status.logPath}` : ''}
        </div>
      )}
    </>
  )
}

const MiB = 1 << 20

/** What a field saves: the value saved while the field is as it was given (now), else its own value. */
function kept<T, V>(savedValue: T, givenValue: V, now: V, value: T): T {
  return now === givenValue ? savedValue : value
}

/** The MCP document of the settings as the panel's text ('' for none). */
function mcpText(doc: unknown): string {
  return doc == null ? '' : JSON.stringify(doc)
}

/**
 * The MCP text as the settings save it: none when blank, the document it holds, or (text that is
 * not JSON) the text itself, for the Go side to say what is wrong with it.
 */
function mcpDocument(text: string): unknown {
  if (!text.trim()) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text.trim()
  }
}

/** A copy of a saved map of lists, without its empty lists (none: an empty map). */
function copyLists<T>(m: Record<string, T[] | null> | undefined, copy: (list: T[]) => T[]): Record<string, T[]> {
  const out: Record<string, T[]> = {}
  for (const [dir, list] of Object.entries(m ?? {})) if (list?.length) out[dir] = copy(list)
  return out
}

/**
 * The commands of each workspace that run without asking (each removable), the patterns never
 * run, and whether a command runs unconfined where the sandbox cannot start. A removed rule's
 * button hands the focus to the next one (or the deny list), so that it stays in the dialog.
 */
function CommandSettings(props: {
  rules: Record<string, CommandRule[]>
  onRules: (r: Record<string, CommandRule[]>) => void
  deny: string
  onDeny: (v: string) => void
  unconfined: boolean
  onUnconfined: (v: boolean) => void
}) {
  const denyField = useRef<HTMLTextAreaElement>(null)
  const list = useRef<HTMLDivElement>(null)
  const remove = (dir: string, i: number, button: HTMLElement) => {
    const buttons = Array.from(list.current?.querySelectorAll<HTMLElement>('button[data-command-rule]') ?? [])
    const at = buttons.indexOf(button)
    const next = buttons[at + 1] ?? buttons[at - 1] ?? denyField.current
    next?.focus()
    const left = (props.rules[dir] ?? []).filter((_, k) => k !== i)
    const rules = { ...props.rules, [dir]: left }
    if (left.length === 0) delete rules[dir]
    props.onRules(rules)
  }
  const entries = Object.entries(props.rules)
  return (
    <fieldset data-testid="command-settings">
      <legend>Commands</legend>
      <div ref={list} role="group" aria-label="Commands allowed without asking">
        {entries.length === 0 && (
          <div className="muted small">No command runs without asking. A waiting command’s “Always allow” adds its prefix here.</div>
        )}
        {/* one flat list: a workspace whose last rule goes does not remount the others (their focus) */}
        {entries.flatMap(([dir, rules]) =>
          rules.map((r, i) => (
            <div key={`${dir}\n${r.pattern}`} className="row inline">
              <code className="tool-name">{r.pattern}</code>
              <span className="muted small" title={dir}>
                {r.network ? 'with network, ' : ''}in {dir}
              </span>
              <button
                type="button"
                data-command-rule=""
                aria-label={`Remove ${r.pattern} in ${dir}`}
                onClick={(e) => remove(dir, i, e.currentTarget)}
              >
                Remove
              </button>
            </div>
          )),
        )}
      </div>
      <label>
        Never run commands matching (one pattern a line; * stands for anything)
        <textarea ref={denyField} rows={4} spellCheck={false} value={props.deny} onChange={(e) => props.onDeny(e.target.value)} />
      </label>
      <label className="check">
        <input
          type="checkbox"
          aria-describedby="unconfined-meaning"
          checked={props.unconfined}
          onChange={(e) => props.onUnconfined(e.target.checked)}
        />
        Run commands without the sandbox where it cannot start
      </label>
      <div className="muted small" id="unconfined-meaning">
        Where this computer cannot start the sandbox, an allowed command then runs as you, with your files, your network
        and your keys in reach; left off, it is refused instead.
      </div>
    </fieldset>
  )
}

/** The model server, think level, context cap and the approval policy of each tool. */
export function SettingsPanel({ config, onClose }: { config: Config; onClose: () => void }) {
  const store = useStore()
  const dialog = useRef<HTMLFormElement>(null)
  // Esc and a press beside the dialog close it when nothing was edited; with edits they ask
  // first (leaving), so that a stray click never throws away what was typed. Cancel discards.
  const [leaving, setLeaving] = useState(false)
  const edited = useRef<() => boolean>(() => false)
  const leave = () => (edited.current() ? setLeaving(true) : onClose())
  useModalFocus(dialog, () => (leaving ? setLeaving(false) : leave()))
  const saved = config.saved
  // Each field starts as given: the value saved, else (shown as the value or beside it) its
  // default or what is in effect. A field the user left as given saves the value saved, so that
  // opening and saving the settings changes nothing stored.
  const [given] = useState(() => ({
    url: config.ollamaUrl,
    provider: (config.provider === 'openai' ? 'openai' : 'ollama') as Provider,
    mcpJson: mcpText(saved.mcpServers),
    think: saved.think ?? config.defaults.think,
    cap: String(saved.contextCap || ''),
    firstByte: String(saved.firstByteTimeoutSec || ''),
    maxAnswer: String((saved.maxAnswerBytes ?? 0) / MiB || ''),
    approval: { ...config.toolApproval },
    always: copyLists(saved.alwaysAllow, (list) => [...list]),
    commandRules: copyLists(saved.commandRules, (list) => list.map((r) => ({ ...r }))),
    commandDeny: (saved.commandDeny ?? config.defaults.commandDeny ?? []).join('\n'),
    theme: config.theme ?? 'system',
    keepAlive: String(saved.keepAliveMin || ''),
    loopRepeats: String(saved.loopRepeats || ''),
    olderTurns: saved.olderTurns ?? config.defaults.olderTurns ?? 'ask',
    instructions: config.instructions ?? '',
  }))
  const [url, setUrl] = useState(given.url)
  const [provider, setProvider] = useState<Provider>(given.provider)
  const [baseUrl, setBaseUrl] = useState(saved.baseUrl ?? '')
  const [keyEnv, setKeyEnv] = useState(saved.apiKeyEnv ?? '')
  // Fields only one provider uses are shown for it alone, as the fields read now: the key for an
  // OpenAI-compatible server, or an Ollama elsewhere than this machine (behind a proxy), or one
  // saved for Ollama (so that it can be cleared); how long Ollama keeps a model loaded, and
  // whether and with which program Prototyper starts it, for Ollama. The Ollama address stays
  // for both: the model menu pulls models into that Ollama whatever the provider. A hidden key
  // field saves none: no key the user cannot see is sent or required.
  const keySavedForOllama = config.provider !== 'openai' && !!saved.apiKeyEnv
  const askKey = provider === 'openai' || !isLocalAddress(url, config.hostName) || keySavedForOllama
  const [mcpJson, setMcpJson] = useState(given.mcpJson)
  const [think, setThink] = useState<ThinkLevel>(given.think)
  // empty when the user set no cap: the default is in the label, so that saving sends none
  const [cap, setCap] = useState(given.cap)
  const [firstByte, setFirstByte] = useState(given.firstByte)
  const [maxAnswer, setMaxAnswer] = useState(given.maxAnswer)
  const [startOllama, setStartOllama] = useState(!saved.manualOllama)
  const [ollamaBinary, setOllamaBinary] = useState(saved.ollamaBinary ?? '')
  const [approval, setApproval] = useState<Record<string, ApprovalPolicy>>(given.approval)
  const [always, setAlways] = useState<Record<string, string[]>>(given.always)
  const revoke = (dir: string, tool: string) => {
    const next = { ...always, [dir]: (always[dir] ?? []).filter((t) => t !== tool) }
    if (next[dir].length === 0) delete next[dir]
    setAlways(next)
  }
  const [commandRules, setCommandRules] = useState<Record<string, CommandRule[]>>(given.commandRules)
  const [commandDeny, setCommandDeny] = useState(given.commandDeny)
  const [unconfined, setUnconfined] = useState(!!saved.unconfinedCommands)
  const [theme, setTheme] = useState<Theme>(given.theme)
  const [keepAlive, setKeepAlive] = useState(given.keepAlive)
  const [loopRepeats, setLoopRepeats] = useState(given.loopRepeats)
  const [textCalls, setTextCalls] = useState(!saved.ignoreTextToolCalls)
  const [olderTurns, setOlderTurns] = useState<OlderTurnsPolicy>(given.olderTurns)
  const [instructions, setInstructions] = useState(given.instructions)
  const [error, setError] = useState('')
  const [saving, setSaving] = useState(false)
  // A refused save's sentence is about the server chosen then (its address, its key): another
  // server chosen takes it away, with the fields it named.
  const chooseProvider = (p: Provider) => {
    setProvider(p)
    setError('')
  }
  // every field as it reads now: the dialog is edited while it differs from how it opened
  const fields = JSON.stringify([url, provider, baseUrl, keyEnv, mcpJson, think, cap, firstByte, maxAnswer, startOllama,
    ollamaBinary, approval, always, commandRules, commandDeny, unconfined, theme, keepAlive, loopRepeats, textCalls,
    olderTurns, instructions])
  const [opened] = useState(fields)
  edited.current = () => fields !== opened
  const keepEditing = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (leaving) keepEditing.current?.focus() // in the bar that stays in view
  }, [leaving])
  // A refused save is said where the user looks: the dialog scrolls to its sentence, which a
  // screen reader reads at once (role alert), whichever field the Enter was pressed in.
  const errorLine = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (error) errorLine.current?.scrollIntoView?.({ block: 'center' })
  }, [error])

  // The focus goes back where it was (the Settings button) when the dialog closes. Read while
  // rendering: by the time effects run, the first field has taken the focus.
  const [opener] = useState(() => document.activeElement)
  useEffect(
    () => () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
    },
    [opener],
  )

  const save = async () => {
    setSaving(true)
    setError('')
    try {
      // a policy changed is saved; the others stay as saved (their defaults unsaved)
      const changed = Object.entries(approval).filter(([t, p]) => p !== given.approval[t])
      await store.saveSettings({
        ...saved,
        ollamaUrl: url.trim(),
        provider,
        think: kept(saved.think, given.think, think, think),
        contextCap: kept(saved.contextCap ?? 0, given.cap, cap, Number(cap) || 0),
        firstByteTimeoutSec: kept(saved.firstByteTimeoutSec ?? 0, given.firstByte, firstByte, Number(firstByte) || 0),
        maxAnswerBytes: kept(saved.maxAnswerBytes ?? 0, given.maxAnswer, maxAnswer, Math.round((Number(maxAnswer) || 0) * MiB)),
        manualOllama: !startOllama,
        ollamaBinary: ollamaBinary.trim(),
        baseUrl: baseUrl.trim(),
        apiKeyEnv: askKey ? keyEnv.trim() : '',
        mcpServers: kept<unknown, string>(saved.mcpServers, given.mcpJson, mcpJson, mcpDocument(mcpJson)),
        toolApproval: changed.length === 0 ? saved.toolApproval : { ...saved.toolApproval, ...Object.fromEntries(changed) },
        alwaysAllow: kept(saved.alwaysAllow, given.always, always, always),
        commandRules: kept(saved.commandRules, given.commandRules, commandRules, commandRules),
        commandDeny: kept(
          saved.commandDeny,
          given.commandDeny,
          commandDeny,
          commandDeny
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean),
        ),
        unconfinedCommands: unconfined,
        theme: kept(saved.theme, given.theme, theme, theme),
        keepAliveMin: kept(saved.keepAliveMin ?? 0, given.keepAlive, keepAlive, Number(keepAlive) || 0),
        loopRepeats: kept(saved.loopRepeats ?? 0, given.loopRepeats, loopRepeats, Number(loopRepeats) || 0),
        ignoreTextToolCalls: !textCalls,
        olderTurns: kept(saved.olderTurns, given.olderTurns, olderTurns, olderTurns),
        instructions: kept(saved.instructions, given.instructions, instructions, { ...saved.instructions, [config.workspace]: instructions }),
      })
      onClose()
    } catch (err) {
      setError(errorText(err))
    } finally {
      setSaving(false)
    }
  }

  const tools = Array.from(new Set([...(config.tools ?? []), ...Object.keys(config.toolApproval ?? {})])).sort()
  return (
    // A click beside the dialog leaves it, as Esc does (the backdrop is no control).
    <div role="presentation" className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && leave()}>
      <form
        ref={dialog}
        className="modal settings"
        role="dialog"
        aria-modal="true"
        aria-label="Settings"
        onSubmit={(e) => {
          e.preventDefault()
          void save()
        }}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return
          e.preventDefault()
          e.stopPropagation()
          if (leaving) setLeaving(false)
          else leave()
        }}
      >
        <h2>Settings</h2>
        <SettingsGroup title="Server">
          <label>
            Model server
            <select autoFocus value={provider} onChange={(e) => chooseProvider(e.target.value as Provider)}>
              <option value="ollama">Ollama</option>
              <option value="openai">OpenAI-compatible (vLLM, llama.cpp, LM Studio, …)</option>
            </select>
          </label>
          <label>
            Ollama address
            <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:11434" />
          </label>
          {provider === 'openai' && (
            <label>
              Server URL (OpenAI-compatible)
              <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://127.0.0.1:8000/v1" />
            </label>
          )}
          {askKey && (
            <label>
              API key variable: the name of the environment variable that holds the server’s key, if it needs one (the key itself is never stored)
              <input value={keyEnv} onChange={(e) => setKeyEnv(e.target.value)} placeholder={provider === 'openai' ? 'VLLM_API_KEY' : 'OLLAMA_API_KEY'} spellCheck={false} />
            </label>
          )}
          {provider === 'ollama' && (
            <OllamaServerSettings
              startOllama={startOllama}
              onStartOllama={setStartOllama}
              ollamaBinary={ollamaBinary}
              onOllamaBinary={setOllamaBinary}
            />
          )}
        </SettingsGroup>
        <SettingsGroup title="Answers">
          <label>
            Thinking
            <select value={think} onChange={(e) => setThink(e.target.value as ThinkLevel)}>
              {thinkLevels.map((t) => (
                <option key={t} value={t}>
                  {thinkWords[t]}
                </option>
              ))}
            </select>
          </label>
          {provider === 'ollama' && (
            <label>
              Keep the model loaded after an answer
              <select value={keepAlive} onChange={(e) => setKeepAlive(e.target.value)}>
                {keepAliveChoices(keepAlive).map(([value, words]) => (
                  <option key={value} value={value}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            When older messages no longer fit
            <select value={olderTurns} onChange={(e) => setOlderTurns(e.target.value as OlderTurnsPolicy)}>
              <option value="ask">Ask</option>
              <option value="always">Always summarize</option>
              <option value="never">Leave them out</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={textCalls} onChange={(e) => setTextCalls(e.target.checked)} />
            Run tool calls a model writes as text (marked “Written as text”)
          </label>
          {/* Each field left empty stands for its default, said in its label as the header writes
              it: no placeholder, which a screen reader reads out with the name as if it were set. */}
          <label>
            {`Longest context sent to the model, in tokens (empty: what this machine's free memory holds, at most ${tokenCount(config.defaults.contextCap)})`}
            <input type="number" min={0} step={1024} value={cap} onChange={(e) => setCap(e.target.value)} />
          </label>
          <label>
            Wait for a model to start answering, in seconds (empty: 5 minutes)
            <input type="number" min={0} step={30} value={firstByte} onChange={(e) => setFirstByte(e.target.value)} />
          </label>
          <label>
            Largest answer kept, in MiB (empty: 8 MiB; a longer answer is cut there)
            <input type="number" min={0} max={1024} step={1} value={maxAnswer} onChange={(e) => setMaxAnswer(e.target.value)} />
          </label>
          <label>
            {`Stop a run when the model makes the same call this many times in a row (empty: ${config.defaults.loopRepeats})`}
            <input type="number" min={2} step={1} value={loopRepeats} onChange={(e) => setLoopRepeats(e.target.value)} />
          </label>
        </SettingsGroup>
        <SettingsGroup title="Appearance">
          <label>
            Theme
            <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
              <option value="system">System (follows the desktop)</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
        </SettingsGroup>
        {config.workspace && (
          <SettingsGroup title="This folder">
            <label>
              {/* one text: a screen reader joins separate texts without their spaces */}
              {`Instructions for the model in ${config.workspace} (sent with every message, after its AGENTS.md)`}
              <textarea rows={3} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
            </label>
          </SettingsGroup>
        )}
        <SettingsGroup title="Tools and commands">
          <fieldset>
            <legend>Tool approval</legend>
            {tools.length === 0 && <div className="muted">No tools registered.</div>}
            {tools.map((t) => (
              <label key={t} className="inline">
                <ToolNamed name={t} />
                <select
                  aria-label={`Approval for ${t}`}
                  value={approval[t] ?? 'auto'}
                  onChange={(e) => setApproval({ ...approval, [t]: e.target.value as ApprovalPolicy })}
                >
                  {policies.map((p) => (
                    <option key={p} value={p}>
                      {p === 'auto' ? 'Run without asking' : p === 'ask' ? 'Ask me' : 'Never run'}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </fieldset>
          <fieldset data-testid="always-allowed">
            <legend>Always allowed</legend>
            {Object.keys(always).length === 0 && (
              <div className="muted small">No tool is allowed for good in a workspace. A waiting call's “Always allow” adds one here.</div>
            )}
            {Object.entries(always).map(([dir, list]) =>
              list.map((t) => (
                <div key={`${dir}\n${t}`} className="row inline">
                  <ToolNamed name={t} />
                  <span className="muted small" title={dir}>
                    in {dir}
                  </span>
                  <button type="button" aria-label={`Revoke ${t} in ${dir}`} onClick={() => revoke(dir, t)}>
                    Revoke
                  </button>
                </div>
              )),
            )}
          </fieldset>
          <CommandSettings
            rules={commandRules}
            onRules={setCommandRules}
            deny={commandDeny}
            onDeny={setCommandDeny}
            unconfined={unconfined}
            onUnconfined={setUnconfined}
          />
        </SettingsGroup>
        <SettingsGroup title="MCP servers">
            {(config.mcpServers ?? []).length === 0 && (
              <div className="muted small">
                None. Add servers to mcp.json in the Prototyper config folder, or to .prototyper/mcp.json in the workspace.
              </div>
            )}
            {(config.mcpServers ?? []).map((s, i, all) => (
              <div key={s.name} className="mcp-server" role="group" aria-label={`MCP server ${s.name}`}>
                <span className="tool-name">{s.name}</span> <span className="muted small">{s.state}</span>
                {s.state === 'running' && <span className="muted small"> · {s.tools.length} tools</span>}
                {s.error && <div className="tool-error">{asSentence(s.error)}</div>}
                {s.state === 'not allowed' && all.findIndex((o) => o.state === 'not allowed') === i && (
                  <button type="button" className="link" onClick={reviewWorkspaceServers}>
                    Review and allow…
                  </button>
                )}
              </div>
            ))}
            <label>
              Servers of the settings (JSON, the mcpServers shape; give secrets as ${'{'}NAME{'}'}, read from the environment)
              <textarea
                rows={4}
                spellCheck={false}
                value={mcpJson}
                onChange={(e) => setMcpJson(e.target.value)}
                placeholder={'{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}'}
              />
            </label>
        </SettingsGroup>
        {config.dbPath && <div className="muted small">Chats are stored in {config.dbPath}</div>}
        {error && (
          <div ref={errorLine} className="tool-error" role="alert" data-testid="settings-error">
            {error}
          </div>
        )}
        <div className="row end">
          {leaving ? (
            <>
              <span role="alert" data-testid="settings-unsaved">
                Your changes are not saved: save them, or discard them.
              </span>
              <button type="button" onClick={onClose}>
                Discard changes
              </button>
              <button type="button" ref={keepEditing} onClick={() => setLeaving(false)}>
                Keep editing
              </button>
            </>
          ) : (
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          )}
          <button type="submit" className="primary" disabled={saving}>
            Save
          </button>
        </div>
      </form>
    </div>
  )
}
