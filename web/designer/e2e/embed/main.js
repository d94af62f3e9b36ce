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
const view = new EditorView({
  parent: document.getElementById("host-editor"),
  state: EditorState.create({
    doc: "",
    extensions: [lineNumbers(), javascript(), autocompletion(), keymap.of([...completionKeymap, ...defaultKeymap]),
      EditorView.contentAttributes.of({"aria-label": "Host script"})],
  }),
})
const restls = attachRestls({view, url: q.get("backend"), token: q.get("token"), kind: "scriptService"})
restls.subscribe(s => {
  document.getElementById("host-state").textContent = `restls ${version}: ${s.connection}; ${s.hints ? s.hints.message : "…"}`
  document.getElementById("host-state").dataset.connection = s.connection
})
window.host = {view, restls}
