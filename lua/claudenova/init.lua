-- claude-nova.nvim: Claude Code in Neovim, every permission a decision you
-- take in the editor. This module is the public Lua API. Errors are raised
-- as plain messages ("claude-nova: …").
local M = {}

M.version = require("claudenova.version")

--- Configure the plugin. Validates every option; errors name the option.
---@param opts table|nil
function M.setup(opts)
  local cfg = require("claudenova.config").set(opts)
  require("claudenova.highlights").setup()
  local host = require("claudenova.host")
  if host.running() then
    host.request("configure", require("claudenova.config").host_options())
  end
  return cfg
end

local function host()
  return require("claudenova.host")
end

--- Start a session. opts: { prompt?, cwd?, mode?, resume?, model? }
function M.new(opts)
  opts = opts or {}
  opts.cwd = opts.cwd or vim.fn.getcwd()
  local info = host().request("new", opts)
  require("claudenova.ui").session_started(info)
  return info
end

--- Send a prompt to a session (the current one; starts one if none).
--- opts: a session number, or { session?, selection? = { path, from, to },
--- files? = { path, … } }: the selection goes after the prompt as an
--- @path#L reference with its text in a fenced block, files as @path
--- references; references queued with :ClaudeNova add go too. A buffer
--- with unsaved changes is sent as its text in the editor, saying so.
function M.send(prompt, opts)
  if type(opts) ~= "table" then
    opts = { session = opts }
  end
  local context = require("claudenova.context")
  local text = context.build(prompt or "", opts, context.cwd(opts.session))
  local info = host().request("send", { prompt = text, session = opts.session or 0, cwd = vim.fn.getcwd() })
  require("claudenova.ui").session_started(info)
  return info
end

--- Queue a file reference (default: the current buffer's file) for the
--- next prompt. Returns the path as it will be sent.
function M.add(path)
  return require("claudenova.context").add(path)
end

--- Stop a session (current by default). Returns { done, message }.
function M.stop(session)
  return host().request("stop", { session = session or 0 })
end

--- Ask claude to end the current turn. Returns at once with
--- { done, message } ("nothing to interrupt" when no turn runs).
function M.interrupt(session)
  return host().request("interrupt", { session = session or 0 })
end

--- Switch the permission mode. Returns at once with { done, message }; the
--- switch is noted in the transcript when claude confirms it.
function M.set_mode(mode, session)
  return host().request("mode", { session = session or 0, mode = mode })
end

--- Name a session (current by default). Returns { done, message }.
function M.rename(name, session)
  return host().request("rename", { session = session or 0, name = name })
end

function M.resume(id)
  return M.new({ resume = id })
end

--- The prompts of a session (current by default), oldest first, each with
--- what rewinding to before it would restore (claude's dry run):
--- { { id, n, prompt, time, files, insertions, deletions, error? }, … };
--- time in Unix seconds, files absolute paths.
function M.checkpoints(session)
  return host().await("checkpoints", { session = session or 0 })
end

--- Restore the files to their state before prompt id (from checkpoints()).
--- Open buffers are reloaded (unsaved edits kept in storage first); Claude
--- is told. Returns true, message or false, message.
function M.rewind(id)
  local started, answered, ok, msg = pcall(host().wait, function(cb)
    require("claudenova.ui.rewind").rewind(id, nil, cb)
  end, 15000)
  if not started then
    return false, (require("claudenova.errors").message(answered):gsub("^claude%-nova: ", ""))
  end
  if not answered then
    return false, "claude did not answer in time"
  end
  return ok, msg
end

--- Open the changes view of a session's prompt (number or id; default:
--- the last prompt that changed a file).
function M.changes(session, turn)
  return require("claudenova.ui.changes").open(session, turn)
end

--- Sessions as plain tables.
function M.sessions()
  if not host().running() then
    return {}
  end
  return host().request("sessions") or {}
end

--- Pending requests as plain tables: { id, session, tool, surface, target, age }.
function M.pending()
  local out = {}
  local now = os.time() * 1000
  for _, r in ipairs(require("claudenova.ui").state.order()) do
    table.insert(out, {
      id = r.id,
      session = r.session,
      tool = r.tool,
      surface = r.surface,
      target = r.target,
      age = math.max(0, math.floor((now - r.arrived) / 1000)),
    })
  end
  return out
end

--- Decide a request, or a list of requests (answered in order, each once).
--- decision: "allow" | "allow_session" | "allow_tool" | "deny" or
--- { behavior, message, rules = { "Bash(npm test:*)" }, destination =
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
    require("claudenova.errors").raise("decide() needs a decision: \"allow\", \"allow_session\", \"deny\" or { behavior = … }")
  end
  local ui = require("claudenova.ui")
  local opts = { rules = decision.rules, destination = decision.destination }
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

--- The permission rules in effect for a session's folder (the current
--- session, or the current folder): { { rule, behavior, source, path,
--- session }, … }, source one of session (added for the session; claude
--- enforces them), localSettings, projectSettings, userSettings,
--- flagSettings (claude's --settings).
function M.rules(session)
  local v = host().request("rules", { session = session or 0, cwd = vim.fn.getcwd() }) or {}
  return v.rules or {}
end

--- Statusline component, naming the session of the oldest pending request:
--- "fix the login test: 2 pending", or "…: 2 pending (1 waiting)" while a
--- surface waits for you to be back in normal mode; empty when none.
function M.status()
  local ok, ui = pcall(require, "claudenova.ui")
  if not ok then
    return ""
  end
  local order = ui.state.order()
  local n = #order
  if n == 0 then
    return ""
  end
  local s = ui.state.sessions[order[1].session]
  local who = s and s.name and s.name ~= "" and (s.name .. ": ") or ""
  local waiting = #require("claudenova.ui.scheduler").waiting
  if waiting > 0 then
    return ("%s%d pending (%d waiting)"):format(who, n, waiting)
  end
  return ("%s%d pending"):format(who, n)
end

return M
