-- Runs the Neovim setup of docs/lsp.md as written, then checks it.
-- Driven by nvim_docs_test.go: RESTLS_SNIPPET (the block extracted from
-- docs/lsp.md), RESTLS_A and RESTLS_B (two scripts under one root),
-- RESTLS_OUT (where the result goes), RESTLS_MISSING=1 (restls is not on
-- PATH: only the warning is checked), RESTLS_TEST and RESTLS_BADTEST (a
-- test file and a malformed one), RESTLS_YAML (a YAML file that is no
-- test file), RESTLS_CONFIG_YML, RESTLS_CONFIG_XML, RESTLS_CONFIG_PROPS
-- and RESTLS_PROJECT (the service configuration and the project file).
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

  -- The configuration files attach to the same client: application.yml
  -- gets its lenses, and references and rename from the serviceId crm
  -- there reach the scripts; the XML, the .properties file and the
  -- project file are attached.
  -- A file that does not attach ends the check (its client is -1).
  local function attach_config()
    out.configclients = {}
    for _, v in ipairs({ "RESTLS_CONFIG_XML", "RESTLS_CONFIG_PROPS", "RESTLS_PROJECT", "RESTLS_CONFIG_YML" }) do
      vim.cmd("edit " .. vim.fn.fnameescape(os.getenv(v)))
      local buf = vim.api.nvim_get_current_buf()
      vim.wait(20000, function() return attached(buf) ~= nil end, 20)
      local c = attached(buf)
      out.configclients[v] = c and c.id or -1
      if not c then return false end
    end
    return true
  end
  if os.getenv("RESTLS_CONFIG_YML") and attach_config() then
    local ybuf = vim.api.nvim_get_current_buf()
    out.configlenses = {}
    vim.wait(20000, function()
      vim.lsp.codelens.refresh()
      out.configlenses = {}
      for _, l in ipairs(vim.lsp.codelens.get(ybuf) or {}) do
        if l.command then table.insert(out.configlenses, l.command.title) end
      end
      return #out.configlenses > 0
    end, 100)
    local pos
    for i, l in ipairs(vim.api.nvim_buf_get_lines(ybuf, 0, -1, false)) do
      local s = l:find("serviceId: crm$")
      if s then pos = { line = i - 1, character = s + #"serviceId: " } break end
    end
    local root = vim.fn.getcwd()
    local function rel(uri) return vim.uri_to_fname(uri):sub(#root + 2) end
    out.configrefs = {}
    local res = vim.lsp.buf_request_sync(ybuf, "textDocument/references", {
      textDocument = { uri = vim.uri_from_bufnr(ybuf) }, position = pos, context = { includeDeclaration = false },
    }, 20000)
    for _, r in pairs(res or {}) do
      for _, loc in ipairs(r.result or {}) do
        table.insert(out.configrefs, rel(loc.uri) .. ":" .. (loc.range.start.line + 1))
      end
    end
    table.sort(out.configrefs)
    res = vim.lsp.buf_request_sync(ybuf, "textDocument/rename", {
      textDocument = { uri = vim.uri_from_bufnr(ybuf) }, position = pos, newName = "crm2",
    }, 20000)
    out.configrename = {}
    for _, r in pairs(res or {}) do
      if r.err then table.insert(out.configrename, "error: " .. vim.inspect(r.err)) end
      local edit = r.result or {}
      for _, dc in ipairs(edit.documentChanges or {}) do
        if dc.textDocument then table.insert(out.configrename, rel(dc.textDocument.uri)) end
      end
      for uri, _ in pairs(edit.changes or {}) do table.insert(out.configrename, rel(uri)) end
    end
    table.sort(out.configrename)
  end
end)
if not ok then out.error = tostring(err) end
finish()
