-- Deny and stop: a deny that also ends the turn (interrupt: true in the
-- answer), so Claude does not try again what the user firmly refused. The
-- CLI tells the model its own words then ("The user doesn't want to
-- proceed… STOP what you are doing and wait for the user to tell you how
-- to proceed"), so no message is asked for. Every surface has it: the
-- panel, a proposal, a sidebar row, :ClaudeNova deny-stop and the Lua API.
local M = {}

local function notify()
  return require("claudenova.ui.notify")
end

--- Deny request id and end its turn. via: surface, sidebar or command.
---@return boolean, string|nil
function M.deny(id, via)
  local st = require("claudenova.ui.state")
  local r = st.requests[id]
  local ok, why = require("claudenova.ui").decide(id, "deny", nil, via or "surface", { interrupt = true })
  if ok and r then
    notify().info(("denied %s%s and stopped the turn of %s"):format(r.tool, r.target ~= "" and (" " .. r.target) or "",
      st.session_label(r)))
  elseif why then
    notify().tagged(why, id)
  end
  return ok, why
end

--- :ClaudeNova deny-stop: the request in view (see ui.target).
function M.deny_target()
  require("claudenova.ui.target").resolve(function(id)
    M.deny(id, "command")
  end, "deny and stop")
end

return M
