-- End-to-end check of restls through Neovim's own LSP client (0.7+).
-- Driven by nvim_test.go: RESTLS_CMD (JSON list), RESTLS_SCRIPT, RESTLS_OUT.
local out = {}
local function finish()
  local f = io.open(os.getenv("RESTLS_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local cmd = vim.fn.json_decode(os.getenv("RESTLS_CMD"))
  local script = os.getenv("RESTLS_SCRIPT")
  local client_id = vim.lsp.start_client({
    name = "restls",
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(script, ":h"),
  })
  out.client = client_id ~= nil
  vim.cmd("edit " .. vim.fn.fnameescape(script))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)

  -- Diagnostics of the file as written.
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, code = d.code, message = d.message })
  end

  -- Completion inside the serviceId string of line 2 (0-based 1).
  local line = vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1]
  local q = string.find(line, '"', 1, true) -- 1-based byte index of the quote
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 1, character = q }, -- just after the quote (ASCII line)
  }
  local res = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, 20000)
  out.labels = {}
  for _, r in pairs(res or {}) do
    local items = r.result and (r.result.items or r.result) or {}
    for _, it in ipairs(items) do table.insert(out.labels, it.label) end
  end

  -- Edit through Neovim (incremental sync) with non-ASCII text before the
  -- serviceId; the new diagnostic must land on the right byte column.
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { 'var ü = "😀"; api.rest.v1.get("ünknown-zz", {}, {});' })
  vim.wait(20000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum == 2 then return true end
    end
    return false
  end, 20)
  out.edited = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.lnum == 2 then
      table.insert(out.edited, { lnum = d.lnum, col = d.col, code = d.code, message = d.message })
    end
  end

  -- The dry-run user commands of docs/lsp.md: :RestlsRunMocks on a script
  -- with fixtures beside it (RESTLS_DRYRUN_LUA is the block, RESTLS_RUN_SCRIPT
  -- the script).
  local snippet, run_script = os.getenv("RESTLS_DRYRUN_LUA"), os.getenv("RESTLS_RUN_SCRIPT")
  if snippet and run_script then
    out.notified = {}
    vim.notify = function(msg) table.insert(out.notified, msg) end
    vim.cmd("luafile " .. vim.fn.fnameescape(snippet))
    vim.cmd("edit " .. vim.fn.fnameescape(run_script))
    local rbuf = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(rbuf, client_id)
    vim.cmd("RestlsRunMocks")
    local shown
    vim.wait(30000, function()
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        local first = vim.api.nvim_buf_get_lines(b, 0, 1, false)[1] or ""
        if first:find("^restls dry run") then
          shown = vim.api.nvim_buf_get_lines(b, 0, -1, false)
          return true
        end
      end
      return false
    end, 20)
    out.dry_run = shown or {}
  end

  -- Navigation (issue 26) through the client's own requests: references
  -- of the serviceId of run.js (its definition is in the copy of the
  -- configuration under the root), then vim.lsp.buf.rename, which asks
  -- prepareRename and applies the workspace edit to the buffers.
  if run_script then
    vim.cmd("edit " .. vim.fn.fnameescape(run_script))
    local nbuf = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(nbuf, client_id)
    local root = vim.fn.fnamemodify(script, ":h")
    local first = vim.api.nvim_buf_get_lines(nbuf, 0, 1, false)[1]
    local s = string.find(first, "crm-orders", 1, true)
    local pos = { line = 0, character = s } -- inside the id (an ASCII line)
    local res = vim.lsp.buf_request_sync(nbuf, "textDocument/references", {
      textDocument = { uri = vim.uri_from_bufnr(nbuf) }, position = pos, context = { includeDeclaration = true },
    }, 20000)
    out.references = {}
    for _, r in pairs(res or {}) do
      for _, loc in ipairs(r.result or {}) do
        local f = vim.uri_to_fname(loc.uri):sub(#root + 2)
        table.insert(out.references, f .. ":" .. (loc.range.start.line + 1) .. ":" .. (loc.range.start.character + 1))
      end
    end
    table.sort(out.references)
    vim.api.nvim_win_set_cursor(0, { 1, s })
    vim.lsp.buf.rename("crm-orders-v2")
    vim.wait(20000, function()
      return (vim.api.nvim_buf_get_lines(nbuf, 0, 1, false)[1] or ""):find("crm-orders-v2", 1, true) ~= nil
    end, 20)
    out.renamed_script = vim.api.nvim_buf_get_lines(nbuf, 0, 1, false)[1]
    local xml = vim.fn.bufnr(root .. "/config/script-code-config/script-service-api.xml")
    out.renamed_config = xml > 0 and vim.api.nvim_buf_get_lines(xml, 6, 7, false)[1] or ""
  end

  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
  out.stopped = vim.lsp.get_client_by_id(client_id) == nil
end)
if not ok then out.error = tostring(err) end
finish()
