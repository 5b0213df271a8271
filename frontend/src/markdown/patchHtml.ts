// Updates an element's content to new HTML by changing only what differs, instead of replacing
// it all through innerHTML. While an answer streams its last block is rendered again every
// frame; with innerHTML every element, text node, style and layout object of that block would be
// thrown away and built again each time (garbage that the renderer's heap keeps pages for long
// after it is collected). Patching keeps the nodes that did not change: usually only the last
// text node grows and a few nodes are added at the end. A text that grows is appended to, not
// set again: an append tells the engine where the text changed (at its old end), where setting
// the whole value changes it from its first character, the whole paragraph again every frame
// for as long as the paragraph grows.

let parser: HTMLTemplateElement | null = null

/** Makes the children of `el` match `html`. */
export function patchHtml(el: Element, html: string): void {
  if (!el.firstChild) {
    el.innerHTML = html
    return
  }
  // An inert template: parsing into it builds no style or layout, and nothing in it loads or runs.
  parser ??= document.createElement('template')
  parser.innerHTML = html
  patchChildren(el, parser.content)
  parser.innerHTML = ''
}

function patchChildren(to: Node, from: Node): void {
  let a = to.firstChild
  let b = from.firstChild
  while (b) {
    const nextB: ChildNode | null = b.nextSibling
    if (!a) {
      to.appendChild(b) // moved out of the template
    } else if (sameKind(a, b)) {
      if (a.nodeType === Node.ELEMENT_NODE) {
        patchAttributes(a as Element, b as Element)
        patchChildren(a, b)
      } else if (a.nodeValue !== b.nodeValue) {
        setText(a as CharacterData, b.nodeValue ?? '')
      }
      a = a.nextSibling
    } else {
      const old = a
      a = a.nextSibling
      to.replaceChild(b, old)
    }
    b = nextB
  }
  while (a) {
    const next = a.nextSibling
    to.removeChild(a)
    a = next
  }
}

// Sets a text node's value; a value that only grew is appended (see the top of this file).
function setText(node: CharacterData, value: string): void {
  const was = node.data
  if (value.length > was.length && value.startsWith(was)) node.appendData(value.slice(was.length))
  else node.data = value
}

function sameKind(a: Node, b: Node): boolean {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName
}

function patchAttributes(to: Element, from: Element): void {
  for (const { name, value } of Array.from(from.attributes)) {
    if (to.getAttribute(name) !== value) to.setAttribute(name, value)
  }
  for (const { name } of Array.from(to.attributes)) {
    if (!from.hasAttribute(name)) to.removeAttribute(name)
  }
}
