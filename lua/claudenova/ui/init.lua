-- The front end's entry point: Go calls M.apply with a batch of events
-- (ui.inbox); the user's gestures on requests (ui.gestures) go back to Go
-- through claudenova.host; ui.pickers choose a session. Surfaces open
-- through claudenova.ui.scheduler; commands find their request through
-- claudenova.ui.target.
local state = require("claudenova.ui.state")
local notify = require("claudenova.ui.notify")
require("claudenova.highlights").setup() -- also without setup(): first use of any surface

local M = {}
M.state = state

local inbox = require("claudenova.ui.inbox")
local gestures = require("claudenova.ui.gestures")
local pickers = require("claudenova.ui.pickers")

-- The front end's entry points, in three modules: the event inbox (what
-- the host sends), the gesture API (what the user does with a request) and
-- the pickers; ui.state is what the front end knows.
M.apply = inbox.apply
M.host_lost = inbox.host_lost
M.session_started = inbox.session_started
for _, name in ipairs({ "decide", "always", "decide_many", "deny_with_message", "present", "decide_target",
  "always_target", "review_target", "withdraw_queued", "focus_waiting" }) do
  M[name] = gestures[name]
end
M.session_line = pickers.session_line
M.pick_session = pickers.pick_session
M.pick_resume = pickers.pick_resume

function M.toggle_sidebar()
  require("claudenova.ui.sidebar").toggle()
end

--- Show a session's transcript (the current one by default). opts.focus
--- moves the cursor into it.
function M.open_transcript(id, opts)
  id = id or state.current
  if not id then
    notify.info("no session yet (:ClaudeNova new)")
    return
  end
  require("claudenova.ui.transcript").open(id, opts)
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
  require("claudenova.ui.prompt").open(to, opts)
end

--- The session in view (see ui.target.session).
function M.session_in_view()
  return require("claudenova.ui.target").session()
end

--- A prompt started session id (none ran, or the one it was written for,
--- old, had exited): say so, and show its transcript where the old one was
--- shown.
function M.started_for_prompt(id, old)
  local s = old and state.sessions[old]
  if s and s.state == "exited" then
    -- What happened first: a narrow screen cuts the end.
    notify.info(("new session %s: %s had exited (:ClaudeNova resume continues it)"):format(state.label(id), state.label(old)))
  else
    notify.info(("new session %s: no session ran"):format(state.label(id)))
  end
  M.open_transcript(id)
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

return M
