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

--- Shows an error to the user (set by claudenova.setup.notify, which sits
--- above this module); until then errors go to vim.notify.
---@type fun(err: any)
M.report = function(err)
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

return M
