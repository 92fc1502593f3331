-- The front end's copy of what Go told it: sessions and pending requests.
-- Go is the source of truth; this is only a cache for rendering. A request
-- decided by a gesture here leaves `requests` at once (so pending() and
-- decide() agree) and waits in `gone` until Go confirms its removal.
local M = {}

M.sessions = {} ---@type table<integer, table>
M.requests = {} ---@type table<string, table>
M.gone = {} ---@type table<string, table> decided here, removal not yet confirmed
M.current = nil ---@type integer|nil

--- Forget everything (the host that owned it is gone).
function M.reset()
  M.sessions, M.requests, M.gone, M.current = {}, {}, {}, nil
end

function M.order()
  local out = vim.tbl_values(M.requests)
  table.sort(out, function(a, b)
    if a.arrived == b.arrived then
      return a.id < b.id
    end
    return a.arrived < b.arrived
  end)
  return out
end

function M.session_ids()
  local ids = vim.tbl_keys(M.sessions)
  table.sort(ids)
  return ids
end

--- How a person tells a session apart: "2 · fix the flaky login test".
function M.label(id)
  local s = M.sessions[id]
  if s and s.name and s.name ~= "" then
    return ("%d · %s"):format(id, s.name)
  end
  return ("session %d"):format(id)
end

--- The label of a request's session (its name may have changed since).
function M.request_label(r)
  if M.sessions[r.session] then
    return M.label(r.session)
  end
  return r.session_name or ("session %d"):format(r.session)
end

function M.for_session(id)
  return vim.tbl_filter(function(r) return r.session == id end, M.order())
end

return M
