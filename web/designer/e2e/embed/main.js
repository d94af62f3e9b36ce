// A host page as the platform's designer would write it: its own
// EditorView with its own extensions, and restls attached to it from the
// packed module. The backend's address and key come in the query.
import {EditorView, keymap, lineNumbers} from "@codemirror/view"
import {EditorState} from "@codemirror/state"
import {defaultKeymap} from "@codemirror/commands"
import {autocompletion, completionKeymap} from "@codemirror/autocomplete"
import {javascript} from "@codemirror/lang-javascript"
import {attachRestls, version} from "@restls/designer-editor"

const q = new URLSearchParams(location.search)
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id))
const view = new EditorView({
  parent: byId("host-editor"),
  state: EditorState.create({
    doc: "",
    extensions: [lineNumbers(), javascript(), autocompletion(), keymap.of([...completionKeymap, ...defaultKeymap]),
      EditorView.contentAttributes.of({"aria-label": "Host script"})],
  }),
})
const restls = attachRestls({view, url: q.get("backend") ?? undefined, token: q.get("token") ?? undefined, kind: "scriptService"})
restls.subscribe(s => {
  byId("host-state").textContent = `restls ${version}: ${s.connection}; ${s.hints ? s.hints.message : "…"}`
  byId("host-state").dataset.connection = s.connection
})
// A dry run with the host's fixtures, shown with the module's preview.
const preview = byId("host-preview")
byId("host-run").addEventListener("click", async () => {
  restls.renderPreview(preview, {state: "running"})
  const mocks = /** @type {HTMLTextAreaElement} */ (byId("host-mocks"))
  restls.renderPreview(preview, await restls.run({mock: mocks.value}))
})
Object.assign(window, {host: {view, restls}})
