-- Which request (or session) a command or key acts on. Requests, in order:
--   1. the surface under the cursor (a proposal buffer or its original side,
--      the panel, a plan): its request;
--   2. the sidebar row under the cursor: its request;
--   3. the only pending request, when exactly one is pending;
--   4. otherwise the user picks one (vim.ui.select): never silently the
--      oldest.
local state = require("claudenova.store.state")
local text = require("claudenova.core.text")
local notify = require("claudenova.setup.notify")
local sidebar = require("claudenova.surfaces.sidebar")

local M = {}

--- The request of the surface or sidebar row under the cursor, if any.
---@return string|nil
function M.here()
  local id = vim.b.claudenova_request
  if id and state.requests[id] then
    return id
  end
  id = sidebar.id_under_cursor()
  if id and state.requests[id] then
    return id
  end
  return nil
end

--- The session in view: the transcript, proposal, panel, plan or prompt
--- input under the cursor, else the sidebar row under the cursor (a session
--- or one of its requests), else the current session (nil when none).
---@return integer|nil
function M.session()
  local sid = vim.b.claudenova_session or vim.b.claudenova_prompt_session
  if sid then
    return sid
  end
  local id = vim.b.claudenova_request
  local r = id and (state.requests[id] or state.gone[id])
  if r then
    return r.session
  end
  return sidebar.session_under_cursor() or M.shown_session() or state.current
end

--- The session whose transcript this tab shows: the only one shown, else
--- the current session when it is one of them, else the first shown (nil
--- when the tab shows none).
function M.shown_session()
  local shown, first = {}, nil
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local sid = vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session
    if sid and state.sessions[sid] then
      shown[sid] = true
      first = first or sid
    end
  end
  if state.current and shown[state.current] then
    return state.current
  end
  return first
end

--- How a request is named in the picker.
function M.describe(r)
  local who = state.request_label(r)
  local what = r.target ~= "" and (r.tool .. " " .. r.target) or r.tool
  return ("%s · %s · %s ago"):format(who, what, text.age(r.arrived))
end

--- Resolve the target and call cb(id). Nothing is called when there is no
--- pending request or the user cancels the picker.
---@param cb fun(id: string)
---@param verb string|nil what will be done, for the picker's prompt
function M.resolve(cb, verb)
  local id = M.here()
  if id then
    return cb(id)
  end
  local list = state.order()
  if #list == 0 then
    notify.info("no pending request")
    return
  end
  if #list == 1 then
    return cb(list[1].id)
  end
  vim.ui.select(list, {
    prompt = ("claude-nova: %s which request?"):format(verb or "act on"),
    kind = "claudenova.request",
    format_item = M.describe,
  }, function(r)
    if r and state.requests[r.id] then
      cb(r.id)
    end
  end)
end

return M
