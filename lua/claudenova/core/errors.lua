-- Errors read like the plugin's own: every error that reaches the user, from
-- a command, a key or the Lua API, goes through M.message, which drops the
-- plumbing around it (RPC wrappers, Lua positions) and says "claude-nova: ".
local M = {}

local PREFIX = "claude-nova: "

--- The error as one clean message for the user.
---@param err any
---@return string
function M.message(err)
  local s = type(err) == "table" and (err.msg or vim.inspect(err)) or tostring(err)
  -- Our own messages carry the prefix: keep what follows its last use (the
  -- wrappers Neovim adds come before it).
  local at = s:find(PREFIX, 1, true)
  if at then
    local last = at
    while true do
      local nxt = s:find(PREFIX, last + 1, true)
      if not nxt then
        break
      end
      last = nxt
    end
    s = s:sub(last + #PREFIX)
  else
    -- A failure of the channel itself: Neovim's "Vim(...):Error invoking
    -- 'X' on channel N ...:" and "remote#define#…" lines come first.
    s = s:gsub("^.-[Cc]hannel %d+[^\n]*:%s*", "")
    s = s:gsub("^Vim%b():", ""):gsub("^Vim:", "")
    -- Lua positions ("…/claudenova/frontend/init.lua:12: ").
    s = s:gsub("^[^\n]-%.lua:%d+: ", "")
  end
  s = vim.trim(s)
  if s == "" then
    s = "unknown error"
  end
  return PREFIX .. s
end

--- Raise a clean error (no position), for the Lua API.
function M.raise(msg)
  error(M.message(msg), 0)
end

-- Who shows an error to the user (claudenova.setup.notify, which sits
-- above this module, says so when it loads); until then vim.notify does.
local reporter = nil ---@type fun(err: any)|nil

--- Let fn show the errors guard() catches (the message module: one way to
--- the user).
---@param fn fun(err: any)
function M.report_with(fn)
  reporter = fn
end

--- Show an error to the user.
function M.report(err)
  if reporter then
    return reporter(err)
  end
  vim.notify(M.message(err), vim.log.levels.ERROR)
end

--- Wrap fn so that an error is shown to the user instead of raised.
function M.guard(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      M.report(err)
    end
  end
end

-- The front end's log: lines kept whole in the host's log (the channel
-- writes them there: see log_to). Lines logged while nothing can take them
-- (no host yet) wait, the last KEEP of them, for the next that can.
local KEEP = 100
local writer = nil ---@type (fun(level: string, msg: string): boolean)|nil
local waiting = {} ---@type {level: string, msg: string}[]
local writing = false

--- Let fn write the front end's log lines (the channel: the host's log
--- method). fn returns false when it cannot write now (no host).
---@param fn fun(level: string, msg: string): boolean
function M.log_to(fn)
  writer = fn
  M.log() -- what waited
end

--- Keep msg in the host's log at level ("debug", "info", "warn", "error").
--- Without arguments: write what waited.
---@param level string|nil
---@param msg string|nil
function M.log(level, msg)
  if level then
    table.insert(waiting, { level = level, msg = msg })
    if #waiting > KEEP then
      table.remove(waiting, 1)
    end
  end
  if not writer or writing then
    return -- no writer yet, or one writing now (a line its own failure logged waits)
  end
  writing = true
  while waiting[1] do
    local ok, wrote = pcall(writer, waiting[1].level, waiting[1].msg)
    if not ok or not wrote then
      break
    end
    table.remove(waiting, 1)
  end
  writing = false
end

--- The log lines not written yet (no host took them).
function M.unwritten()
  return vim.deepcopy(waiting)
end

-- Where the caller of a function of this module is: "surfaces/panel.lua:12".
local function place(level)
  local info = debug.getinfo(level + 1, "Sl")
  if not info then
    return "?"
  end
  local src = (info.source or "?"):gsub("^@", ""):gsub("^.*/lua/claudenova/", "")
  return ("%s:%d"):format(src, info.currentline or 0)
end

--- An error the caller lets go, logged with its place, never shown: at
--- debug level an expected failure (a window already closed, a buffer
--- wiped), at "error" one that should not happen but must not stop the
--- rest (a surface's withdraw). where: what was tried (the place is added).
---@param err any
---@param where string|nil
---@param level string|nil
function M.dropped(err, where, level)
  local at = place(2)
  M.log(level or "debug", ("dropped at %s%s: %s"):format(at, where and (" (" .. where .. ")") or "", tostring(err)))
end

--- pcall(fn, ...), the error (if any) logged with the caller's place, at
--- debug level. Returns what pcall returns.
local function tried(ok, ...)
  if not ok then
    M.log("debug", ("dropped at %s: %s"):format(place(3), tostring((...))))
  end
  return ok, ...
end
function M.try(fn, ...)
  return tried(pcall(fn, ...))
end

return M
