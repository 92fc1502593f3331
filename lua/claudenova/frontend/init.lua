-- The front end's entry point: the host's stream comes in through
-- ui.inbox (applied in order into the store, ui.state); the user's
-- gestures on requests go back through ui.gestures, session operations
-- through ui.ops. Loading it fills the slots the surfaces call
-- (ui.actions) and tells the channel how to report a lost host.
local actions = require("claudenova.store.actions")
local gestures = require("claudenova.frontend.gestures")
local host = require("claudenova.channel.host")
local inbox = require("claudenova.frontend.inbox")
local notify = require("claudenova.setup.notify")
local ops = require("claudenova.frontend.ops")
local pickers = require("claudenova.frontend.pickers")
local prompt = require("claudenova.surfaces.prompt")
local sidebar = require("claudenova.surfaces.sidebar")
local state = require("claudenova.store.state")
local target = require("claudenova.frontend.target")
local transcript = require("claudenova.surfaces.transcript")
local tui = require("claudenova.frontend.tui")
local highlights = require("claudenova.setup.highlights")
local mcp = require("claudenova.surfaces.mcp")
highlights.setup() -- also without setup(): first use of any surface

local M = {}
M.state = state

M.apply = inbox.apply
M.host_lost = inbox.host_lost
M.session_started = inbox.session_started
for _, name in ipairs({
  "decide",
  "always",
  "decide_many",
  "deny_with_message",
  "present",
  "decide_target",
  "always_target",
  "review_target",
  "withdraw_queued",
  "focus_waiting",
}) do
  M[name] = gestures[name]
end
M.session_line = pickers.session_line
M.pick_session = pickers.pick_session
M.pick_resume = pickers.pick_resume
M.started_for_prompt = ops.started_for_prompt

function M.toggle_sidebar()
  sidebar.toggle()
end

--- Show a session's transcript (the current one by default). opts.focus
--- moves the cursor into it. A session of claude's terminal UI shows its
--- terminal instead (the TUI is its conversation).
function M.open_transcript(id, opts)
  id = id or state.current
  if not id then
    notify.info("no session yet (:ClaudeNova new)")
    return
  end
  local s = state.sessions[id]
  if s and s.kind == "tui" and tui.show(id, opts) then
    return
  end
  transcript.open(id, opts)
end

--- The session a prompt goes to: sid, unless it has exited (then nil: the
--- prompt starts a new session, which says so).
function M.sendable(sid)
  local s = sid and state.sessions[sid]
  if s and s.state == "exited" then
    return nil
  end
  return sid
end

--- Open the prompt input of a session (the current one by default). For a
--- session that has exited it is the input of a new session (opts.instead_of
--- names the old one: sending says so).
function M.prompt(session, opts)
  local want = session or state.current
  local to = M.sendable(want)
  opts = opts or {}
  if not to and want then
    opts.instead_of = want
  end
  prompt.open(to, opts)
end

--- The session in view (see frontend.target.session).
function M.session_in_view()
  return target.session()
end

--- After a send: say where the prompt went when that session's transcript
--- is not in view in this tab (nothing to say when it is).
function M.said_where(sid)
  if not sid or not state.sessions[sid] then
    return
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session == sid then
      return
    end
  end
  notify.info(("sent to %s"):format(state.label(sid)))
end

-- What the surfaces may ask for (ui.actions): the gesture API, the session
-- operations, and the few front-end moves above.
for name, fn in pairs({
  answer = gestures.answer,
  decide = gestures.decide,
  decide_many = gestures.decide_many,
  always = gestures.always,
  deny_with_message = gestures.deny_with_message,
  deny_stop = gestures.deny_stop,
  present = gestures.present,
  withdraw_queued = gestures.withdraw_queued,
  new = ops.new,
  send = ops.send,
  steer = ops.steer,
  stop = ops.stop,
  merge = ops.merge,
  worktrees = ops.worktrees,
  interrupt = ops.interrupt,
  resume = ops.resume,
  sessions = ops.sessions,
  stop_task = ops.stop_task,
  started_for_prompt = ops.started_for_prompt,
  mcp = function(sid)
    mcp.open(sid)
  end,
  open_transcript = M.open_transcript,
  prompt = M.prompt,
  sendable = M.sendable,
  session_in_view = M.session_in_view,
}) do
  rawset(actions, name, fn)
end

host.when_lost(inbox.host_lost)

return M
