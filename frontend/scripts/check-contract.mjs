#!/usr/bin/env node
// Checks the window's hand-written contract (src/backend.ts) against the types Wails generates
// from the Go side (wailsjs/go/models.ts and wailsjs/go/main/App.d.ts, written by `make build`;
// not committed).
//
// It fails when
//   - a field of a Go type is missing from its TypeScript type, or the TypeScript type has a
//     field the Go type does not (a field renamed on one side only);
//   - Go may omit a field (omitempty: `name?` in models.ts) that the TypeScript type requires;
//   - models.ts has a Go type that the table below does not pair with a TypeScript type;
//   - a bound App method is missing from the window's WailsApp type (Backend's methods under
//     their Go names), or the other way round, or they take a different number of arguments;
//   - Wails typed a struct field as any because its generator did not find the field's Go type
//     (it does not follow the fields of an embedded struct; bindings_on.go names such types).
// Field types are not compared: Wails types a json.RawMessage as number[] and a time.Time as
// any, where the window has the JSON they really carry.
//
// Usage (from frontend/): npm run check:contract [-- --require] [--models FILE] [--app FILE]
// Without the generated files it says so and succeeds, unless --require (or
// PROTOTYPER_REQUIRE_COMPONENTS=1) is given: then it fails.

import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** Go type in models.ts → the type of src/backend.ts that carries it. */
export const pairs = {
  'agentloop.Budget': 'PromptBudget',
  'agentloop.ChatSummary': 'ChatSummary',
  'desktop.Config': 'Config',
  'mcptools.Status': 'McpServerStatus',
  'mcptools.Launch': 'ServerLaunch',
  'mcptools.WorkspaceServers': 'WorkspaceServers',
  'ollama.CatalogEntry': 'ModelInfo',
  'ollama.StarterModel': 'StarterModel',
  'desktop.OllamaStatus': 'OllamaStatus',
  'desktop.FolderCheck': 'FolderCheck',
  'desktop.RecentFolder': 'RecentFolder',
  'agentloop.OpenedChat': 'OpenedChat',
  'desktop.SendResult': 'SendResult',
  'store.Settings': 'Settings',
  'desktop.SettingDefaults': 'SettingDefaults',
  'store.Approval': 'ApprovalRecord',
  'store.Message': 'StoredMessage',
  'store.FileAttachment': 'FileAttachment',
  'store.ToolCall': 'StoredToolCall',
  'store.ToolCallRecord': 'ToolCallRecord',
  'events.Usage': 'Usage',
  'agentloop.ChangeSummary': 'ChangeSummary',
  'agentloop.ChatNote': 'ChatNote',
  'agentloop.StoppedRun': 'StoppedRun',
  'store.SummaryOffer': 'SummaryOffer',
  'agentloop.FileChange': 'FileChange',
  'agentloop.UndoOptions': 'UndoOptions',
  'agentloop.UndoResult': 'UndoResult',
  'tools.Preview': 'Preview',
  'tools.Removal': 'Removal',
  'store.Chat': 'StoredChat',
  'store.ChatHit': 'ChatHit',
  'store.Version': 'Version',
  'store.CommandRule': 'CommandRule',
  'tools.CommandPreview': 'CommandPreview',
  'tools.ServerInfo': 'DevServer',
  'agentloop.NotPutBack': 'NotPutBack',
  'desktop.PreviewPage': 'PreviewPage',
  'preview.Report': 'PreviewReport',
  'preview.Entry': 'PreviewEntry',
  'store.ModelCheck': 'ModelCheck',
}

function parse(file) {
  const text = ts.sys.readFile(file)
  if (text === undefined) throw new Error(`cannot read ${file}`)
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
}

/** Calls fn with each class of a parsed models.ts and its name, "namespace.Class". */
function eachClass(source, fn) {
  const visit = (node, ns) => {
    if (ts.isModuleDeclaration(node) && node.body) {
      const name = ns ? `${ns}.${node.name.text}` : node.name.text
      ts.forEachChild(node.body, (n) => visit(n, name))
      return
    }
    if (ts.isClassDeclaration(node) && node.name) {
      fn(ns ? `${ns}.${node.name.text}` : node.name.text, node)
      return
    }
    ts.forEachChild(node, (n) => visit(n, ns))
  }
  visit(source, '')
}

/** The classes of models.ts: "namespace.Class" → Map(field → optional). */
export function goTypes(modelsFile) {
  const out = new Map()
  eachClass(parse(modelsFile), (name, node) => {
    const fields = new Map()
    for (const m of node.members) {
      if (ts.isPropertyDeclaration(m) && m.name && !m.modifiers?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword)) {
        fields.set(m.name.getText(), !!m.questionToken)
      }
    }
    out.set(name, fields)
  })
  return out
}

/** The fields Wails typed any for want of their Go type ("Class.field" → its Go package):
 * it marks each with a comment "// Go type: package". time.Time is any by design. */
export function untypedFields(modelsFile) {
  const source = parse(modelsFile)
  const text = source.getFullText()
  const out = new Map()
  eachClass(source, (name, node) => {
    for (const m of node.members) {
      if (!ts.isPropertyDeclaration(m) || m.type?.kind !== ts.SyntaxKind.AnyKeyword) continue
      for (const c of ts.getLeadingCommentRanges(text, m.getFullStart()) ?? []) {
        const pkg = /^\/\/ Go type: (\S+)/.exec(text.slice(c.pos, c.end))?.[1]
        if (pkg && pkg !== 'time') out.set(`${name}.${m.name.getText()}`, pkg)
      }
    }
  })
  return out
}

/** The bound methods of App.d.ts: name → number of parameters. */
export function goMethods(appFile) {
  const out = new Map()
  for (const s of parse(appFile).statements) {
    if (ts.isFunctionDeclaration(s) && s.name) out.set(s.name.text, s.parameters.length)
  }
  return out
}

/** Fields of the named types of backend.ts (interfaces and aliases, Omit<> resolved): name → Map(field → optional). */
export function windowTypes(backendFile, names) {
  const program = ts.createProgram([backendFile], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(backendFile)
  const symbols = new Map()
  for (const s of source.statements) {
    if ((ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name) {
      symbols.set(s.name.text, checker.getSymbolAtLocation(s.name))
    }
  }
  const out = new Map()
  for (const name of names) {
    const symbol = symbols.get(name)
    if (!symbol) continue
    const type = checker.getDeclaredTypeOfSymbol(symbol)
    const fields = new Map()
    for (const p of checker.getPropertiesOfType(type)) {
      fields.set(p.getName(), (p.getFlags() & ts.SymbolFlags.Optional) !== 0)
    }
    out.set(name, fields)
  }
  // The WailsApp interface: the methods the window calls, with their parameter counts.
  const methods = new Map()
  const app = symbols.get('WailsApp')
  if (app) {
    for (const p of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(app))) {
      const sig = checker.getSignaturesOfType(checker.getTypeOfSymbol(p), ts.SignatureKind.Call)[0]
      methods.set(p.getName(), sig ? parameterCount(checker, sig) : -1)
    }
  }
  return { types: out, methods }
}

/** How many arguments a signature takes; a rest parameter of a tuple type (a signature
 * derived from another with a mapped type) counts as the tuple's elements. */
function parameterCount(checker, sig) {
  const params = sig.getParameters()
  const last = params.at(-1)
  const decl = last?.valueDeclaration
  if (decl && ts.isParameter(decl) && decl.dotDotDotToken) {
    const type = checker.getTypeOfSymbol(last)
    if (checker.isTupleType(type)) return params.length - 1 + checker.getTypeArguments(type).length
  }
  return params.length
}

/** Every disagreement between the generated files and backend.ts, one sentence each. */
export function checkContract({ models, app, backend }) {
  const problems = []
  const go = goTypes(models)
  const window = windowTypes(backend, Object.values(pairs))
  for (const [goName, goFields] of go) {
    const tsName = pairs[goName]
    if (!tsName) {
      problems.push(`${goName} is a Go type the window receives, but scripts/check-contract.mjs pairs it with no type of src/backend.ts`)
      continue
    }
    const tsFields = window.types.get(tsName)
    if (!tsFields) {
      problems.push(`${goName}: src/backend.ts has no type ${tsName}`)
      continue
    }
    for (const [field, goOptional] of goFields) {
      if (!tsFields.has(field)) problems.push(`${goName}.${field} is missing from ${tsName} in src/backend.ts`)
      else if (goOptional && !tsFields.get(field)) {
        problems.push(`${goName}.${field} may be omitted by Go (omitempty) but ${tsName}.${field} is required in src/backend.ts`)
      }
    }
    for (const field of tsFields.keys()) {
      if (!goFields.has(field)) problems.push(`${tsName}.${field} in src/backend.ts is not a field of ${goName}`)
    }
  }
  for (const [field, pkg] of untypedFields(models)) {
    problems.push(
      `${field} is typed any: Wails' generator did not find its Go type (package ${pkg}), which only an embedded struct reaches; name it in bindings_on.go`,
    )
  }
  if (app && existsSync(app)) {
    const bound = goMethods(app)
    for (const [name, n] of bound) {
      if (!window.methods.has(name)) problems.push(`App.${name} is bound by Go but missing from WailsApp in src/backend.ts`)
      else if (window.methods.get(name) !== n) {
        problems.push(`App.${name} takes ${args(n)} in Go but ${args(window.methods.get(name))} in WailsApp (src/backend.ts)`)
      }
    }
    for (const name of window.methods.keys()) {
      if (!bound.has(name)) problems.push(`WailsApp.${name} in src/backend.ts is not a method bound by Go`)
    }
  }
  return problems
}

function args(n) {
  return n === 1 ? '1 argument' : `${n} arguments`
}

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : fallback
}

function main() {
  const models = option('models', join(root, 'wailsjs/go/models.ts'))
  const app = option('app', join(root, 'wailsjs/go/main/App.d.ts'))
  const backend = option('backend', join(root, 'src/backend.ts'))
  const require = process.argv.includes('--require') || process.env.PROTOTYPER_REQUIRE_COMPONENTS === '1'
  if (!existsSync(models)) {
    const note = `check-contract: ${models} does not exist (\`make build\` writes it)`
    if (require) {
      console.error(`${note}.`)
      process.exit(1)
    }
    console.log(`${note}; nothing to check.`)
    return
  }
  const problems = checkContract({ models, app, backend })
  if (problems.length > 0) {
    console.error(`check-contract: src/backend.ts disagrees with the Go types (${models}):`)
    for (const p of problems) console.error(`  - ${p}`)
    process.exit(1)
  }
  console.log(`check-contract: src/backend.ts agrees with ${models}${existsSync(app) ? ' and the bound App methods' : ''}.`)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
