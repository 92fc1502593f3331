-- The gesture API: what a key, a command or the Lua API does with a
-- request (decide, always, deny with a message, present it again, decide
-- many), with the target in view resolved by frontend.target.
local state = require("claudenova.store.state")
local notify = require("claudenova.setup.notify")
local scheduler = require("claudenova.services.scheduler")
local always = require("claudenova.surfaces.always")
local calls = require("claudenova.services.calls")
local host = require("claudenova.channel.host")
local ops = require("claudenova.frontend.ops")
local panel = require("claudenova.surfaces.panel")
local proposal = require("claudenova.surfaces.proposal")
local sidebar = require("claudenova.surfaces.sidebar")
local target = require("claudenova.frontend.target")
local text = require("claudenova.core.text")
local errors = require("claudenova.core.errors")

local inbox = require("claudenova.frontend.inbox")

local M = {}

local verbs = {
  allow = "allowed",
  allow_session = "allowed for the session",
  allow_tool = "allowed for the session (the whole tool)",
  allow_dir = "allowed with its folder for the session",
  deny = "denied",
}

--- The request was answered by a gesture here: it leaves pending() at once,
--- before Go's event confirms it.
local function decided_here(id)
  local r = state.requests[id]
  if r then
    state.gone[id] = r
    state.requests[id] = nil
    scheduler.forget(id)
    notify.clear(id)
    sidebar.render()
  end
end

--- A request this side does not hold: the host opens it if it is pending
--- after all, else says why not (in its words).
local function present_unknown(id)
  local ok, err = pcall(host.request, "present", { id = id })
  if not ok then
    notify.info(errors.message(err))
  end
end

--- The one door for answers: every decision on a request (a permission's
--- allow or deny, a question's answers, a plan, a form, a proposal saved,
--- applied or closed) leaves the front end here, whoever took it (a surface
--- through actions.answer, a command, the Lua API). kind: one of
--- services.calls.ANSWERS, which names the host method it goes out as;
--- payload: that method's arguments but the id. Returns the host's reply
--- (nil for the kinds sent without waiting: saved, wiped).
---@param id string
---@param kind string
---@param payload table|nil
function M.answer(id, kind, payload)
  local door = calls.ANSWERS[kind]
  if not door then
    error(("claude-nova: internal error: no answer of kind %s"):format(tostring(kind)), 2)
  end
  payload = payload or {}
  payload.id = id
  if door.note then
    host.notify(door.method, payload)
    return nil
  end
  return host.request(door.method, payload)
end

--- Decide a request. Returns true when it was answered, else false and why
--- (the request stays pending). A request only its surface answers (the
--- view's own: a plan, a question, a form) re-presents instead, with the
--- host's words (Go enforces it too); so does a request claude asks to be
--- approved deliberately, from a sidebar key. Claude's hints may refuse the
--- answer (no lasting rule, no session-wide allow, not by a batch): Go
--- says why, and so it does of a request no longer pending. On a proposal,
--- allow applies the buffer as :w would, with the user's edits. opts.rules
--- and opts.destination: "Always…" (a rule from now on). via: surface,
--- sidebar, command or batch.
---@return boolean, string|nil
function M.decide(id, behavior, message, via, opts)
  opts = opts or {}
  local r = state.requests[id]
  via = via or "surface"
  if r and via ~= "surface" and r.own then
    M.present(id)
    return false, r.own_refusal
  end
  local res
  if r and r.surface == "proposal" and behavior ~= "deny" then
    res = proposal.apply(r, behavior, opts, via)
  else
    res = M.answer(id, "decide", {
      behavior = behavior,
      message = message,
      via = via,
      rules = opts.rules,
      destination = opts.destination,
      interrupt = opts.interrupt,
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
    return present_unknown(id)
  end
  if r.no_always then
    -- The host says why (its surface answers it, claude's hints, a read
    -- outside the session's folders); a surface that answers itself opens.
    notify.info(r.no_always)
    if r.own then
      M.present(id)
    end
    return
  end
  -- Cancelled from the panel (which the form hid), the panel comes back:
  -- the request still waits for a choice.
  local from_panel = vim.b.claudenova_surface == "panel"
  always.open(r, function(behavior, rule, destination)
    local ok, why = M.decide(id, behavior, nil, "command", { rules = { rule }, destination = destination })
    if ok then
      notify.info(
        ("%s %s, and from now on: %s (%s)"):format(
          behavior == "allow" and "allowed" or "denied",
          r.target ~= "" and (r.tool .. " " .. r.target) or r.tool,
          rule,
          destination
        )
      )
    elseif why then
      notify.info(why)
    end
  end, function()
    if from_panel and state.requests[id] then
      M.present(id)
    end
  end)
end

--- Decide several requests (a selection of sidebar rows). Plans,
--- questions and forms are skipped (the view's own: each needs its own
--- answer), and so is every request the host says a batch may not allow
--- (no_batch_allow: a safety check, the user's own ask rule, a deliberate
--- approval). The message says what was skipped and why.
function M.decide_many(ids, behavior, message)
  local done, skipped, own, gone, refused, why_own = 0, 0, 0, 0, {}, nil
  local allow = behavior ~= "deny"
  for _, id in ipairs(ids) do
    local r = state.requests[id]
    local h = r and r.hints or {}
    if not r then
      gone = gone + 1
    elseif r.own then
      skipped = skipped + 1
    elseif allow and r.no_batch_allow then
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
    msg = msg
      .. ("; %d skipped: %s, answer %s in its own panel"):format(
        own,
        why_own and why_own ~= "" and why_own or "claude asks for your own answer",
        own == 1 and "it" or "each"
      )
  end
  if skipped > 0 then
    msg = msg
      .. ("; %d plan, question or form row%s skipped: they need their own answer"):format(
        skipped,
        skipped == 1 and "" or "s"
      )
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
  if r and via ~= "surface" and r.own then
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
    return present_unknown(id)
  end
  if inbox.PICKER[r.surface] then
    -- A picker must not start inside the command that asked for it.
    vim.schedule(function()
      if state.requests[id] then
        inbox.show(state.requests[id], true)
      end
    end)
  else
    inbox.show(r, true)
  end
end

--- Deny and stop: a deny that also ends the turn (interrupt: true in the
--- answer), so Claude does not try again what the user firmly refused. The
--- CLI tells the model its own words then ("The user doesn't want to
--- proceed… STOP what you are doing and wait for the user to tell you how
--- to proceed"), so no message is asked for. Every surface has it: the
--- panel, a proposal, a plan, a sidebar row, :ClaudeNova deny-stop and the
--- Lua API. via: surface, sidebar or command.
---@return boolean, string|nil
function M.deny_stop(id, via)
  local r = state.requests[id]
  local ok, why = M.decide(id, "deny", nil, via or "surface", { interrupt = true })
  if ok and r then
    notify.info(
      ("denied %s%s and stopped the turn of %s"):format(
        r.tool,
        r.target ~= "" and (" " .. r.target) or "",
        state.session_label(r)
      )
    )
  elseif why then
    notify.tagged(why, id)
  end
  return ok, why
end

--- :ClaudeNova deny-stop: the request in view (see frontend.target).
function M.deny_stop_target()
  target.resolve(function(id)
    M.deny_stop(id, "command")
  end, "deny and stop")
end

--- Run a decision on the request the user means (see frontend.target).
function M.decide_target(behavior, message)
  target.resolve(function(id)
    local r = state.requests[id]
    local ok, why = M.decide(id, behavior, message, "command")
    if ok then
      notify.info(("%s %s%s"):format(verbs[behavior] or behavior, r.tool, r.target ~= "" and (" " .. r.target) or ""))
    elseif why then
      notify.tagged(why, id) -- leaves the message line with the request
    end
  end, behavior == "deny" and "deny" or "allow")
end

function M.always_target()
  target.resolve(M.always, "make a rule for")
end

function M.review_target()
  target.resolve(function(id)
    local r = state.requests[id]
    if r.surface == "panel" then
      panel.open(r, { review = true, focus = true })
    else
      M.present(id)
    end
  end, "review")
end

--- Withdraw the last queued prompt of a session (claude has not taken it).
function M.withdraw_queued(session)
  local list = ops.queued(session)
  local q = list[#list]
  if not q then
    notify.info("no queued prompt: claude has taken every prompt")
    return
  end
  local ok, why = ops.cancel_queued(q.id)
  if ok then
    notify.info(("withdrawn: %s"):format(text.first_line(q.text, 60)))
  else
    notify.info(("not withdrawn: %s"):format(why))
  end
end

--- Open a waiting surface now (the user asked: no grace period): the
--- request of the sidebar row under the cursor, else the oldest waiting.
function M.focus_waiting()
  local here = sidebar.id_under_cursor()
  if here and scheduler.is_waiting(here) then
    return scheduler.open_now(here)
  end
  if not scheduler.open_now() then
    notify.info("nothing waits: <CR> on a sidebar row opens it")
  end
end

return M
