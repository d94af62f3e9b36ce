-- A small Debug Adapter Protocol client in Neovim's Lua (0.7: vim.loop,
-- vim.json), driven by nvim_dap_test.go. It is NOT nvim-dap, which Debian
-- does not package: it loads docs/lsp.md's nvim-dap block as written
-- (RESTLS_SNIPPET) against a stand-in `dap` module that keeps the tables
-- the block fills, then starts dap.adapters.restls and the first of
-- dap.configurations.javascript as nvim-dap does (${file} is the open
-- buffer's path): initialize, launch, setBreakpoints on RESTLS_LINE after
-- `initialized`, configurationDone; at the stop, stackTrace, scopes,
-- variables and evaluate; next; continue to the result; disconnect.
-- RESTLS_SCRIPT is the script, RESTLS_OUT where the transcript goes.
local out = { events = {}, steps = {} }
local function finish()
  local f = io.open(os.getenv("RESTLS_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

-- The stand-in for nvim-dap's module: the two tables its users fill.
package.loaded["dap"] = { adapters = {}, configurations = {} }

local ok, err = pcall(function()
  dofile(os.getenv("RESTLS_SNIPPET"))
  local dap = require("dap")
  local adapter = dap.adapters.restls
  assert(adapter and adapter.type == "executable", "docs/lsp.md's block defines no executable adapter restls")
  local config = vim.deepcopy(dap.configurations.javascript[1])
  assert(config and config.type == "restls", "docs/lsp.md's block has no restls configuration for javascript")

  local script = os.getenv("RESTLS_SCRIPT")
  vim.cmd("edit " .. vim.fn.fnameescape(script))
  local file = vim.fn.expand("%:p")
  for k, v in pairs(config) do
    if type(v) == "string" then
      config[k] = v:gsub("%${file}", file)
    end
  end
  out.program = config.program

  -- The adapter process, as nvim-dap starts an "executable" adapter.
  local stdin, stdout, stderr = vim.loop.new_pipe(false), vim.loop.new_pipe(false), vim.loop.new_pipe(false)
  local exited = nil
  local handle = vim.loop.spawn(adapter.command, { args = adapter.args, stdio = { stdin, stdout, stderr }, cwd = vim.fn.getcwd() },
    function(code) exited = code end)
  assert(handle, "could not start " .. adapter.command)
  local raw = ""
  stdout:read_start(function(_, data) if data then raw = raw .. data end end)
  local errs = ""
  stderr:read_start(function(_, data) if data then errs = errs .. data end end)

  local seq = 0
  local function send(command, arguments)
    seq = seq + 1
    local msg = { seq = seq, type = "request", command = command, arguments = arguments }
    local body = vim.json.encode(msg)
    stdin:write("Content-Length: " .. #body .. "\r\n\r\n" .. body)
    return seq
  end

  -- Messages read so far, in order; next() takes them one by one.
  local queue = {}
  local function parse()
    while true do
      local hend = raw:find("\r\n\r\n", 1, true)
      if not hend then return end
      local len = tonumber(raw:sub(1, hend):match("Content%-Length: (%d+)"))
      if not len or #raw < hend + 3 + len then return end
      table.insert(queue, vim.json.decode(raw:sub(hend + 4, hend + 3 + len)))
      raw = raw:sub(hend + 4 + len)
    end
  end
  -- until_msg reads messages until pred holds for one, which it returns;
  -- output events along the way go to out.output.
  out.output = {}
  local function until_msg(what, pred)
    local found = nil
    local done = vim.wait(20000, function()
      parse()
      while #queue > 0 do
        local m = table.remove(queue, 1)
        if m.type == "event" then
          table.insert(out.events, m.event)
          if m.event == "output" then table.insert(out.output, m.body.output) end
        end
        if pred(m) then
          found = m
          return true
        end
      end
      return exited ~= nil
    end, 10)
    assert(done and found, "no " .. what .. " from restls dap" .. (exited and (" (it exited " .. exited .. ")") or "") .. "; stderr: " .. errs)
    return found
  end
  local function response(command, s)
    local r = until_msg(command .. " response", function(m) return m.type == "response" and m.request_seq == s end)
    assert(r.success, command .. " failed: " .. tostring(r.message))
    return r
  end
  local function event(name)
    return until_msg(name .. " event", function(m) return m.type == "event" and m.event == name end)
  end

  response("initialize", send("initialize", { adapterID = "restls", clientID = "neovim", linesStartAt1 = true, columnsStartAt1 = true, pathFormat = "path" }))
  response("launch", send("launch", config))
  event("initialized")
  local line = tonumber(os.getenv("RESTLS_LINE"))
  local bps = response("setBreakpoints", send("setBreakpoints", { source = { path = file }, breakpoints = { { line = line } } }))
  out.verified = bps.body.breakpoints[1].verified
  response("configurationDone", send("configurationDone", nil))

  -- where is the stop: its reason, the innermost frame's line, the locals.
  local function where()
    local stopped = event("stopped")
    local st = response("stackTrace", send("stackTrace", { threadId = stopped.body.threadId }))
    local top = st.body.stackFrames[1]
    local scopes = response("scopes", send("scopes", { frameId = top.id }))
    local vars = {}
    local names = {}
    for _, sc in ipairs(scopes.body.scopes) do
      table.insert(names, sc.name)
      local vs = response("variables", send("variables", { variablesReference = sc.variablesReference }))
      for _, v in ipairs(vs.body.variables) do vars[v.name] = v.value end
    end
    -- An object's value is a summary to expand; evaluate reads a path.
    local ev = response("evaluate", send("evaluate", { expression = "res.body.status", frameId = top.id, context = "watch" }))
    table.insert(out.steps, { reason = stopped.body.reason, line = top.line, frame = top.name, scopes = names, vars = vars, eval = ev.body.result })
    return stopped.body.threadId
  end
  local thread = where()
  response("next", send("next", { threadId = thread }))
  thread = where()
  response("continue", send("continue", { threadId = thread }))
  event("terminated")
  response("disconnect", send("disconnect", { terminateDebuggee = true }))
  vim.wait(10000, function() return exited ~= nil end, 10)
  out.exit = exited
end)
if not ok then out.error = tostring(err) end
finish()
