// The one place text from a server, a script or a user reaches the DOM.
//
// Everything the preview, the panels and the quick-fix menu show is built
// with el(): strings become text nodes, never markup, so a service's answer
// or a description with "<img onerror=...>" is shown, not run. The only
// HTML the module renders is hover and completion documentation, which the
// language server sends as Markdown and lsp-client turns into HTML; it goes
// through sanitizeHTML first.

/**
 * el creates an element. attrs are attributes (a function value whose name
 * starts with "on" becomes an event listener; false, null and undefined are
 * left out); children are nodes or strings (text, never parsed).
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value == null) continue
    if (typeof value === "function" && name.startsWith("on")) node.addEventListener(name.slice(2).toLowerCase(), /** @type {EventListener} */ (value))
    else node.setAttribute(name, value === true ? "" : String(value))
  }
  append(node, children)
  return node
}

/**
 * @param {Element} node
 * @param {unknown[]} children
 */
function append(node, children) {
  for (const c of children) {
    if (c == null || c === false) continue
    if (Array.isArray(c)) append(node, c)
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
}

/**
 * clear empties a node.
 * @template {Node} N
 * @param {N} node
 * @returns {N}
 */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove()
  return node
}

const dropElements = "script, style, iframe, object, embed, link, meta, base, form, svg, math, template"

/**
 * sanitizeHTML keeps the markup of rendered Markdown (hover, completion
 * documentation) and drops active elements, event handler attributes,
 * inline styles and URLs other than http(s) and fragments. A description
 * is whatever an administrator wrote.
 * @param {string} html
 */
export function sanitizeHTML(html) {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html")
  for (const e of doc.body.querySelectorAll(dropElements)) e.remove()
  for (const e of doc.body.querySelectorAll("*")) {
    for (const attr of [...e.attributes]) {
      const name = attr.name.toLowerCase()
      if (name.startsWith("on") || name === "style" || name === "srcdoc" ||
          ((name === "href" || name === "src" || name === "xlink:href" || name === "action") && !/^(https?:|#|$)/i.test(attr.value.trim())))
        e.removeAttribute(attr.name)
    }
  }
  return doc.body.innerHTML
}

let styled = new WeakSet()

/**
 * ensureStyle adds the module's style sheet to the document once. The
 * editor's own look comes from CodeMirror themes; this covers the preview
 * and the quick-fix menu, which live outside the editor too.
 * @param {Document} doc
 * @param {string} css
 */
export function ensureStyle(doc, css) {
  if (styled.has(doc)) return
  styled.add(doc)
  const s = doc.createElement("style")
  s.setAttribute("data-restls", "")
  s.textContent = css
  doc.head.append(s)
}
