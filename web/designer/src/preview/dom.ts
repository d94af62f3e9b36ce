// The preview in a page: the designer and every editor that embeds the
// module. view.ts builds the preview; this turns it into DOM nodes (strings
// become text nodes, never markup) and handles its buttons.
import {ensureStyle, clear} from "../dom.js"
import {previewView, previewCSS, jsonView, type View, type PreviewOutcome, type PreviewOptions} from "./view.ts"

/** toDOM makes a View into DOM nodes in doc; its strings become text nodes. */
export function toDOM(v: View | string, doc: Document): Node {
  if (typeof v === "string") return doc.createTextNode(v)
  const node = doc.createElement(v.tag)
  for (const [k, val] of Object.entries(v.attrs)) node.setAttribute(k, val)
  for (const c of v.children) node.append(toDOM(c, doc))
  return node
}

/** RenderOptions are PreviewOptions and what the page does when the user picks the error's position. */
export interface RenderOptions extends PreviewOptions {
  onPosition?: (line: number, column: number) => void
}

interface Shown {
  outcome: PreviewOutcome
  opts: RenderOptions
}

const shown = new WeakMap<HTMLElement, Shown>()

/**
 * renderPreview shows outcome in container: {state: "running"}, {state:
 * "done", result, mode}, {state: "error", message, httpStatus} or {state:
 * "idle"}. container gets the class restls-preview and data-state.
 */
export function renderPreview(container: HTMLElement, outcome: PreviewOutcome, opts: RenderOptions = {}): void {
  const doc = container.ownerDocument
  ensureStyle(doc, previewCSS)
  clear(container)
  container.classList.add("restls-preview")
  container.dataset.state = outcome.state
  if (!shown.has(container)) container.addEventListener("click", e => onClick(container, e))
  shown.set(container, {outcome, opts})
  container.append(toDOM(previewView(outcome, opts), doc))
}

/** jsonTree renders a JSON value as nested foldable <details>. */
export function jsonTree(value: unknown): HTMLElement {
  return toDOM(jsonView(value), document) as HTMLElement
}

function onClick(container: HTMLElement, e: Event) {
  const target = e.target instanceof Element ? e.target.closest("[data-action]") : null
  const s = shown.get(container)
  if (!target || !s || !container.contains(target)) return
  const action = target.getAttribute("data-action")
  if (action === "expand" || action === "collapse") {
    for (const d of container.querySelectorAll("details")) d.open = action === "expand"
  } else if (action === "reveal") {
    s.opts.onPosition?.(Number(target.getAttribute("data-line")), Number(target.getAttribute("data-column")) || 1)
  } else if (action === "copy" && s.outcome.state === "done") {
    // The command comes from the run, not from the page.
    const call = (s.outcome.result.calls || [])[Number(target.getAttribute("data-call"))]
    const status = target.parentElement?.querySelector(".restls-copy-status")
    if (!call || typeof call.curl !== "string") return
    void copyText(container.ownerDocument, call.curl).then(ok => {
      if (status) status.textContent = ok ? "Copied." : "Copy failed: select the command below."
    })
  }
}

// copyText puts text on the clipboard; the fallback serves pages where the
// Clipboard API is not allowed.
async function copyText(doc: Document, text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    const ta = doc.createElement("textarea")
    ta.setAttribute("aria-hidden", "true")
    ta.style.cssText = "position:fixed;left:-9999px"
    ta.value = text
    doc.body.append(ta)
    ta.select()
    let ok = false
    try { ok = doc.execCommand("copy") } catch {}
    ta.remove()
    return ok
  }
}
