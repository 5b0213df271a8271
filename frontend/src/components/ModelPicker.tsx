import { useCallback, useState } from 'react'
import { focusComposer } from '../keyboard/menus'
import { modelShortcut } from '../keyboard/shortcuts'
import { budgetKey, findModel, headerModel, sameModel } from '../state/store'
import { contextGiven } from '../state/contextGiven'
import { useAppState, useStore } from '../state/useAppState'
import { ComboList } from './ComboList'
import { modelSizeText } from './format'
import { HeaderMenu, useHeaderMenu } from './HeaderMenu'
import { ModelBadges } from './ModelBadges'
import { CheckBadge, ModelCheckRow } from './ModelCheckRow'
import { checkOf, failsMost, type CheckState } from '../state/checks'
import { PullBar } from './PullBar'

/**
 * The model the header shows (the open chat's, else the next new chat's), the server's models
 * with their capabilities, and pulling a new one. Opened (click or Ctrl+M), the filter field has
 * the focus: typing filters, ↑/↓ move, Enter picks, Esc closes.
 */
export function ModelPicker() {
  const store = useStore()
  const models = useAppState((s) => s.models)
  const current = useAppState(headerModel)
  const pulls = useAppState((s) => s.pulls)
  const checks = useAppState((s) => s.checks)
  const budget = useAppState((s) => s.budgets[budgetKey(s)])
  // the list is read again each time the menu opens: a model pulled elsewhere shows up, and a
  // check run with `prototyper check` meanwhile
  const refresh = useCallback(() => {
    void store.refreshOllama(true)
    void store.loadModelChecks()
  }, [store])
  const menu = useHeaderMenu('model', refresh)
  const [pullName, setPullName] = useState('')
  const info = findModel(models, current)
  const filter = menu.text
  const shown = models.filter((m) => m.name.toLowerCase().includes(filter.trim().toLowerCase()))
  const pick = (name: string) => {
    menu.close(false)
    if (!sameModel(name, current)) void store.requestModel(name) // the one in use (by another of its names) stays as it is
    focusComposer()
  }

  const pullList = Object.values(pulls)
  const pulling = pullList.filter((p) => !p.done).length
  return (
    <HeaderMenu
      menu={menu}
      className="model-picker"
      buttonClassName="header-button"
      testId="model-button"
      shortcut={modelShortcut}
      what="The model of this chat"
      label={
        <>
          {current || 'Pick a model'} {info && <ModelBadges model={info} context={contextGiven(info, budget)} />}{' '}
          <FailsMostBadge checks={checks} model={current} />
        </>
      }
      beside={pulling > 0 && !menu.open && <span className="pull-mini">{pulling} pulling…</span>}
    >
      <ComboList
        id="model-filter"
        label="Filter the models"
        placeholder="Type to filter, ↑↓ to move, Enter to pick"
        value={filter}
        onType={menu.setText}
        listId="model-list"
        listLabel="Models"
        items={shown}
        initial={shown.findIndex((m) => sameModel(m.name, current))}
        choose={(m) => pick(m.name)}
        option={(m) => ({
          key: m.name,
          className: `model-option${sameModel(m.name, current) ? ' selected' : ''}`,
          content: (
            <>
              <span className="model-name">
                {sameModel(m.name, current) && <span aria-label="in use">✓ </span>}
                {m.name}
              </span>
              <span className="muted model-sizes">{modelSizeText(m)}</span>
              <ModelBadges model={m}>
                <CheckBadge result={checkOf(checks, m.name)?.result} />
              </ModelBadges>
            </>
          ),
        })}
      >
        {models.length === 0 && <div className="muted pad">No models on the server yet. Pull one below.</div>}
        {models.length > 0 && shown.length === 0 && <div className="muted pad">No model matches “{filter}”.</div>}
      </ComboList>
      <ModelCheckRow model={current} />
      <form
        className="pull-form"
        onSubmit={(e) => {
          e.preventDefault()
          void store.pullModel(pullName)
          setPullName('')
        }}
      >
        <input
          placeholder="Pull a model, e.g. qwen3:4b"
          aria-label="Model to pull"
          value={pullName}
          onChange={(e) => setPullName(e.target.value)}
        />
        <button type="submit" disabled={!pullName.trim()}>
          Pull
        </button>
      </form>
      {pullList.map((p) => (
        <PullBar key={p.name} pull={p} />
      ))}
    </HeaderMenu>
  )
}

/** The model in use failed most of the check: said in the header, before a chat starts with it. */
function FailsMostBadge({ checks, model }: { checks: Record<string, CheckState>; model: string }) {
  const result = checkOf(checks, model)?.result
  return result && failsMost(result) ? <CheckBadge result={result} /> : null
}
