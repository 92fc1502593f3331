-- The front end's entry point: Go calls M.apply with a batch of events; the
-- user's gestures go back to Go through claudenova.host.
local state = require("claudenova.ui.state")
require("claudenova.highlights").setup() -- also without setup(): first use of any surface

local M = {}
M.state = state

local function host()
  return require("claudenova.host")
end

local function cfg()
  return require("claudenova.config").get()
end

local function surface_module(surface)
  return ({
    panel = "claudenova.ui.panel",
    proposal = "claudenova.ui.proposal",
    question = "claudenova.ui.question",
    plan = "claudenova.ui.plan",
  })[surface]
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds("User", { pattern = pattern, data = data, modeline = false })
end

local function notify_request(r)
  if not cfg().notify then
    return
  end
  local what = r.target ~= "" and (r.tool .. " " .. r.target) or r.tool
  local how = ({
    proposal = ":w in the proposal applies it, closing it rejects",
    question = "answer in the picker (or <CR> on its row in :ClaudeNova)",
    plan = "review the plan (or <CR> on its row in :ClaudeNova)",
  })[r.surface] or ":ClaudeNova allow | deny, or the sidebar (:ClaudeNova)"
  vim.notify(("Claude (%s) asks: %s — %s"):format(r.session_name, what, how), vim.log.levels.INFO, { title = "claude-nova" })
end

local handlers = {}

function handlers.session(info)
  state.sessions[info.id] = info
  require("claudenova.ui.transcript").ensure(info.id)
end

function handlers.transcript(data)
  require("claudenova.ui.transcript").apply(data.session, data.ops)
end

function handlers.request_added(r)
  state.requests[r.id] = r
  notify_request(r)
  fire("ClaudeNovaRequestAdded", r)
end

function handlers.request_removed(data)
  local r = state.requests[data.id]
  state.requests[data.id] = nil
  for _, mod in ipairs({ "panel", "proposal", "question", "plan" }) do
    require("claudenova.ui." .. mod).withdraw(data.id, data.outcome)
  end
  fire("ClaudeNovaRequestDecided", { id = data.id, session = data.session, outcome = data.outcome, request = r })
end

-- Requests the user asked to see again (their surface takes focus).
local asked = {}

function handlers.present(r)
  state.requests[r.id] = r
  local opts = { focus = asked[r.id] }
  asked[r.id] = nil
  local mod = surface_module(r.surface)
  if mod == "claudenova.ui.question" then
    -- Pickers may block (inputlist): never inside Go's call.
    vim.schedule(function() require(mod).open(r, opts) end)
  elseif mod then
    require(mod).open(r, opts)
  end
end

function handlers.notify(data)
  local level = ({ error = vim.log.levels.ERROR, warn = vim.log.levels.WARN })[data.level] or vim.log.levels.INFO
  vim.notify(data.msg, level, { title = "claude-nova" })
end

function handlers.proposal_rebase(data)
  require("claudenova.ui.proposal").rebase(data)
end

function handlers.file_written(data)
  require("claudenova.ui.proposal").reload(data.path)
end

--- Called by the Go host with a JSON batch of events.
function M.apply(batch)
  M.in_apply = true
  local ok, err = pcall(M._apply, batch)
  M.in_apply = false
  if not ok then
    vim.notify("claude-nova: " .. tostring(err), vim.log.levels.ERROR)
  end
end

function M._apply(batch)
  local events = vim.json.decode(batch, { luanil = { object = true, array = true } })
  local sidebar_dirty = false
  for _, ev in ipairs(events) do
    local h = handlers[ev.event]
    if h then
      local ok, err = pcall(h, ev.data)
      if not ok then
        vim.notify("claude-nova: " .. ev.event .. ": " .. tostring(err), vim.log.levels.ERROR)
      end
      -- Transcript text does not change the sidebar: skip the redraw.
      sidebar_dirty = sidebar_dirty or ev.event ~= "transcript"
    end
  end
  if sidebar_dirty then
    require("claudenova.ui.sidebar").render()
  end
end

--- The host died: rows are marked lost (they can no longer be answered).
function M.host_lost(code)
  local n = 0
  for id, r in pairs(state.requests) do
    n = n + 1
    for _, mod in ipairs({ "panel", "proposal", "question", "plan" }) do
      pcall(require("claudenova.ui." .. mod).withdraw, id, "lost")
    end
    state.requests[id] = nil
    r.lost = true
  end
  for _, s in pairs(state.sessions) do
    s.state = "lost"
  end
  require("claudenova.ui.sidebar").render()
  vim.notify(
    ("claude-nova: the host stopped unexpectedly (exit %d); %d pending request(s) were lost. The next :ClaudeNova command starts a fresh host. See :ClaudeNova log."):format(code, n),
    vim.log.levels.ERROR
  )
end

function M.session_started(info)
  if info and info.id then
    state.sessions[info.id] = info
    state.current = info.id
    require("claudenova.ui.transcript").ensure(info.id)
    require("claudenova.ui.sidebar").render()
  end
end

--- Decide a request. Plans and questions re-present (Go enforces it too).
function M.decide(id, behavior, message, via)
  local r = state.requests[id]
  if not r then
    vim.notify("claude-nova: that request is no longer pending", vim.log.levels.WARN)
    return
  end
  via = via or "surface"
  if via ~= "surface" and (r.surface == "plan" or r.surface == "question") then
    M.present(id)
    return
  end
  host().request("decide", { id = id, behavior = behavior, message = message, via = via })
end

--- Ask for an optional deny message, then deny.
function M.deny_with_message(id, via)
  local r = state.requests[id]
  if r and via ~= "surface" and (r.surface == "plan" or r.surface == "question") then
    M.present(id)
    return
  end
  vim.ui.input({ prompt = "Deny — message for Claude (optional): " }, function(msg)
    if msg == nil then
      return -- cancelled: nothing is answered
    end
    M.decide(id, "deny", msg ~= "" and msg or nil, via)
  end)
end

function M.present(id)
  asked[id] = true
  host().request("present", { id = id })
end

--- The request a command acts on: the sidebar row under the cursor, else the oldest.
function M.target()
  local id = require("claudenova.ui.sidebar").id_under_cursor()
  if id and state.requests[id] then
    return id
  end
  local first = state.order()[1]
  return first and first.id
end

function M.decide_target(behavior, message)
  local id = M.target()
  if not id then
    vim.notify("claude-nova: no pending request", vim.log.levels.INFO)
    return
  end
  M.decide(id, behavior, message, "command")
end

function M.review_target()
  local id = M.target()
  if not id then
    vim.notify("claude-nova: no pending request", vim.log.levels.INFO)
    return
  end
  local r = state.requests[id]
  if r.surface == "panel" then
    require("claudenova.ui.panel").open(r, { review = true, focus = true })
  else
    M.present(id)
  end
end

function M.toggle_sidebar()
  require("claudenova.ui.sidebar").toggle()
end

function M.open_transcript(id)
  id = id or state.current
  if not id then
    vim.notify("claude-nova: no session yet (:ClaudeNova new)", vim.log.levels.INFO)
    return
  end
  require("claudenova.ui.transcript").open(id)
end

function M.prompt(session)
  require("claudenova.ui.prompt").open(session or state.current)
end

function M.pick_session()
  local sessions = require("claudenova").sessions()
  if #sessions == 0 then
    vim.notify("claude-nova: no sessions", vim.log.levels.INFO)
    return
  end
  vim.ui.select(sessions, {
    prompt = "Claude sessions",
    format_item = function(s)
      return ("%d  %s  %s  %s"):format(s.id, s.name, s.state, s.mode)
    end,
  }, function(s)
    if s then
      host().request("select", { session = s.id })
      state.current = s.id
      M.open_transcript(s.id)
    end
  end)
end

function M.pick_resume()
  local items = vim.tbl_filter(function(s) return s.claude_id ~= "" end, require("claudenova").sessions())
  if #items == 0 then
    vim.notify("claude-nova: give a session id: :ClaudeNova resume {id}", vim.log.levels.INFO)
    return
  end
  vim.ui.select(items, {
    prompt = "Resume which session?",
    format_item = function(s) return ("%s  (%s, %s)"):format(s.claude_id, s.name, s.state) end,
  }, function(s)
    if s then
      local info = require("claudenova").resume(s.claude_id)
      M.open_transcript(info.id)
    end
  end)
end

return M
