-- The front end's test harness, loaded in a child Neovim (one per case; the
-- Go driver, lua_test.go, starts it with a UI attached so the screen can be
-- read). The plugin runs for real, above a fake host channel
-- (host.use_transport): a test feeds it the host's event stream (recorded
-- from real sessions, tests/lua/recordings) and answers its calls.
local H = {}

local root = assert(os.getenv("CLAUDENOVA_TEST_ROOT"), "CLAUDENOVA_TEST_ROOT not set")
H.root = root

--- The test context of one case.
---@class Ctx
local T = {}
T.__index = T

-- Progress marks for a case that hangs: the last one is in the trace file
-- the driver prints.
local trace_path = os.getenv("CLAUDENOVA_TEST_TRACE")
local function mark(what)
  if not trace_path then
    return
  end
  local f = io.open(trace_path .. ".steps", "a")
  if f then
    f:write(what, "\n")
    f:close()
  end
end
H.mark = mark

-- With CLAUDENOVA_TEST_TRACE_CALLS, every callback scheduled is marked as
-- it starts and ends (a callback that blocks is named).
if trace_path and os.getenv("CLAUDENOVA_TEST_TRACE_CALLS") then
  local function where(fn)
    local i = debug.getinfo(fn, "S")
    return i and (i.short_src .. ":" .. i.linedefined) or "?"
  end
  local function wrap(fn)
    local w = where(fn)
    return function(...)
      mark("callback " .. w .. " start")
      local r = { fn(...) }
      mark("callback " .. w .. " end")
      return unpack(r)
    end
  end
  local schedule, defer = vim.schedule, vim.defer_fn
  vim.schedule = function(fn)
    return schedule(wrap(fn))
  end
  vim.defer_fn = function(fn, ms)
    return defer(wrap(fn), ms)
  end
  vim.schedule_wrap = function(fn)
    return function(...)
      local args = { ... }
      vim.schedule(function()
        fn(unpack(args))
      end)
    end
  end
end
T.mark = function(_, what)
  mark(what)
end

-- Every callback put on the editor's queue (vim.schedule; vim.schedule_wrap
-- goes through it) is counted: settle() waits until a round of the queue
-- adds none.
local scheduled = 0
local queue = vim.schedule
vim.schedule = function(fn)
  scheduled = scheduled + 1
  return queue(fn)
end

local function fail(msg, level)
  error(msg, (level or 1) + 1)
end

function T:eq(got, want, what)
  if not vim.deep_equal(got, want) then
    fail(("%s: got %s, want %s"):format(what or "value", vim.inspect(got), vim.inspect(want)), 2)
  end
end

function T:ok(cond, what)
  if not cond then
    fail(what or "condition failed", 2)
  end
end

--- Wait (processing events) until cond() holds, at most ms.
function T:wait(cond, what, ms)
  if not vim.wait(ms or 3000, cond, 5) then
    fail("timed out waiting for " .. (what or "a condition"), 2)
  end
end

-- The stream the fake host sends: numbered like the host's outbox.
function T:deliver(events)
  for _, ev in ipairs(events) do
    if ev.seq == nil then
      self.seq = self.seq + 1
      ev.seq = self.seq
    end
  end
  require("claudenova.frontend.inbox").apply(vim.json.encode(events))
end

--- The batches of a recording, its placeholders filled in.
function T:recording(name)
  local lines = vim.fn.readfile(root .. "/tests/lua/recordings/" .. name .. ".jsonl")
  local out = {}
  for _, l in ipairs(lines) do
    l = l:gsub("{{project}}", self.project)
      :gsub("{{storage}}", self.storage)
      :gsub("{{home}}", self.home)
      :gsub("{{base}}", self.base)
    local batch = vim.json.decode(l, { luanil = { object = true, array = true } })
    for _, ev in ipairs(batch) do
      -- The recorded replies answered the recorded calls, not this test's:
      -- the same calls made in the replay get the same replies, in order.
      if ev.event == "mark" and type(ev.data) == "table" then
        ev.data.token = "recorded-" .. tostring(ev.data.token)
        if ev.data.method and not self.recorded_loaded[name] then
          self.recorded[ev.data.method] = self.recorded[ev.data.method] or {}
          table.insert(self.recorded[ev.data.method], ev.data.reply)
        end
      end
      -- Requests arrive "now" on the test's clock (their age is shown).
      if type(ev.data) == "table" and ev.data.arrived then
        ev.data.arrived = (self.clock - 3) * 1000
      end
      -- Scheduled jobs fire two minutes from the test's now.
      if ev.event == "world" and type(ev.data) == "table" then
        for _, sc in ipairs(ev.data.schedules or {}) do
          sc.at = sc.at and sc.at > 0 and (self.clock + 120) * 1000 or sc.at
        end
      end
      -- Tasks too (unix seconds): started 20 s ago, ended 5 s ago on the test's clock.
      if ev.event == "tasks" and type(ev.data) == "table" then
        for _, tk in ipairs(ev.data.tasks or {}) do
          tk.started = tk.started and tk.started > 0 and self.clock - 20 or tk.started
          tk.ended = tk.ended and tk.ended > 0 and self.clock - 5 or tk.ended
        end
      end
    end
    table.insert(out, batch)
  end
  self.recorded_loaded[name] = true
  return out
end

--- Deliver a recording's batches, in order (up to batch `upto`).
function T:replay(name, upto, patch)
  local batches = self:recording(name)
  if patch then
    patch(batches) -- the recording changed for this case
  end
  for i, b in ipairs(batches) do
    if upto and i > upto then
      break
    end
    mark(("replay %s batch %d: apply"):format(name, i))
    require("claudenova.frontend.inbox").apply(vim.json.encode(b))
    self.seq = math.max(self.seq, b[#b] and b[#b].seq or 0)
    mark(("replay %s batch %d: settle"):format(name, i))
    self:settle()
  end
  return batches
end

--- Let what the batch scheduled run (vim.schedule callbacks, a fetch of
--- the transcript), as the editor's loop does between two batches: the
--- front end's queue is drained, not waited on for a fixed time. A marker
--- put on the queue last runs once everything before it has; the rounds go
--- on until one in which nothing was scheduled (callbacks that schedule
--- more, however deep, run too).
function T:settle()
  for _ = 1, 50 do
    local before, done = scheduled, false
    queue(function()
      done = true
    end)
    if not vim.wait(5000, function()
      return done
    end, 1) then
      error("the front end's queue did not drain in 5 s", 2)
    end
    if scheduled == before then
      return
    end
  end
  error("the front end's queue never drains: a callback schedules another, again and again", 2)
end

--- Deliver batches from..to of a recording (after an earlier replay).
function T:replay_from(name, from, to)
  local batches = self:recording(name)
  for i = from, to or #batches do
    mark(("replay %s batch %d: apply"):format(name, i))
    require("claudenova.frontend.inbox").apply(vim.json.encode(batches[i]))
    self.seq = math.max(self.seq, batches[i][#batches[i]] and batches[i][#batches[i]].seq or 0)
    mark(("replay %s batch %d: settle"):format(name, i))
    self:settle()
  end
  return batches
end

--- Write a file (a path under the project unless absolute).
function T:write(path, text)
  if not path:match("^/") then
    path = self.project .. "/" .. path
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

--- The floating windows on screen.
function T:floats()
  local out = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local c = vim.api.nvim_win_get_config(w)
    if c.relative ~= "" and not c.hide then
      table.insert(out, w)
    end
  end
  return out
end

--- The host calls the plugin made of method.
function T:calls_of(method)
  local out = {}
  for _, c in ipairs(self.calls) do
    if c.method == method then
      table.insert(out, c.args)
    end
  end
  return out
end

--- Deliver events as they are, numbers and all.
function T:deliver_raw(events)
  require("claudenova.frontend.inbox").apply(vim.json.encode(events))
end

--- Returned by a fake reply: the test sends the reply (a mark event with
--- token t.last_token) itself.
T.NO_MARK = setmetatable({}, { __name = "no mark" })

--- The screen as text, one string per row.
function T:screen_lines()
  mark("screen: redraw")
  vim.cmd("redraw!")
  mark("screen: read")
  local rows = {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      cells[#cells + 1] = vim.fn.screenstring(r, c)
    end
    rows[r] = (table.concat(cells):gsub("%s+$", ""))
  end
  return rows
end

-- The symbols that stand for a screen's highlight attributes, in the order
-- they first appear on it.
local ATTR_SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

--- The screen's highlights, one string per row: a symbol per cell, the same
--- symbol for the same attributes (as mini.test's screenshots keep them), so
--- that a highlight lost or moved shows in the reference.
function T:screen_attrs()
  local ids, n, rows = {}, 0, {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      local a = vim.fn.screenattr(r, c)
      if not ids[a] then
        n = n + 1
        ids[a] = ATTR_SYMBOLS:sub(n, n) ~= "" and ATTR_SYMBOLS:sub(n, n) or "?"
      end
      cells[#cells + 1] = ids[a]
    end
    rows[r] = table.concat(cells)
  end
  return rows
end

--- Capture the screen under name (compared by the driver with the stored
--- reference, tests/lua/screens/<spec>/<name>-<width>.txt): its text, then
--- its highlights.
function T:screen(name)
  local text = self:screen_lines()
  local attrs = self:screen_attrs()
  table.insert(self.screens, {
    name = ("%s-%d"):format(name, vim.o.columns),
    text = table.concat(text, "\n") .. "\n--- highlights\n" .. table.concat(attrs, "\n"),
  })
end

--- Type keys as the user does (they are executed before this returns).
function T:type(keys)
  vim.api.nvim_feedkeys(vim.keycode(keys), "xt", false)
end

-- The fake host: its calls are answered by ctx.replies[method](args), or
-- by defaults; every reply goes into the stream, as the host does.
local function fake_transport(ctx)
  local defaults = {
    transcript = function()
      return { lines = {}, seq = 0, first = 0 }
    end,
    configure = function()
      return vim.NIL
    end,
  }
  return {
    request = function(method, payload, token)
      table.insert(ctx.calls, { method = method, args = vim.json.decode(payload) })
      ctx.last_token = token
      local fn = ctx.replies[method]
      local recorded = ctx.recorded[method]
      local reply
      if not fn and recorded and #recorded > 0 then
        reply = table.remove(recorded, 1)
      elseif not fn and defaults[method] then
        fn = defaults[method]
      end
      if reply then
        -- a recorded reply
      elseif not fn then
        reply = { ok = false, error = "the fake host has no reply for " .. method }
      else
        local ok, res = pcall(fn, vim.json.decode(payload, { luanil = { object = true, array = true } }))
        reply = ok and { ok = true, result = res } or { ok = false, error = tostring(res) }
      end
      if reply.ok and reply.result == T.NO_MARK then
        return vim.json.encode({ queued = true })
      end
      -- Answered at once, not through the stream: the stream's numbers are
      -- the recording's (a test that needs the reply's place in the stream
      -- returns NO_MARK and sends the mark itself).
      return vim.json.encode(reply)
    end,
    notify = function(method, payload)
      table.insert(ctx.notes, { method = method, args = vim.json.decode(payload) })
    end,
  }
end

--- A fresh context: the plugin set up in temp folders, talking to the fake
--- host, the screen sized width × height, clocks fixed.
function H.context(opts)
  opts = opts or {}
  local base = vim.fn.tempname()
  local ctx = setmetatable({
    base = base,
    project = base .. "/project",
    storage = base .. "/storage",
    home = base .. "/home",
    seq = 0,
    calls = {},
    notes = {},
    replies = {},
    screens = {},
    clock = 2000000000,
    recorded = {},
    recorded_loaded = {},
  }, T)
  for _, d in ipairs({ ctx.project, ctx.storage, ctx.home }) do
    vim.fn.mkdir(d, "p")
  end
  vim.opt.rtp:prepend(root)
  vim.cmd.runtime("plugin/claudenova.lua") -- the commands, as at startup
  vim.o.swapfile = false
  vim.o.shadafile = "NONE"
  vim.o.laststatus = 2
  vim.o.ruler = false
  vim.o.showmode = false
  vim.o.showcmd = false
  vim.o.shortmess = "filnxtToOFIc"
  vim.o.termguicolors = false
  vim.cmd.cd(ctx.project)
  local setup = vim.tbl_deep_extend(
    "force",
    { storage = ctx.storage, notify = true, surfaces = { quiet_ms = 0, grace_ms = 0 } },
    opts.setup or {}
  )
  require("claudenova").setup(setup)
  require("claudenova.core.text").time = function()
    return ctx.clock
  end
  local host = require("claudenova.channel.host")
  ctx.transport = fake_transport(ctx)
  host.use_transport(ctx.transport)
  require("claudenova.frontend")
  require("claudenova.frontend.inbox").reset_stream()
  ctx.host = host
  return ctx
end

--- The cases of a spec file: { { name, widths } }.
function H.cases(spec)
  local cases = dofile(root .. "/tests/lua/" .. spec .. "_spec.lua")
  local out = {}
  for name, c in pairs(cases) do
    table.insert(out, { name = name, widths = c.widths or { 80 } })
  end
  table.sort(out, function(a, b)
    return a.name < b.name
  end)
  return out
end

--- Run one case; returns { ok, err, screens }.
function H.run(spec, name)
  local cases = dofile(root .. "/tests/lua/" .. spec .. "_spec.lua")
  local c = cases[name]
  if not c then
    return { ok = false, err = "no case " .. name }
  end
  -- Where a case that never ends is busy: a traceback every 20000
  -- instructions, in a file the driver prints when the case times out.
  local trace = os.getenv("CLAUDENOVA_TEST_TRACE")
  if trace then
    local function dump()
      local f = io.open(trace, "w")
      if f then
        f:write(debug.traceback("", 3))
        f:close()
      end
    end
    if os.getenv("CLAUDENOVA_TEST_TRACE_CALLS") then
      -- the driver's hook (lua_test.go) runs from startup on
    else
      debug.sethook(dump, "", 20000)
    end
  end
  mark("run " .. spec .. " / " .. name)
  local ok, res = xpcall(function()
    local ctx = H.context(c.opts)
    mark("context ready")
    c.run(ctx)
    mark("case done")
    return ctx
  end, debug.traceback)
  debug.sethook()
  if not ok then
    return { ok = false, err = tostring(res), screens = {} }
  end
  return { ok = true, screens = res.screens }
end

return H
