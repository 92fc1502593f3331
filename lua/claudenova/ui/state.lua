-- The front end's copy of what Go told it: sessions and pending requests.
-- Go is the source of truth; this is only a cache for rendering.
local M = {}

M.sessions = {} ---@type table<integer, table>
M.requests = {} ---@type table<string, table>
M.current = nil ---@type integer|nil

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

function M.for_session(id)
  return vim.tbl_filter(function(r) return r.session == id end, M.order())
end

return M
