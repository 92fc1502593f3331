-- The session operations of the front end: start, send, steer, stop,
-- interrupt, resume, rename, queued prompts and tasks. The public API
-- (claudenova) and the surfaces (through ui.actions) both use these, so a
-- session is started or sent to one way only. Errors are raised as plain
-- messages ("claude-nova: …").
local context = require("claudenova.services.context")
local disk = require("claudenova.services.disk")
local errors = require("claudenova.core.errors")
local host = require("claudenova.channel.host")
local inbox = require("claudenova.frontend.inbox")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")
local transcript = require("claudenova.surfaces.transcript")

local M = {}

local function plain(err)
  return (errors.message(err):gsub("^claude%-nova: ", ""))
end

--- A prompt started session id (none ran, or the one it was written for,
--- old, had exited): say so, and show its transcript where the old one was
--- shown.
function M.started_for_prompt(id, old)
  local s = old and state.sessions[old]
  if s and s.state == "exited" then
    -- What happened first: a narrow screen cuts the end.
    notify.info(
      ("new session %s: %s had exited (:ClaudeNova resume continues it)"):format(state.label(id), state.label(old))
    )
  else
    notify.info(("new session %s: no session ran"):format(state.label(id)))
  end
  transcript.open(id)
end

--- Bring a worktree session's branch into the checkout as proposals. The
--- checkout's buffers with unsaved edits go with the call: the merge takes
--- what the user sees as the checkout's side of those files.
--- session: a session's id, or a worktree's branch (worktree-NAME or
--- NAME) of the repository holding Neovim's folder, merged whether or not
--- its session runs. opts.apply = "clean": every file without a conflict
--- is applied at once (as :w of its proposal), the others stay proposals.
function M.merge(session, opts)
  local apply = opts and opts.apply or ""
  local res
  if type(session) == "string" and not tonumber(session) then
    res =
      host.request("merge_branch", { branch = session, cwd = vim.fn.getcwd(), unsaved = disk.unsaved(), apply = apply })
  else
    res = host.request("merge", { session = tonumber(session) or 0, unsaved = disk.unsaved(), apply = apply })
  end
  if apply ~= "" then
    res.applied, res.proposals, res.skipped = res.applied or {}, res.proposals or {}, res.skipped or {}
  end
  return res
end

--- The worktrees the plugin made for the repository holding cwd (default
--- Neovim's folder), also those whose session is gone: { path, branch,
--- base, session (0: none runs), merged, files } each.
function M.worktrees(cwd)
  return host.request("worktrees", { cwd = cwd or vim.fn.getcwd() })
end

--- Turn opts.worktree (true: named after the prompt, or "name") into what
--- the host takes (worktree, worktree_name); call names the API in errors.
function M.worktree_opts(call, opts)
  local wt = opts.worktree
  if wt ~= nil and wt ~= false and wt ~= true and type(wt) ~= "string" then
    error(("claude-nova: %s({ worktree = … }) takes true or a name, not %s"):format(call, type(wt)), 0)
  end
  opts.worktree = wt == true or (type(wt) == "string" and wt ~= "")
  opts.worktree_name = type(wt) == "string" and wt or nil
end

--- Start a session. opts: { prompt?, cwd?, mode?, resume?, model?,
--- worktree?, count? } (count: that many sessions on the prompt, each in a
--- worktree of its own; returns the first's info, then all of them).
function M.new(opts)
  opts = vim.deepcopy(opts or {})
  opts.cwd = opts.cwd or vim.fn.getcwd()
  local wt = opts.worktree
  M.worktree_opts("new", opts)
  local count = opts.count
  opts.count = nil
  if count ~= nil then
    if type(count) ~= "number" or count < 1 or count > 8 or count % 1 ~= 0 then
      error("claude-nova: new({ count = … }) takes a whole number from 1 to 8", 0)
    end
    if not opts.worktree then
      error("claude-nova: count starts several sessions on one prompt, each in its own worktree: add --worktree", 0)
    end
    if type(wt) == "string" then
      error(
        "claude-nova: with count the worktrees are named after the prompt (-2, -3, …): --worktree without a name",
        0
      )
    end
    -- Best of N: the same prompt, each session in a worktree of its own.
    -- Each attempt labelled apart ("fix-login #1", "#2"): the first names
    -- the group, the others join it.
    local infos = {}
    for i = 1, count do
      local o = vim.deepcopy(opts)
      if count > 1 then
        o.attempt = i
        o.group = infos[1] and infos[1].id or nil
      end
      infos[i] = host.request("new", o)
      inbox.session_started(infos[i])
    end
    return infos[1], infos
  end
  -- Its snapshot goes into the store once the reply came in the stream.
  local info = host.request("new", opts)
  inbox.session_started(info)
  return info
end

--- Send a prompt to a session (the current one; starts one if none). See
--- claudenova.send.
function M.send(prompt, opts)
  if type(opts) ~= "table" then
    opts = { session = opts }
  end
  local text = context.build(prompt or "", opts, context.cwd(opts.session))
  local before = vim.deepcopy(state.sessions)
  local prev = state.current
  local info = host.request("send", { prompt = text, session = opts.session or 0, cwd = vim.fn.getcwd() })
  inbox.session_started(info)
  if not before[info.id] then
    -- No session ran (the current one exited): this prompt started one.
    M.started_for_prompt(info.id, prev and before[prev] and prev)
  end
  return info
end

function M.stop(session)
  return host.request("stop", { session = session or 0 })
end

function M.interrupt(session)
  return host.request("interrupt", { session = session or 0 })
end

function M.steer(prompt, session)
  local text = context.build(prompt or "", { session = session }, context.cwd(session))
  return host.request("steer", { session = session or 0, prompt = text })
end

function M.rename(name, session)
  return host.request("rename", { session = session or 0, name = name })
end

--- Continue claude's session id; one that runs here already becomes the
--- current session.
function M.resume(id)
  local known = vim.deepcopy(state.sessions)
  local info = M.new({ resume = id })
  if known[info.id] then
    notify.info(("%s runs here already: it is the current session"):format(state.label(info.id)))
  end
  return info
end

function M.sessions()
  if not host.running() then
    return {}
  end
  return host.request("sessions") or {}
end

function M.queued(session)
  return host.request("queued", { session = session or 0 })
end

---@return boolean, string|nil
function M.cancel_queued(id)
  local ok, res = pcall(host.request, "cancel_queued", { id = id })
  if not ok then
    return false, plain(res)
  end
  if res and res.cancelled then
    return true
  end
  return false, res and res.why or "not withdrawn"
end

---@return boolean, string|nil
function M.stop_task(id)
  local ok, res = pcall(host.request, "stop_task", { id = id })
  if not ok then
    return false, plain(res)
  end
  return true
end

return M
