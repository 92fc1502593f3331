-- claude-nova.nvim: Claude Code in Neovim, every permission a decision you
-- take in the editor. This module is the public Lua API. Errors are raised
-- as plain messages ("claude-nova: …").
--
-- The front end's layers, lowest first, each a folder of lua/claudenova/ (a
-- module requires only its own layer or below; tests/lua/layers.lua lists
-- them, layers_spec.lua checks):
--   core       core/: text, errors, paths, version, render, split, picker, tabs
--   setup      setup/: config, notify, labels, highlights, install, register, away
--   channel    channel/host.lua: calls to the host and its one ordered stream
--   store      store/state.lua (what the host told us), store/actions.lua (gesture slots)
--   services   services/: calls (the surfaces' reads), scheduler, context, keys, disk, rescue, world, tools
--   surfaces   surfaces/: panel, proposal, sidebar, transcript, … (one file each)
--   frontend   frontend/: inbox (applies the stream), gestures (answer: the one door), ops, target, pickers, init
--   API        this module, commands, health
-- Entry (a command, a key) → API → front end → store → surfaces; the host's
-- stream → inbox → store → surfaces. A surface never requires the channel:
-- its answers go out through the front end's one door (actions.answer →
-- frontend.gestures.answer), its reads through services.calls.
local M = {}

M.version = require("claudenova.core.version")

--- Configure the plugin. Validates every option; errors name the option.
--- (lua/claudenova/core/types.lua describes the options for lua_ls.)
---@param opts? claudenova.Config
function M.setup(opts)
  local cfg = require("claudenova.setup.config").set(opts)
  require("claudenova.setup.highlights").setup()
  require("claudenova.setup.away").setup()
  local host = require("claudenova.channel.host")
  if host.running() then
    host.request("configure", require("claudenova.setup.config").host_options())
  end
  return cfg
end

-- The API loads the rest on first use (setup() at startup stays cheap).
local function host()
  return require("claudenova.channel.host")
end

local function ops()
  return require("claudenova.frontend.ops")
end

--- Run fn(...) so that the API calls in it wait for the host without
--- holding the editor (a coroutine that yields until each reply comes;
--- elsewhere a call that asks the host waits for its reply, at most 15 s).
--- Errors are shown as the plugin's messages.
function M.async(fn, ...)
  require("claudenova.core.gesture").run(fn, ...)
end

--- Start a session. opts: { prompt?, cwd?, mode?, resume?, model?,
--- worktree? = true | "name" } (worktree: claude works in a git worktree of
--- its own, .claude/worktrees/{name} on a branch worktree-{name}, named
--- after the prompt when true), count? = N (with worktree = true: N
--- sessions on the prompt, each in its own worktree; the first's info is
--- returned, then the list of all).
function M.new(opts)
  return ops().new(opts)
end

--- Bring a worktree session's branch into the checkout as proposals (the
--- current session by default; a branch's name merges that worktree whether
--- or not its session runs). Returns { session, branch, proposed,
--- conflicts, same, left, message (one line), details, files }.
--- opts.apply = "clean": every file without a conflict is applied at once,
--- each as :w of its proposal would (buffers follow, notes and blame record
--- it); conflicted files stay proposals. The result then also has
--- { applied = {paths…}, proposals = {paths…}, skipped = {paths…} }
--- (skipped: not brought over, e.g. binary files).
function M.merge(session, opts)
  return ops().merge(session, opts)
end

--- The worktrees the plugin made for the repository holding cwd, also those
--- whose session is gone: { path, branch, base, session, merged, files }.
function M.worktrees(cwd)
  return ops().worktrees(cwd)
end

--- Remove a merged worktree session's worktree and its branch; force: also
--- when some of its work was skipped. Returns what it did.
function M.merge_remove(session, force)
  if type(session) == "string" and not tonumber(session) then
    return host().request("merge_remove", { branch = session, cwd = vim.fn.getcwd(), force = force == true })
  end
  return host().request("merge_remove", { session = tonumber(session) or 0, force = force == true })
end

--- Draft the pull request of a worktree's branch: target is a session
--- number (default: the one in view) or a worktree's branch of the
--- repository holding Neovim's folder. Returns { id, session, branch, path,
--- root, base, remote, message, dirty = {files…}, commits, notes }; nothing
--- is committed or pushed until :w of the draft's buffer (:ClaudeNova pr).
function M.pr_draft(target)
  if type(target) == "string" and not tonumber(target) then
    return host().request("pr_draft", { branch = target, cwd = vim.fn.getcwd() })
  end
  return host().request(
    "pr_draft",
    { session = tonumber(target) or require("claudenova.frontend").session_in_view() or 0 }
  )
end

--- The authorship note of commit rev (default HEAD) of the repository
--- holding cwd (default: the current buffer's folder, else Neovim's):
--- { commit, found, lines } (lines: the note as a person reads it).
function M.provenance(rev, cwd)
  return host().request("provenance", { rev = rev or "", cwd = cwd or require("claudenova.surfaces.provenance").cwd() })
end

--- Push the authorship notes (refs/notes/ai) to remote (default: the
--- current branch's, else the only one); git runs in the background and
--- its outcome is told. Returns { done, message }.
function M.provenance_push(remote, cwd)
  return host().request(
    "provenance_push",
    { remote = remote or "", cwd = cwd or require("claudenova.surfaces.provenance").cwd() }
  )
end

--- Send a prompt to a session (the current one; starts one if none).
--- opts: a session number, or { session?, selection? = { path, from, to },
--- files? = { path, … } }: the selection goes after the prompt as an
--- @path#L reference with its text in a fenced block, files as @path
--- references; references queued with :ClaudeNova add go too. A buffer
--- with unsaved changes is sent as its text in the editor, saying so.
function M.send(prompt, opts)
  return ops().send(prompt, opts)
end

--- Queue a file reference (default: the current buffer's file) for the
--- next prompt. Returns the path as it will be sent.
function M.add(path)
  return require("claudenova.services.context").add(path)
end

--- Stop a session (current by default). Returns { done, message }.
--- Run claude's own terminal UI in a terminal window, each permission it
--- asks decided in the editor (proposals, the panel, the sidebar). opts:
--- { cwd?, args? (more arguments for claude), prompt?, mode?, model?,
--- worktree? = true | "name" (as new's) }.
--- Returns the session's id once claude runs (sessions() lists it with
--- kind = "tui"; stop() ends it).
function M.tui(opts)
  return require("claudenova.frontend.tui").open(opts)
end

function M.stop(session)
  return ops().stop(session)
end

--- Ask claude to end the current turn. Returns at once with
--- { done, message } ("nothing to interrupt" when no turn runs).
function M.interrupt(session)
  return ops().interrupt(session)
end

--- Switch the permission mode. Returns at once with { done, message }; the
--- switch is noted in the transcript when claude confirms it.
function M.set_mode(mode, session)
  return host().request("mode", { session = session or 0, mode = mode })
end

--- The models a session's claude offers (current by default):
--- { { value, name, description, effort_levels }, … } (empty until claude
--- has started).
function M.models(session)
  return host().request("models", { session = session or 0 })
end

--- Switch a session's model (a name from models(), or a model id). Returns
--- at once with { done, message }; claude checks the model first, the
--- switch is noted in the transcript (a refusal shown in claude's words).
function M.set_model(model, session)
  return host().request("set_model", { session = session or 0, model = model })
end

--- Set how much effort the model puts into the next replies (one of the
--- model's levels: low, medium, high, xhigh, max). Returns { done, message }.
function M.set_effort(level, session)
  return host().request("set_effort", { session = session or 0, effort = level })
end

--- A session's usage as claude reports it (get_usage: session cost and
--- tokens per model, and the plan's rate limits when known).
function M.usage(session)
  return host().request("usage", { session = session or 0 })
end

--- Prompts of a session (current by default) that claude has not taken
--- yet, sent while a turn ran: { { id, session, text }, … }.
function M.queued(session)
  return ops().queued(session)
end

--- Withdraw a queued prompt before claude takes it. Returns true, or
--- false and why ("already taken" when it was too late).
---@return boolean, string|nil
function M.cancel_queued(id)
  return ops().cancel_queued(id)
end

--- Interrupt the running turn of a session (current by default) and send
--- prompt at once. Returns { done, message }.
function M.steer(prompt, session)
  return ops().steer(prompt, session)
end

--- Name a session (current by default). Returns { done, message }.
function M.rename(name, session)
  return ops().rename(name, session)
end

--- Continue claude's session id. One that runs in this Neovim already is
--- not started twice: it becomes the current session.
function M.resume(id)
  return ops().resume(id)
end

--- The prompts of a session (current by default), oldest first, each with
--- what rewinding to before it would restore (claude's dry run):
--- { { id, n, prompt, time, files, insertions, deletions, error? }, … };
--- time in Unix seconds, files absolute paths.
function M.checkpoints(session)
  return host().request("checkpoints", { session = session or 0 })
end

--- Restore the files the session changed since prompt id (from
--- checkpoints()) to their state before it. Later changes by others
--- (another session, you) are kept, unless opts.undo_others (those sessions
--- are told). Open buffers are reloaded (unsaved edits kept in storage
--- first); Claude is told. Returns true, message or false, message.
function M.rewind(id, opts)
  local rewind = require("claudenova.surfaces.rewind")
  local ok, res = pcall(host().request, "rewind", rewind.args(id, nil, (opts or {}).undo_others))
  if not ok then
    return false, (require("claudenova.core.errors").message(res):gsub("^claude%-nova: ", ""))
  end
  return true, rewind.rewound(res, nil)
end

--- Open the changes view of a session's prompt (number or id; default:
--- the last prompt that changed a file).
function M.changes(session, turn)
  return require("claudenova.surfaces.changes").open(session, turn)
end

--- Sessions as plain tables: { id, name, state, mode, cwd, worktree?,
--- label?, … }; label tells the attempts of a best of N apart ("fix-login
--- #2", new --worktree --count=N).
function M.sessions()
  return ops().sessions()
end

--- Pending requests as plain tables: { id, session, tool, surface, target,
--- age, agent? }; agent = { id, type, description } when a subagent asks.
function M.pending()
  local out = {}
  local now = os.time() * 1000
  for _, r in ipairs(require("claudenova.frontend").state.order()) do
    table.insert(out, {
      id = r.id,
      session = r.session,
      tool = r.tool,
      surface = r.surface,
      target = r.target,
      age = math.max(0, math.floor((now - r.arrived) / 1000)),
      agent = r.agent and { id = r.agent.id, type = r.agent.type, description = r.agent.description } or nil,
    })
  end
  return out
end

--- The background tasks of a session (the current one by default): its
--- subagents and the commands claude runs in the background, oldest
--- first: { { id, session, type, description, status, started, ended?,
--- tool_use_id, last_tool?, subagent_type? } }. type is "agent", "shell", "setup" (a new worktree's setup, run by the plugin),
--- "monitor", …; status "running", "completed", "failed" or "stopped";
--- started and ended in Unix seconds.
function M.tasks(session)
  local state = require("claudenova.frontend").state
  local out = {}
  for _, t in ipairs(state.tasks[session or state.current or 0] or {}) do
    table.insert(out, {
      id = t.id,
      session = t.session,
      type = t.type,
      description = t.description,
      status = t.status,
      started = t.started,
      ended = t.ended,
      tool_use_id = t.tool_use_id,
      last_tool = t.last_tool,
      subagent_type = t.subagent_type,
    })
  end
  return out
end

--- The end of a task's output: a shell's (or monitor's) last 8 KiB as
--- claude keeps it, also after it ended; an agent's work as the transcript
--- shows it.
function M.task_output(id)
  return host().request("task_output", { id = id })
end

--- Stop a running task. Returns true once claude stopped it (its status
--- becomes "stopped"), else false and why.
---@return boolean, string|nil
function M.stop_task(id)
  return ops().stop_task(id)
end

--- Decide a request, or a list of requests (answered in order, each once).
--- decision: "allow" | "allow_session" | "allow_tool" | "allow_dir" |
--- "deny" or { behavior, message, interrupt, rules = { "Bash(npm test:*)" }, destination =
--- "session" | "localSettings" | "projectSettings" | "userSettings" }: with
--- rules, allow or deny from now on (an allow rule travels with the answer,
--- a deny rule is saved by the plugin).
--- Returns true when every request was answered; else false and why, and
--- the request stays pending. Claude's hints are obeyed here too: where it
--- asks that no lasting rule be made (a safety check such as rm -rf ~),
--- a decision with rules, "allow_session" or "allow_tool" is refused, and
--- "allow_session" is refused where there is nothing to allow for the
--- session. A decided request has left pending() when this returns. Plans,
--- questions and MCP forms are not answered here: their surface opens
--- instead. On a proposal, allow applies it as :w would (with the user's
--- edits).
---@return boolean, string|nil
function M.decide(id, decision)
  if type(decision) == "string" then
    decision = { behavior = decision }
  end
  if type(decision) ~= "table" or not decision.behavior then
    require("claudenova.core.errors").raise(
      'decide() needs a decision: "allow", "allow_session", "deny" or { behavior = … }'
    )
  end
  local ui = require("claudenova.frontend")
  local opts = { rules = decision.rules, destination = decision.destination, interrupt = decision.interrupt }
  if type(id) ~= "table" then
    return ui.decide(id, decision.behavior, decision.message, "command", opts)
  end
  local failed = {}
  for _, one in ipairs(id) do
    local ok, why = ui.decide(one, decision.behavior, decision.message, "command", opts)
    if not ok then
      table.insert(failed, ("%s: %s"):format(one, why))
    end
  end
  if #failed > 0 then
    return false, table.concat(failed, "; ")
  end
  return true
end

--- Deny a request and end its turn (a firm no: interrupt in the answer).
---@return boolean, string|nil
function M.deny_stop(id)
  return require("claudenova.frontend").decide(id, "deny", nil, "command", { interrupt = true })
end

--- The MCP servers of a session (the current one by default) as its
--- claude reports them: { { name, status, scope, source, transport,
--- command, error, tools, tool_names }, … }; status "connected",
--- "failed", "needs-auth", "pending" or "disabled".
function M.mcp(session)
  local v = host().request("mcp", { session = session or 0 })
  require("claudenova.services.world").update(v.world)
  return require("claudenova.services.world").servers(v.session)
end

--- The other Claude sessions of this machine, as last listed (while the
--- sidebar is shown): { { pid, id, cwd, kind, name, status, state,
--- blocked, attach }, … } (empty when not listed yet or agents.list is
--- false).
function M.others()
  local v = require("claudenova.services.world").others
  return vim.deepcopy(v and v.sessions or {})
end

--- The permission rules in effect for a session's folder (the current
--- session, or the current folder): { { rule, behavior, source, path,
--- session }, … }, source one of session (added for the session; claude
--- enforces them), localSettings, projectSettings, userSettings,
--- flagSettings (claude's --settings).
function M.rules(session)
  local v = host().request("rules", { session = session or 0, cwd = vim.fn.getcwd() }) or {}
  return v.rules or {}
end

--- Statusline component, naming the session of the oldest pending request
--- and its model: "fix the login test (sonnet): 2 pending", or "…: 2
--- pending (1 waiting)" while a surface waits for you to pause, then the
--- background tasks that run ("· 1 task"; alone: "1 task running"); empty
--- when none.
function M.status()
  local ok, ui = pcall(require, "claudenova.frontend")
  if not ok then
    return ""
  end
  local running = 0
  for _, list in pairs(ui.state.tasks) do
    for _, t in ipairs(list) do
      if t.status == "running" and not t.ambient then
        running = running + 1
      end
    end
  end
  local tasks = ("%d task%s"):format(running, running == 1 and "" or "s")
  local order = ui.state.order()
  local n = #order
  if n == 0 then
    return running > 0 and (tasks .. " running") or ""
  end
  local s = ui.state.sessions[order[1].session]
  local who = ""
  if s and s.name and s.name ~= "" then
    who = s.name .. ((s.model and s.model ~= "") and (" (" .. s.model .. ")") or "") .. ": "
  end
  local waiting = #require("claudenova.services.scheduler").waiting
  local out = ("%s%d pending"):format(who, n)
  if waiting > 0 then
    out = ("%s%d pending (%d waiting)"):format(who, n, waiting)
  end
  if running > 0 then
    out = out .. " · " .. tasks
  end
  return out
end

return M
