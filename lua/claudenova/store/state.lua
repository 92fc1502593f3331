-- The front end's copy of what Go told it: sessions and pending requests.
-- Go is the source of truth; this is only a cache for rendering. A request
-- decided by a gesture here leaves `requests` at once (so pending() and
-- decide() agree) and waits in `gone` until Go confirms its removal.
local text = require("claudenova.core.text")

local M = {}

M.sessions = {} ---@type table<integer, table>
M.requests = {} ---@type table<string, table>
M.gone = {} ---@type table<string, table> decided here, removal not yet confirmed
M.current = nil ---@type integer|nil
M.tasks = {} ---@type table<integer, table[]> session id -> its background tasks, oldest first

--- Forget everything (the host that owned it is gone).
function M.reset()
  M.sessions, M.requests, M.gone, M.current, M.tasks = {}, {}, {}, nil, {}
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

--- How a person tells a session apart: "2 · fix the flaky login test"; an
--- attempt of a best of N by its label: "3 · fix-login #2".
function M.label(id)
  local s = M.sessions[id]
  if s and s.label and s.label ~= "" then
    return ("%d · %s"):format(id, s.label)
  end
  if s and s.name and s.name ~= "" then
    return ("%d · %s"):format(id, s.name)
  end
  return ("session %d"):format(id)
end

--- The label of a request's session alone.
function M.session_label(r)
  return M.sessions[r.session] and M.label(r.session) or r.session_name or ("session %d"):format(r.session)
end

--- The file of a request as a person in the editor's folder reads it: the
--- target (relative to its session's folder) when that folder is the
--- editor's, else the path from the editor's folder ("../wt/greet.py" reads
--- as "~/src/wt/greet.py"): a file of another checkout is never mistaken
--- for the one at hand.
function M.where(r)
  local s = M.sessions[r.session]
  local rel = r.target ~= "" and r.target or (r.path or "")
  if not (r.path and r.path ~= "" and s and s.cwd and s.cwd ~= "") then
    return rel
  end
  if vim.fs.normalize(s.cwd) == vim.fs.normalize(vim.fn.getcwd()) then
    return rel
  end
  return text.shown_path(r.path)
end

--- "2 › " when more than one session is known (a view names whose change
--- it shows), else "".
function M.session_prefix(sid)
  local n = 0
  for _ in pairs(M.sessions) do
    n = n + 1
  end
  if n > 1 and sid then
    return sid .. " › "
  end
  return ""
end

--- How a request names the subagent that asks: "probe sub", else
--- "subagent a50e1f91"; nil when Claude itself asks.
function M.agent_label(r)
  local a = r.agent
  if not a then
    return nil
  end
  if a.description and a.description ~= "" then
    return a.description
  end
  return "subagent " .. (a.id or "?")
end

--- The label of a request's session (its name may have changed since),
--- and the subagent that asks: "1 · fix the login test › probe sub".
function M.request_label(r)
  local label = M.session_label(r)
  local agent = M.agent_label(r)
  if agent then
    label = label .. " › " .. agent
  end
  return label
end

--- Every task of every session: running ones first, then the most recent.
function M.all_tasks()
  local out = {}
  for _, sid in ipairs(M.session_ids()) do
    vim.list_extend(out, M.tasks[sid] or {})
  end
  table.sort(out, function(a, b)
    local ra, rb = a.status == "running", b.status == "running"
    if ra ~= rb then
      return ra
    end
    return (a.ended or a.started or 0) > (b.ended or b.started or 0)
  end)
  return out
end

--- Task id (of any session).
function M.task(id)
  for _, list in pairs(M.tasks) do
    for _, t in ipairs(list) do
      if t.id == id then
        return t
      end
    end
  end
end

--- How long a task ran, or has run so far: "12s", "3m".
function M.task_age(t)
  local now = text.time() -- the wall clock text.age reads too
  local secs = math.max(0, (t.ended or now) - (t.started or now))
  return text.age((now - secs) * 1000)
end

--- One line for a task: "agent probe sub (general-purpose) · running 12s".
function M.task_line(t)
  local what = t.description ~= "" and t.description or t.id
  if t.subagent_type and t.subagent_type ~= "" then
    what = what .. " (" .. t.subagent_type .. ")"
  end
  return ("%s %s · %s %s"):format(t.type, what, t.status, M.task_age(t))
end

function M.for_session(id)
  return vim.tbl_filter(function(r)
    return r.session == id
  end, M.order())
end

return M
