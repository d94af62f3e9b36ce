// The LSP transport over /lsp: one JSON-RPC message per WebSocket text
// frame. Messages sent before the socket opens are queued.

/** @typedef {(value: string) => void} Handler */

/** The subprotocol /lsp speaks; offered with a bearer token's. */
export const lspProtocol = "restls.lsp"

/**
 * webSocketTransport opens url. onOpen and onClose report the socket's
 * life; a transport is used for one connection only (the client makes a
 * new one to reconnect): on any close, a server restarting (1012, what a
 * stopping restls sends) or a dropped network alike. bearer, when given,
 * travels as the subprotocol restls.bearer.<token> (a browser cannot set
 * a header on a WebSocket, and a URL is logged).
 * @param {string} url
 * @param {{onOpen: () => void, onClose: () => void, bearer?: string}} events
 */
export function webSocketTransport(url, {onOpen, onClose, bearer}) {
  /** @type {Set<Handler>} */
  const handlers = new Set()
  /** @type {string[]} */
  let queue = []
  let open = false, closed = false
  const ws = bearer ? new WebSocket(url, [lspProtocol, "restls.bearer." + bearer]) : new WebSocket(url)
  ws.onopen = () => {
    open = true
    for (const m of queue) ws.send(m)
    queue = []
    onOpen()
  }
  ws.onmessage = e => { for (const h of handlers) h(e.data) }
  ws.onclose = () => {
    open = false
    if (closed) return
    closed = true
    onClose()
  }
  return {
    /** @param {string} message */
    send(message) { if (open) ws.send(message); else queue.push(message) },
    /** @param {Handler} handler */
    subscribe(handler) { handlers.add(handler) },
    /** @param {Handler} handler */
    unsubscribe(handler) { handlers.delete(handler) },
    close() { closed = true; try { ws.close() } catch {} },
  }
}

/**
 * backoff is the pause before reconnect attempt n (0-based): doubling from
 * initial up to max.
 * @param {number} n
 */
export function backoff(n, initial = 500, max = 10000) {
  return Math.min(max, initial * 2 ** Math.min(n, 20))
}
