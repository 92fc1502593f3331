-- The front end's entry point: Go calls M.apply with a batch of events; the
-- user's gestures go back to Go through claudenova.host. Surfaces open
-- through claudenova.ui.scheduler; commands find their request through
-- claudenova.ui.target.
local state = require("claudenova.ui.state")
local notify = require("claudenova.ui.notify")
local scheduler = require("claudenova.ui.scheduler")
require("claudenova.highlights").setup() -- also without setup(): first use of any surface

local M = {}
M.state = state

local function host()
  return require("claudenova.host")
end

local function cfg()
  return require("claudenova.config").get()
end

local SURFACES = { "panel", "proposal", "question", "plan", "elicit" }

local function surface_module(surface)
  return ({
    panel = "claudenova.ui.panel",
    proposal = "claudenova.ui.proposal",
    question = "claudenova.ui.question",
    plan = "claudenova.ui.plan",
    elicit = "claudenova.ui.elicit",
  })[surface]
end

-- Surfaces that answer their request themselves (sidebar keys and commands
-- open them instead), and those that open as pickers (never inside a call
-- from Go).
local OWN = { plan = true, question = true, elicit = true }
local PICKER = { question = true, elicit = true }

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds("User", { pattern = pattern, data = data, modeline = false })
end

--- The one-line notification for a request that arrived.
local function announce(r, waiting)
  if not cfg().notify then
    return
  end
  local what = r.target ~= "" and (r.tool .. " " .. r.target) or r.tool
  local agent = state.agent_label(r)
  if agent then
    what = agent .. " › " .. what -- who asks comes first: a long target is cut
  end
  if waiting then
    -- What to do first (it opens by itself once you pause), then what it
    -- is: a narrow screen cuts the end.
    local msg = ("opens when you pause: %s (%s; :ClaudeNova focus opens it now)"):format(what, state.session_label(r))
    if notify.covered() then
      -- -- INSERT -- covers the message line: say it above the status line
      -- until the surface opens (:messages has it too).
      notify.pin(r.id, msg)
    end
    notify.tagged(msg, r.id)
    return
  end
  local key = require("claudenova.ui.text").key
  local how
  if r.surface == "proposal" and r.plan_mode then
    -- Asked while planning: no plan was approved yet.
    how = "plan mode, no plan approved: :w applies anyway, :q rejects"
  elseif r.surface == "proposal" then
    how = ":w applies, :q rejects"
  elseif r.surface == "question" then
    how = "answer in the picker"
  elseif r.surface == "elicit" then
    how = "fill in the form or decline it"
  elseif r.surface == "plan" then
    local k = cfg().keymaps.plan
    how = ("%s accept edits, %s approve, %s keep planning"):format(key(k.accept_edits), key(k.approve), key(k.keep_planning))
    if vim.fn.strdisplaywidth("claude-nova: " .. how) > notify.room() then
      -- Never an instruction cut in half: the plan's winbar has its keys.
      how = "plan: its winbar has the keys"
    end
  else
    local k = cfg().keymaps.panel
    how = ("%s allow, %s deny"):format(key(k.allow), key(k.deny)) -- short: a float leaves ~30 cells at 60 columns
    if r.hints and r.hints.deliberate then
      -- No one-key approve: the panel opens on Deny.
      how = ("%s denies, %s twice allows"):format(key(k.deny), key(k.allow))
    end
  end
  -- What to do comes first, then what and whose it is: a narrow screen
  -- cuts the end.
  notify.tagged(("%s: %s (%s)"):format(how, what, state.session_label(r)), r.id)
end

local verbs = { allow = "allowed", allow_session = "allowed for the session", allow_tool = "allowed for the session (the whole tool)", deny = "denied" }

local handlers = {}

function handlers.session(info)
  state.sessions[info.id] = info
  local tr = require("claudenova.ui.transcript")
  tr.ensure(info.id)
  tr.session_changed(info.id)
end

function handlers.session_removed(data)
  state.sessions[data.session] = nil
  if state.current == data.session then
    state.current = nil
  end
  require("claudenova.ui.transcript").forget(data.session)
end

function handlers.transcript(data)
  require("claudenova.ui.transcript").apply(data.session, data.ops)
end

function handlers.transcript_resync(data)
  require("claudenova.ui.transcript").resync(data.session)
end

function handlers.request_added(r)
  if state.gone[r.id] then
    return
  end
  state.requests[r.id] = r
  fire("ClaudeNovaRequestAdded", r)
end

--- Remove every trace of a request on this side.
local function drop(id, outcome)
  local r = state.requests[id] or state.gone[id]
  state.requests[id] = nil
  scheduler.forget(id)
  -- Its announcement leaves the message line with it (when still shown).
  notify.clear(id)
  for _, mod in ipairs(SURFACES) do
    pcall(require("claudenova.ui." .. mod).withdraw, id, outcome)
  end
  return r
end

function handlers.request_removed(data)
  local r = drop(data.id, data.outcome)
  state.gone[data.id] = nil
  fire("ClaudeNovaRequestDecided", { id = data.id, session = data.session, outcome = data.outcome, request = r })
end

--- Open the surface of r, now or when the editor is idle. The arrival is
--- announced once, measured against the screen it will be read on: after
--- the surface opened (a float moves the ruler into the command line), but
--- before a picker, which takes the screen until answered.
local function show(r, asked)
  local mod = surface_module(r.surface)
  if not mod then
    return
  end
  local tell = not r.announced and not asked
  r.announced = true
  if tell and PICKER[r.surface] then
    announce(r, scheduler.busy() ~= nil)
    tell = false
  end
  local queued = false
  local opened = scheduler.show(r.id, function(how)
    local cur = state.requests[r.id]
    notify.unpin(r.id)
    if cur then
      require(mod).open(cur, how)
      if queued and r.surface ~= "question" then
        -- It waited: "waits until you pause" is stale now; say what to do.
        announce(cur, false)
      end
    end
  end, asked)
  queued = not opened
  if tell then
    announce(r, not opened)
  end
end

function handlers.present(r)
  if state.gone[r.id] then
    return -- decided here already
  end
  local known = state.requests[r.id]
  if known then
    r.announced = known.announced
  end
  state.requests[r.id] = r
  if PICKER[r.surface] then
    -- Pickers may block (inputlist): never inside Go's call.
    vim.schedule(function()
      if state.requests[r.id] then
        show(state.requests[r.id], false)
      end
    end)
  else
    show(r, false)
  end
end

function handlers.notify(data)
  local level = ({ error = vim.log.levels.ERROR, warn = vim.log.levels.WARN })[data.level] or vim.log.levels.INFO
  notify.notify(data.msg, level)
end

function handlers.proposal_rebase(data)
  local r = state.requests[data.id]
  if r then
    r.exists = data.exists
  end
  require("claudenova.ui.proposal").rebase(data)
end

function handlers.tasks(data)
  state.tasks[data.session] = data.tasks or {}
  local tasks = package.loaded["claudenova.ui.tasks"]
  if tasks then
    tasks.changed()
  end
end

function handlers.rules(view)
  require("claudenova.ui.rules").update(view)
end

function handlers.reply(data)
  require("claudenova.host").resolve(data)
end

function handlers.file_written(data)
  require("claudenova.ui.disk").written(data.path)
end

--- Called by the Go host with a JSON batch of events.
function M.apply(batch)
  M.in_apply = true
  local ok, err = pcall(M._apply, batch)
  M.in_apply = false
  if not ok then
    notify.error(err)
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
        notify.error(ev.event .. ": " .. require("claudenova.errors").message(err):gsub("^claude%-nova: ", ""))
      end
      -- Transcript text does not change the sidebar: skip the redraw.
      sidebar_dirty = sidebar_dirty or (ev.event ~= "transcript" and ev.event ~= "transcript_resync")
    end
  end
  if sidebar_dirty then
    require("claudenova.ui.sidebar").render()
  end
end

--- The host died: everything it owned is gone (sessions, transcripts,
--- requests). The next command starts a fresh host that numbers its sessions
--- from 1 again, so nothing of the old one may linger here.
function M.host_lost(code)
  local n = 0
  for id in pairs(state.requests) do
    n = n + 1
    drop(id, "lost")
  end
  scheduler.reset()
  if package.loaded["claudenova.ui.tasks"] then
    require("claudenova.ui.tasks").host_lost()
  end
  require("claudenova.host").fail_waiting("the host stopped before claude answered")
  require("claudenova.ui.transcript").host_lost()
  state.reset()
  require("claudenova.ui.sidebar").render()
  notify.error(
    ("the host stopped unexpectedly (exit %d); %d pending request(s) were lost. The next :ClaudeNova command starts a fresh host; see :ClaudeNova log"):format(code, n)
  )
end

function M.session_started(info)
  if info and info.id then
    -- The host sends an event for every change of a session before the
    -- call returns: one already applied here is at least as new as info
    -- (a resumed session's name from its history can beat the reply).
    state.sessions[info.id] = state.sessions[info.id] or info
    state.current = info.id
    require("claudenova.ui.transcript").ensure(info.id)
    require("claudenova.ui.sidebar").render()
  end
end

--- The request was answered by a gesture here: it leaves pending() at once,
--- before Go's event confirms it.
local function decided_here(id)
  local r = state.requests[id]
  if r then
    state.gone[id] = r
    state.requests[id] = nil
    scheduler.forget(id)
    notify.clear(id)
    require("claudenova.ui.sidebar").render()
  end
end

--- Decide a request. Returns true when it was answered, else false and why
--- (the request stays pending). Plans, questions and forms re-present
--- instead (Go enforces it too); so does a request claude asks to be
--- approved deliberately, from a sidebar key. Claude's hints may refuse the
--- answer (no lasting rule, no session-wide allow, not by a batch): Go
--- says why. On a proposal, allow applies the buffer as :w would, with the
--- user's edits. opts.rules and opts.destination: "Always…" (a rule from
--- now on). via: surface, sidebar, command or batch.
---@return boolean, string|nil
function M.decide(id, behavior, message, via, opts)
  opts = opts or {}
  local r = state.requests[id]
  if not r then
    return false, "that request is no longer pending"
  end
  via = via or "surface"
  if via ~= "surface" and OWN[r.surface] then
    M.present(id)
    return false, ("a %s needs its own answer: its surface is open"):format(r.surface == "elicit" and "form" or r.surface)
  end
  local res
  if r.surface == "proposal" and behavior ~= "deny" then
    res = require("claudenova.ui.proposal").apply(r, behavior, opts, via)
  else
    res = host().request("decide", {
      id = id, behavior = behavior, message = message, via = via,
      rules = opts.rules, destination = opts.destination,
    })
  end
  res = res or {}
  if res.warning then
    notify.warn(res.warning)
  end
  if res.decided then
    decided_here(id)
    return true
  end
  return false, res.reason or "not decided"
end

--- "Always…" for a request: the form, then the decision with its rule.
function M.always(id)
  local r = state.requests[id]
  if not r then
    notify.info("that request is no longer pending")
    return
  end
  if OWN[r.surface] then
    notify.info(("a %s needs its own answer, not a rule"):format(r.surface == "elicit" and "form" or r.surface))
    M.present(id)
    return
  end
  if (r.hints or {}).no_rules then
    notify.info(("claude asks that no lasting rule be made for this request (%s): allow or deny it once"):format(r.hints.why or ""))
    return
  end
  require("claudenova.ui.always").open(r, function(behavior, rule, destination)
    local ok, why = M.decide(id, behavior, nil, "command", { rules = { rule }, destination = destination })
    if ok then
      notify.info(("%s %s, and from now on: %s (%s)"):format(behavior == "allow" and "allowed" or "denied",
        r.target ~= "" and (r.tool .. " " .. r.target) or r.tool, rule, destination))
    elseif why then
      notify.info(why)
    end
  end)
end

--- Decide several requests (a selection of sidebar rows). Plans,
--- questions and forms are skipped (each needs its own answer), and so is
--- every request claude asks a person to answer (a safety check, the
--- user's own ask rule, a deliberate approval): a batch never allows
--- those. The message says what was skipped and why.
function M.decide_many(ids, behavior, message)
  local done, skipped, own, gone, refused, why_own = 0, 0, 0, 0, {}, nil
  local allow = behavior ~= "deny"
  for _, id in ipairs(ids) do
    local r = state.requests[id]
    local h = r and r.hints or {}
    if not r then
      gone = gone + 1
    elseif OWN[r.surface] then
      skipped = skipped + 1
    elseif allow and (h.human_only or h.deliberate) then
      own = own + 1
      why_own = why_own or h.why
    else
      local ok, why = M.decide(id, behavior, message, "batch")
      if ok then
        done = done + 1
      elseif why then
        table.insert(refused, why)
      end
    end
  end
  local msg = ("%s %d request%s"):format(verbs[behavior] or behavior, done, done == 1 and "" or "s")
  if own > 0 then
    msg = msg .. ("; %d skipped: %s, answer %s in its own panel"):format(own,
      why_own and why_own ~= "" and why_own or "claude asks for your own answer", own == 1 and "it" or "each")
  end
  if skipped > 0 then
    msg = msg .. ("; %d plan, question or form row%s skipped: they need their own answer"):format(skipped, skipped == 1 and "" or "s")
  end
  if #refused > 0 then
    msg = msg .. ("; %d not answered: %s"):format(#refused, refused[1])
  end
  if gone > 0 then
    msg = msg .. ("; %d no longer pending"):format(gone)
  end
  notify.info(msg)
end

--- Ask for an optional deny message, then deny.
function M.deny_with_message(id, via)
  local r = state.requests[id]
  if r and via ~= "surface" and OWN[r.surface] then
    M.present(id)
    return
  end
  vim.ui.input({ prompt = "Deny — message for Claude (optional): " }, function(msg)
    if msg == nil then
      return -- cancelled: nothing is answered
    end
    local ok, why = M.decide(id, "deny", msg ~= "" and msg or nil, via)
    if not ok and why then
      notify.warn(why)
    end
  end)
end

--- Open a request's surface because the user asked: at once, whole.
function M.present(id)
  local r = state.requests[id]
  if not r then
    notify.info("that request is no longer pending")
    return
  end
  if PICKER[r.surface] then
    -- A picker must not start inside the command that asked for it.
    vim.schedule(function()
      if state.requests[id] then
        show(state.requests[id], true)
      end
    end)
  else
    show(r, true)
  end
end

--- Run a decision on the request the user means (see ui.target).
function M.decide_target(behavior, message)
  require("claudenova.ui.target").resolve(function(id)
    local r = state.requests[id]
    local ok, why = M.decide(id, behavior, message, "command")
    if ok then
      notify.info(("%s %s%s"):format(verbs[behavior] or behavior, r.tool, r.target ~= "" and (" " .. r.target) or ""))
    elseif why then
      notify.info(why)
    end
  end, behavior == "deny" and "deny" or "allow")
end

function M.always_target()
  require("claudenova.ui.target").resolve(M.always, "make a rule for")
end

function M.review_target()
  require("claudenova.ui.target").resolve(function(id)
    local r = state.requests[id]
    if r.surface == "panel" then
      require("claudenova.ui.panel").open(r, { review = true, focus = true })
    else
      M.present(id)
    end
  end, "review")
end

--- Withdraw the last queued prompt of a session (claude has not taken it).
function M.withdraw_queued(session)
  local list = require("claudenova").queued(session)
  local q = list[#list]
  if not q then
    notify.info("no queued prompt: claude has taken every prompt")
    return
  end
  local ok, why = require("claudenova").cancel_queued(q.id)
  if ok then
    notify.info(("withdrawn: %s"):format(require("claudenova.ui.text").first_line(q.text, 60)))
  else
    notify.info(("not withdrawn: %s"):format(why))
  end
end

--- Open a waiting surface now (the user asked: no grace period): the
--- request of the sidebar row under the cursor, else the oldest waiting.
function M.focus_waiting()
  local here = require("claudenova.ui.sidebar").id_under_cursor()
  if here and scheduler.is_waiting(here) then
    return scheduler.open_now(here)
  end
  if not scheduler.open_now() then
    notify.info("no surface waits; <CR> on a row in :ClaudeNova opens a request")
  end
end

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

--- One line per session for pickers: "2 · fix the login test · running · acceptEdits".
function M.session_line(s)
  return ("%d · %s · %s · %s"):format(s.id, s.name or "", s.state or "", s.mode or "default")
end

function M.pick_session()
  local sessions = require("claudenova").sessions()
  if #sessions == 0 then
    notify.info("no sessions")
    return
  end
  vim.ui.select(sessions, {
    prompt = "Claude sessions",
    format_item = M.session_line,
  }, function(s)
    if s then
      require("claudenova.errors").guard(function()
        host().request("select", { session = s.id })
        state.current = s.id
        M.open_transcript(s.id, { focus = true })
      end)()
    end
  end)
end

--- Pick one of this folder's earlier sessions (from claude's own session
--- store) and continue it; its transcript shows the earlier conversation.
function M.pick_resume()
  local list = host().request("resumable", { cwd = vim.fn.getcwd() }) or {}
  if list.note then
    notify.warn(list.note)
  end
  local items = list.sessions or {}
  if #items == 0 then
    notify.info("no earlier sessions in this folder (claude's session store); :ClaudeNova resume {id} resumes by id")
    return
  end
  vim.ui.select(items, {
    prompt = "Resume which session?",
    format_item = function(s)
      if not s.known then
        return ("%s ago · %s"):format(s.ago, s.id)
      end
      local first = s.first_prompt or ""
      if s.title and s.title ~= "" and first ~= "" and first ~= s.title then
        return ("%s ago · %s · %s"):format(s.ago, s.name, first)
      end
      return ("%s ago · %s"):format(s.ago, s.name ~= "" and s.name or s.id)
    end,
  }, function(s)
    if s then
      require("claudenova.errors").guard(function()
        local info = require("claudenova").resume(s.id)
        M.open_transcript(info.id)
      end)()
    end
  end)
end

return M
