-- The one place that decides when a surface (proposal, plan, question,
-- panel) may open and take the window. A surface that arrives on its own may
-- take focus only when the user is idle:
--   * quiet: no key typed for surfaces.quiet_ms (keys are seen with
--     vim.on_key, so a pause between two normal-mode commands is not idle);
--   * in normal mode, not halfway through a command (a count, an operator, a
--     mapping, pending keys), not recording or running a macro, not in a
--     prompt or the command-line window;
--   * not working in another claude-nova surface (the sidebar does not count:
--     a cursor resting there is only looking; typing there is caught by the
--     quiet rule).
-- Otherwise it waits: its row is in the sidebar already, the user is told it
-- waits, and it opens at the first moment the editor is idle (SafeState,
-- ModeChanged, CursorHold, or the end of the quiet period).
--
-- A surface that took focus on its own then has a grace period
-- (surfaces.grace_ms): its deciding keys do nothing until it ends, and keys
-- typed meanwhile in it are dropped (Neovim 0.11+ drops every key; 0.10
-- keeps the surface unmodifiable and not writable). A picker (a question, a
-- form) cannot guard its own keys: the built-in one waits for a number in
-- inputlist(), a picker plugin types keys into its prompt. Its grace is the
-- editor's: every key is dropped while it lasts (0.11+); on 0.10, which
-- cannot drop keys, it opens only after another grace period without a key.
-- A surface the user asks for (<CR> on a row, review, a command) opens at
-- once, with no grace.
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local notify = require("claudenova.setup.notify")

local M = {}

--- The clock (ms, monotonic): uv.now, or a test's.
M.now = function()
  return (vim.uv or vim.loop).now()
end

---@type {id: string, open: fun(opts: table), picker: boolean?}[]
M.waiting = {}

local group = vim.api.nvim_create_augroup("ClaudeNovaScheduler", { clear = true })
local ns = vim.api.nvim_create_namespace("claudenova_scheduler")
local armed = false
local uv = vim.uv or vim.loop

local function cfg()
  return config.get().surfaces
end

-- When the last key was typed (M.now() ms; 0: none since we started).
M.last_key = 0

-- Buffers in their grace period: buf -> M.now() when it ends.
M.grace = {} ---@type table<integer, integer>

-- The end (M.now() ms) of a picker's grace period: until then every key is
-- dropped, wherever it goes.
M.grace_all = 0

-- Pickers spending their grace before they open (0.10): id -> true.
M.preopen = {}

-- Neovim 0.11 lets an on_key callback drop the key by returning "".
local can_drop = vim.fn.has("nvim-0.11") == 1

local flush

-- The latest grace period started per buffer (its end): an earlier one's
-- timer leaves a later one alone.
local grace_started = {} ---@type table<integer, integer>
-- What gives a buffer back its options when its grace period ends (0.10).
local restores = {} ---@type table<integer, fun()>

local function in_grace(buf)
  local untl = M.grace[buf]
  if not untl then
    return false
  end
  if M.now() < untl then
    return true
  end
  M.grace[buf] = nil
  return false
end

--- Whether buf (default: current) is in its grace period: its deciding keys
--- do nothing yet.
function M.in_grace(buf)
  return in_grace(buf or vim.api.nvim_get_current_buf())
end

vim.on_key(function()
  M.last_key = M.now()
  if can_drop and M.last_key < M.grace_all then
    return "" -- a picker just took the screen
  end
  if can_drop and next(M.grace) then
    local ok, buf = pcall(vim.api.nvim_get_current_buf)
    if ok and in_grace(buf) then
      return "" -- typed before the user could read what took the window
    end
  end
end, ns)

--- Why a surface may not take focus now (nil when it may).
---@return string|nil
function M.busy()
  local m = vim.api.nvim_get_mode()
  if m.blocking then
    return "waiting for a key"
  end
  -- nt: normal mode in a terminal (claude's TUI): reading it, not typing
  -- into it (that is mode t).
  if m.mode ~= "n" and m.mode ~= "nt" then
    return "mode " .. m.mode
  end
  -- m: in a mapping or typeahead, o: operator pending, S: after a count or
  -- a partial command, a: insert completion.
  if vim.fn.state():find("[moSa]") then
    return "in a command"
  end
  if vim.fn.getchar(1) ~= 0 then
    return "keys pending"
  end
  if vim.fn.reg_recording() ~= "" or vim.fn.reg_executing() ~= "" then
    return "macro"
  end
  if vim.fn.getcmdwintype() ~= "" then
    return "command-line window"
  end
  local buf = vim.api.nvim_get_current_buf()
  local surface = vim.b[buf].claudenova_surface
  if surface and surface ~= "sidebar" then
    return "in a claude-nova surface"
  end
  if M.last_key > 0 and M.now() - M.last_key < cfg().quiet_ms then
    return "typing"
  end
  return nil
end

local function disarm()
  if armed then
    vim.api.nvim_clear_autocmds({ group = group })
    armed = false
  end
end

-- One timer wakes the scheduler when the quiet period ends (no event marks
-- the moment the user stops typing).
local quiet_timer
local function wake_after_quiet()
  local left = cfg().quiet_ms - (M.now() - M.last_key)
  if left <= 0 then
    return
  end
  if not quiet_timer then
    quiet_timer = uv.new_timer()
  end
  quiet_timer:stop()
  quiet_timer:start(
    left + 10,
    0,
    vim.schedule_wrap(function()
      flush()
    end)
  )
end

local function arm()
  if armed then
    return
  end
  armed = true
  local events = { "ModeChanged", "CursorHold", "BufEnter", "WinEnter" }
  if vim.fn.exists("##SafeState") == 1 then
    table.insert(events, 1, "SafeState")
  end
  vim.api.nvim_create_autocmd(events, {
    group = group,
    desc = "claude-nova: open a waiting surface once the editor is idle",
    callback = function()
      vim.schedule(flush)
    end,
  })
end

--- Start the grace period of a surface buffer that took focus on its own.
--- redraw() is called when it ends (to take the "wait" hint off its bar).
function M.start_grace(buf, redraw)
  local ms = cfg().grace_ms
  if ms <= 0 or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local untl = M.now() + ms
  M.grace[buf] = untl
  grace_started[buf] = untl
  if not can_drop and not restores[buf] and vim.bo[buf].modifiable then
    -- 0.10 cannot drop keys: keep what they would do from the buffer. (A
    -- grace period started again before the last one ended keeps what
    -- that one found, given back when the later one ends.)
    vim.bo[buf].modifiable = false
    local ro = vim.bo[buf].readonly
    vim.bo[buf].readonly = true
    restores[buf] = function()
      vim.bo[buf].modifiable = true
      vim.bo[buf].readonly = ro
    end
  end
  vim.defer_fn(function()
    if grace_started[buf] ~= untl then
      return -- a reused buffer (the panel's) started another since
    end
    grace_started[buf] = nil
    M.grace[buf] = nil
    local restore = restores[buf]
    restores[buf] = nil
    if vim.api.nvim_buf_is_valid(buf) then
      if restore then
        restore()
      end
      if redraw then
        errors.try(redraw)
      end
    end
  end, ms)
end

--- Wrap a picker's callback: once it is answered or cancelled, its grace
--- (every key dropped) is over, whatever time is left.
function M.picked(cb)
  return function(...)
    M.grace_all = 0
    return cb(...)
  end
end

--- Wrap a deciding key's action: during the grace period it does nothing.
function M.guard(buf, fn)
  return function(...)
    if in_grace(buf) then
      return
    end
    return fn(...)
  end
end

-- Open a surface that takes the window on its own (item: a waiting entry).
local function open_on_its_own(item)
  local ms = cfg().grace_ms
  if not item.picker or ms <= 0 then
    return item.open({ focus = true, grace = true })
  end
  if can_drop then
    M.grace_all = M.now() + ms
    return item.open({ focus = true, grace = true })
  end
  -- 0.10: the grace is spent before it opens; a key typed meanwhile puts it
  -- back in the queue.
  local since = M.now()
  M.preopen[item.id] = true
  vim.defer_fn(function()
    if not M.preopen[item.id] then
      return -- forgotten meanwhile: decided, withdrawn or opened by the user
    end
    M.preopen[item.id] = nil
    if M.last_key >= since or M.busy() then
      table.insert(M.waiting, item)
      arm()
      wake_after_quiet()
      return
    end
    item.open({ focus = true, grace = true })
  end, ms)
end

--- Open the oldest waiting surface if the editor is idle. One at a time:
--- the surface takes focus, so the next waits until the user is done with it.
flush = function()
  if #M.waiting == 0 then
    disarm()
    return
  end
  local why = M.busy()
  if why then
    if why == "typing" then
      wake_after_quiet()
    end
    return
  end
  local item = table.remove(M.waiting, 1)
  if #M.waiting == 0 then
    disarm()
  end
  local ok, err = pcall(open_on_its_own, item)
  if not ok then
    notify.error(err)
  end
end

--- Open a surface now if the user asked for it or the editor is idle, else
--- queue it. Returns true when it opened now.
---@param id string request id
---@param open fun(opts: {focus: boolean, grace: boolean})
---@param asked boolean|nil the user asked for this surface
---@param picker boolean|nil it is a picker (it cannot guard its own keys)
function M.show(id, open, asked, picker)
  M.forget(id)
  if asked then
    open({ focus = true, grace = false })
    return true
  end
  local item = { id = id, open = open, picker = picker }
  local why = M.busy()
  if not why then
    open_on_its_own(item)
    return true
  end
  table.insert(M.waiting, item)
  arm()
  if why == "typing" then
    wake_after_quiet()
  end
  return false
end

--- Open a waiting surface now, because the user asked (:ClaudeNova focus):
--- id's, or the oldest. Returns false when none waits.
function M.open_now(id)
  for i, w in ipairs(M.waiting) do
    if not id or w.id == id then
      table.remove(M.waiting, i)
      if #M.waiting == 0 then
        disarm()
      end
      w.open({ focus = true, grace = false })
      return true
    end
  end
  return false
end

--- Whether a request's surface is waiting.
function M.is_waiting(id)
  for _, w in ipairs(M.waiting) do
    if w.id == id then
      return true
    end
  end
  return false
end

--- Drop a waiting surface (its request was decided or withdrawn).
function M.forget(id)
  M.preopen[id] = nil -- a picker spending its grace (0.10) opens no more
  for i = #M.waiting, 1, -1 do
    if M.waiting[i].id == id then
      table.remove(M.waiting, i)
    end
  end
  if #M.waiting == 0 then
    disarm()
  end
end

--- Try to open the oldest waiting surface now (the idle events and the
--- quiet timer call it; so may tests, with their own clock).
function M.flush()
  flush()
end

--- Forget everything (the host was lost).
function M.reset()
  M.waiting = {}
  M.grace = {}
  M.grace_all = 0
  M.preopen = {}
  disarm()
end

return M
