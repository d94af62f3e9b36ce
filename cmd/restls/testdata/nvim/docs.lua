-- Runs the Neovim setup of docs/lsp.md as written, then checks it.
-- Driven by nvim_docs_test.go: RESTLS_SNIPPET (the block extracted from
-- docs/lsp.md), RESTLS_A and RESTLS_B (two scripts under one root),
-- RESTLS_OUT (where the result goes), RESTLS_MISSING=1 (restls is not on
-- PATH: only the warning is checked), RESTLS_TEST and RESTLS_BADTEST (a
-- test file and a malformed one), RESTLS_YAML (a YAML file that is no
-- test file).
local out = {}
local function finish()
  out.messages = vim.fn.execute("messages")
  local f = io.open(os.getenv("RESTLS_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  dofile(os.getenv("RESTLS_SNIPPET"))
  local a, b = os.getenv("RESTLS_A"), os.getenv("RESTLS_B")
  vim.cmd("edit " .. vim.fn.fnameescape(a))
  local abuf = vim.api.nvim_get_current_buf()
  if os.getenv("RESTLS_MISSING") == "1" then
    vim.cmd("edit " .. vim.fn.fnameescape(b))
    out.filetype = vim.bo.filetype
    return
  end
  local function attached(buf)
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == "restls" then return c end
    end
  end
  vim.wait(20000, function() return attached(abuf) ~= nil end, 20)
  vim.cmd("edit " .. vim.fn.fnameescape(b))
  local bbuf = vim.api.nvim_get_current_buf()
  vim.wait(20000, function() return attached(bbuf) ~= nil end, 20)
  local ca, cb = attached(abuf), attached(bbuf)
  out.aclient = ca and ca.id or -1
  out.bclient = cb and cb.id or -1
  out.omnifunc = vim.api.nvim_buf_get_option(abuf, "omnifunc")
  out.root = ca and ca.config.root_dir or ""

  -- serviceId completion in a.js, just after the quote of line 1 (0-based).
  vim.cmd("buffer " .. abuf)
  local line = vim.api.nvim_buf_get_lines(abuf, 1, 2, false)[1]
  local q = string.find(line, '"', 1, true)
  -- The server answers with no items until its registry has loaded:
  -- ask again until the serviceIds come.
  local function complete()
    local res = vim.lsp.buf_request_sync(abuf, "textDocument/completion", {
      textDocument = { uri = vim.uri_from_bufnr(abuf) },
      position = { line = 1, character = q },
    }, 5000)
    out.labels = {}
    for _, r in pairs(res or {}) do
      local items = r.result and (r.result.items or r.result) or {}
      for _, it in ipairs(items) do table.insert(out.labels, it.label) end
    end
    return #out.labels > 0
  end
  vim.wait(20000, complete, 50)

  -- A test file attaches to the same client and gets its lenses; a
  -- malformed one its diagnostic; other YAML stays without restls.
  if os.getenv("RESTLS_TEST") then
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RESTLS_TEST")))
    local tbuf = vim.api.nvim_get_current_buf()
    vim.wait(20000, function() return attached(tbuf) ~= nil end, 20)
    local ct = attached(tbuf)
    out.testclient = ct and ct.id or -1
    out.lenses = {}
    vim.wait(20000, function()
      vim.lsp.codelens.refresh()
      out.lenses = {}
      for _, l in ipairs(vim.lsp.codelens.get(tbuf) or {}) do
        if l.command then table.insert(out.lenses, l.command.title) end
      end
      return #out.lenses > 0
    end, 100)
    -- Run the first case's lens: the outcome comes back as a message.
    vim.api.nvim_win_set_cursor(0, { 5, 0 })
    vim.lsp.codelens.run()
    vim.wait(20000, function() return vim.fn.execute("messages"):find("restls test a.test.yaml", 1, true) ~= nil end, 50)
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RESTLS_BADTEST")))
    local bad = vim.api.nvim_get_current_buf()
    vim.wait(20000, function() return #vim.diagnostic.get(bad) > 0 end, 20)
    out.testdiags = {}
    for _, d in ipairs(vim.diagnostic.get(bad)) do table.insert(out.testdiags, d.message) end
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("RESTLS_YAML")))
    out.yamlattached = attached(vim.api.nvim_get_current_buf()) ~= nil
  end
end)
if not ok then out.error = tostring(err) end
finish()
