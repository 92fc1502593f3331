-- Gestures: what a key of a surface does runs as a coroutine of ours, so a
-- host call inside it (channel.host's request) yields until its reply
-- comes instead of waiting: Neovim keeps serving keys, timers and the
-- host's stream meanwhile. An error is shown as the plugin's own message.
local errors = require("claudenova.core.errors")

local M = {}

-- The coroutines started here (weak: a finished one goes).
local ours = setmetatable({}, { __mode = "k" })

-- Yielding across pcall and Neovim's own calls needs LuaJIT (every
-- release build of Neovim has it); elsewhere a gesture runs straight.
local can_yield = type(jit) == "table"

--- Resume co (a gesture that waited) with the values given.
function M.resume(co, ...)
  local ok, err = coroutine.resume(co, ...)
  if not ok then
    errors.report(err)
  end
end

--- Run fn(...) as a gesture.
function M.run(fn, ...)
  if not can_yield then
    return errors.guard(fn)(...)
  end
  local co = coroutine.create(fn)
  ours[co] = true
  M.resume(co, ...)
end

--- fn as a gesture: the function to map a key to.
function M.wrap(fn)
  return function(...)
    M.run(fn, ...)
  end
end

--- The gesture running now, when it may yield (else nil).
function M.current()
  local co = coroutine.running()
  if co and ours[co] then
    return co
  end
  return nil
end

return M
