-- The event inbox: the Go host calls apply with a batch of events (a
-- session changed, a request arrived, is to be shown, was decided or
-- withdrawn, transcript lines, notes). The events are numbered by their one
-- writer (the host's outbox): they are applied in that order, whatever order
-- the batches come in (a batch ahead of a missing one waits for it), each
-- once: that is the one order. The host never leaves a gap: what it could
-- not deliver comes back at its numbers as a resync, and the front end asks
-- for the state again (handlers.resync). Each handler updates the store
-- (ui.state) and the surfaces read it.
-- Nothing here calls the host synchronously (it is answering a call from
-- the host: see host.in_apply).
local state = require("claudenova.store.state")
local working = require("claudenova.services.working")
local away = require("claudenova.setup.away")
local notify = require("claudenova.setup.notify")
local scheduler = require("claudenova.services.scheduler")
local complete = require("claudenova.surfaces.complete")
local config = require("claudenova.setup.config")
local disk = require("claudenova.services.disk")
local elicit = require("claudenova.surfaces.elicit")
local errors = require("claudenova.core.errors")
local host = require("claudenova.channel.host")
local panel = require("claudenova.surfaces.panel")
local plan = require("claudenova.surfaces.plan")
local proposal = require("claudenova.surfaces.proposal")
local question = require("claudenova.surfaces.question")
local rules = require("claudenova.surfaces.rules")
local sidebar = require("claudenova.surfaces.sidebar")
local task_view = require("claudenova.surfaces.tasks")
local text = require("claudenova.core.text")
local transcript = require("claudenova.surfaces.transcript")
local world = require("claudenova.services.world")
local comments = require("claudenova.surfaces.comments")
local merged = require("claudenova.surfaces.merged")
local compare = require("claudenova.surfaces.compare")

local function cfg()
  return config.get()
end

local M = {}

M.SURFACES = { "panel", "proposal", "question", "plan", "elicit" }

local surfaces = {
  panel = panel,
  proposal = proposal,
  question = question,
  plan = plan,
  elicit = elicit,
}

-- The surfaces that open as pickers (never inside a call from Go). Which
-- requests only their surface answers is the host's to say (a view's own).
M.PICKER = { question = true, elicit = true }

-- The User event of a request, for the user's autocommands. Only when
-- there is one: the request is copied into the event's data and out again
-- for every listener, which made a tenth of a Bash panel's time.
local function fire(pattern, data)
  if vim.fn.exists("#User#" .. pattern) == 1 then
    vim.api.nvim_exec_autocmds("User", { pattern = pattern, data = data, modeline = false })
  end
end

-- Requests whose surface waits for a pause, with what was said of them:
-- entering insert mode later (-- INSERT -- covers the message line) pins
-- the line above the status line too, until the surface opens.
M.waiting_msg = {} ---@type table<string, string>
local mode_watch

local function watch_mode()
  if mode_watch then
    return
  end
  mode_watch = vim.api.nvim_create_autocmd("ModeChanged", {
    group = vim.api.nvim_create_augroup("ClaudeNovaWaitingNotice", { clear = true }),
    desc = "claude-nova: keep a waiting surface's notice in sight while the mode message covers the message line",
    callback = function()
      local covered = notify.covered()
      for id, msg in pairs(M.waiting_msg) do
        if not state.requests[id] then
          M.waiting_msg[id] = nil
          notify.unpin(id)
        elseif covered then
          notify.pin(id, msg)
        else
          notify.unpin(id)
        end
      end
    end,
  })
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
    M.waiting_msg[r.id] = msg
    watch_mode()
    if notify.covered() then
      -- -- INSERT -- covers the message line: say it above the status line
      -- until the surface opens (:messages has it too).
      notify.pin(r.id, msg)
    end
    notify.tagged(msg, r.id)
    return
  end
  local key = text.key
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
    how = ("%s accept edits, %s approve, %s keep planning"):format(
      key(k.accept_edits),
      key(k.approve),
      key(k.keep_planning)
    )
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

local handlers = {}

-- What the first request would pay for once, done while the first
-- session's claude starts (it takes a few hundred ms to ask anything):
-- Neovim's filetype tables (a proposal's first filetype match, 3 ms) and
-- the panel's buffer. Never at Neovim's start: only once a session runs.
local warmed = false
local function warm()
  if warmed then
    return
  end
  warmed = true
  vim.schedule(function()
    errors.try(vim.filetype.match, { filename = "claudenova-warm.txt" })
    errors.try(panel.prepare)
  end)
end

-- A session's state: what the sidebar and the surfaces read.
local function session_state(info)
  warm()
  disk.watch_saves()
  state.sessions[info.id] = info
  working.session(info.id)
end

-- Its transcript's buffer and title.
function handlers.session_views(info)
  transcript.ensure(info.id)
  transcript.session_changed(info.id)
end

function handlers.session(info)
  session_state(info)
  handlers.session_views(info)
end

function handlers.session_removed(data)
  state.sessions[data.session] = nil
  compare.changed()
  if state.current == data.session then
    state.current = nil
  end
  transcript.forget(data.session)
end

function handlers.transcript(data)
  transcript.apply(data.session, data.ops)
end

-- The host says what it could not tell: a transcript's updates (fetched
-- again), or events it could not deliver (everything asked again, once).
local refresh_due = false
function handlers.resync(data)
  if data.session then
    transcript.resync(data.session, data.seq)
    return
  end
  if not refresh_due then
    refresh_due = true
    errors.log("warn", "the host could not deliver some events: asking for the state again")
    vim.schedule(function()
      refresh_due = false
      M.refresh()
    end)
  end
end

function handlers.request_added(r)
  if state.gone[r.id] then
    return
  end
  state.requests[r.id] = r
  away.added(r)
  fire("ClaudeNovaRequestAdded", r)
end

--- Remove every trace of a request on this side.
local function drop(id, outcome)
  local r = state.requests[id] or state.gone[id]
  state.requests[id] = nil
  scheduler.forget(id)
  -- Its announcement leaves the message line with it (when still shown).
  notify.clear(id)
  for _, mod in ipairs(M.SURFACES) do
    -- One surface that fails leaves the others to withdraw; it is logged.
    local ok, err = pcall(surfaces[mod].withdraw, id, outcome)
    if not ok then
      errors.dropped(err, mod .. ".withdraw " .. id, "error")
    end
  end
  if r and r.prepared then
    proposal.unprepare(r.prepared) -- read before it came, and never opened
  end
  return r
end

function handlers.request_removed(data)
  M.waiting_msg[data.id] = nil
  notify.unpin(data.id)
  local r = drop(data.id, data.outcome)
  state.gone[data.id] = nil
  away.decided(data.id)
  fire("ClaudeNovaRequestDecided", { id = data.id, session = data.session, outcome = data.outcome, request = r })
end

--- Open the surface of r, now or when the editor is idle. The arrival is
--- announced once, measured against the screen it will be read on: after
--- the surface opened (a float moves the ruler into the command line), but
--- before a picker, which takes the screen until answered.
function M.show(r, asked)
  local mod = surfaces[r.surface]
  if not mod then
    return
  end
  local tell = not r.announced and not asked
  r.announced = true
  if tell and M.PICKER[r.surface] then
    announce(r, scheduler.busy() ~= nil)
    tell = false
  end
  local queued = false
  local opened = scheduler.show(r.id, function(how)
    local cur = state.requests[r.id]
    M.waiting_msg[r.id] = nil
    notify.unpin(r.id)
    if cur then
      mod.open(cur, how)
      if queued and r.surface ~= "question" then
        -- It waited: "waits until you pause" is stale now; say what to do.
        announce(cur, false)
      end
    end
  end, asked, M.PICKER[r.surface])
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
  if r.as_added then
    -- The request just added (request_added, earlier in the stream).
    if not known then
      return -- not delivered: the resync that follows shows it
    end
    r = known
  elseif known then
    r.announced = known.announced
  end
  state.requests[r.id] = r
  if M.PICKER[r.surface] then
    -- Pickers may block (inputlist): never inside Go's call.
    vim.schedule(function()
      if state.requests[r.id] then
        M.show(state.requests[r.id], false)
      end
    end)
  else
    M.show(r, false)
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
  proposal.rebase(data)
end

function handlers.proposal_prepare(data)
  if state.gone[data.id] then
    return
  end
  proposal.prepare(data.id, data.path)
end

function handlers.proposal_unprepare(data)
  proposal.unprepare(data.id)
end

function handlers.tasks(data)
  state.tasks[data.session] = data.tasks or {}
  task_view.changed()
end

function handlers.rules(view)
  rules.update(view)
end

function handlers.mark(data)
  host.reply_seen(data)
end

function handlers.completion(data)
  complete.completed(data)
end

function handlers.file_written(data)
  disk.written(data.path, data.took_unsaved == true)
end

function handlers.world(data)
  world.update(data)
end

function handlers.agents(data)
  world.agents(data)
end

function handlers.review(data)
  comments.changed(data)
end

function handlers.merge_done(data)
  merged.offer(data)
  -- A branch merged or removed: an open comparison follows.
  compare.changed()
end

-- The stream's next number, the events that came ahead of it, and the host
-- they belong to (a new host numbers from 1 again).
local next_seq, ahead, epoch = 1, {}, nil

--- Called by the Go host with a JSON batch of events.
function M.apply(batch)
  host.in_apply = true
  local ok, err = pcall(M._apply, batch)
  host.in_apply = false
  if not ok then
    notify.error(err)
  end
end

--- The events of a batch that are due, in the stream's order: this batch's
--- and those that waited for it.
local function due(events)
  if epoch ~= host.epoch then
    epoch, next_seq, ahead = host.epoch, 1, {}
  end
  local out = {}
  for _, ev in ipairs(events) do
    if type(ev.seq) ~= "number" then
      table.insert(out, ev) -- unnumbered (a test's): as it comes
    elseif ev.seq >= next_seq then
      ahead[ev.seq] = ev -- a repeat (below next_seq) is dropped
    end
  end
  while ahead[next_seq] do
    table.insert(out, ahead[next_seq])
    ahead[next_seq] = nil
    next_seq = next_seq + 1
  end
  return out
end

--- Ask the host for its whole state again: its sessions, its pending
--- requests (one this side missed is added, one it no longer has leaves),
--- and every transcript.
function M.refresh()
  local ok, infos = pcall(host.request, "sessions")
  if ok then
    for _, info in ipairs(infos or {}) do
      errors.try(handlers.session, info)
    end
  end
  local pok, pending = pcall(host.request, "pending")
  if pok then
    local live = {}
    for _, r in ipairs(pending or {}) do
      live[r.id] = true
      if not state.requests[r.id] then
        errors.try(handlers.request_added, r)
        errors.try(M.show, state.requests[r.id] or r)
      end
    end
    for id in pairs(state.requests) do
      if not live[id] then
        drop(id, "gone")
      end
    end
  end
  for id in pairs(state.sessions) do
    transcript.resync(id)
  end
  sidebar.render()
end

--- The stream's state, for tests and :checkhealth: the next number due
--- and how many events wait ahead of it.
function M.stream_state()
  local n = 0
  for _ in pairs(ahead) do
    n = n + 1
  end
  return { next = next_seq, ahead = n }
end

--- Start the stream over (a fresh host; tests).
function M.reset_stream()
  next_seq, ahead, epoch = 1, {}, host.epoch
end

-- What a batch that shows a surface leaves for after the screen showed it
-- (its transcript text, its sessions' transcript titles): applied by a
-- timer, whose callback runs after Neovim's next redraw (a scheduled one
-- runs before it), and before anything that comes later. The surface and
-- its sidebar row are what the user waits for; these are not.
local after_screen = {}
local after_timer

-- Run a handler of event name; an error is told, named by the event.
local function handle(name, fn, data)
  local ok, err = pcall(fn, data)
  if not ok then
    notify.error(name .. ": " .. errors.message(err):gsub("^claude%-nova: ", ""))
  end
end

local function flush_after_screen()
  local held = after_screen
  after_screen = {}
  for _, ev in ipairs(held) do
    handle(ev.event, handlers[ev.event], ev.data)
  end
end

-- Whether events open a surface now (a picker waits for vim.schedule).
local function shows(events)
  local added = {}
  for _, ev in ipairs(events) do
    if type(ev.data) == "table" and ev.event == "request_added" then
      added[ev.data.id] = ev.data
    elseif type(ev.data) == "table" and ev.event == "present" then
      local r = ev.data.as_added and (added[ev.data.id] or state.requests[ev.data.id]) or ev.data
      if r and not M.PICKER[r.surface] then
        return true
      end
    end
  end
  return false
end

function M._apply(batch)
  if #after_screen > 0 then
    flush_after_screen()
  end
  local events = due(vim.json.decode(batch, { luanil = { object = true, array = true } }))
  local hold = shows(events)
  local sidebar_dirty = false
  for _, ev in ipairs(events) do
    local h = handlers[ev.event]
    if hold and ev.event == "transcript" then
      table.insert(after_screen, ev)
    elseif hold and ev.event == "session" then
      handle("session", session_state, ev.data)
      table.insert(after_screen, { event = "session_views", data = ev.data })
      sidebar_dirty = true
    elseif h then
      handle(ev.event, h, ev.data)
      -- Transcript text does not change the sidebar: skip the redraw.
      sidebar_dirty = sidebar_dirty or (ev.event ~= "transcript" and ev.event ~= "resync")
    end
  end
  if sidebar_dirty then
    sidebar.render()
  end
  if #after_screen > 0 then
    after_timer = after_timer or vim.uv.new_timer()
    after_timer:start(
      0,
      0,
      vim.schedule_wrap(function()
        host.in_apply = true
        local ok, err = pcall(flush_after_screen)
        host.in_apply = false
        if not ok then
          notify.error(err)
        end
      end)
    )
  end
end

--- The host died: everything it owned is gone (sessions, transcripts,
--- requests). The next command starts a fresh host that numbers its sessions
--- from 1 again, so nothing of the old one may linger here.
function M.host_lost(code)
  after_screen = {}
  local n = 0
  for id in pairs(state.requests) do
    n = n + 1
    drop(id, "lost")
  end
  scheduler.reset()
  task_view.host_lost()
  transcript.host_lost()
  world.reset()
  state.reset()
  sidebar.render()
  notify.error(
    ("the host stopped unexpectedly (exit %d); %d pending request(s) were lost. The next :ClaudeNova command starts a fresh host; see :ClaudeNova log"):format(
      code,
      n
    )
  )
end

function M.session_started(info)
  if info and info.id then
    -- The reply comes in the stream (see host.request), but its snapshot
    -- was taken when the host answered: a session event before it was
    -- read as it was delivered, later than that, and every change after it
    -- sends another. So the reply only fills in a session no event has
    -- told of yet; it never takes a newer state back.
    if not state.sessions[info.id] then
      state.sessions[info.id] = info
    end
    state.current = info.id
    transcript.ensure(info.id)
    sidebar.render()
  end
end

return M
