-- :ClaudeNova {sub}: one table drives dispatch, completion and help. Every
-- subcommand that acts on a request finds it with claudenova.ui.target;
-- every error reaches the user through claudenova.errors.
local M = {}

local function nova()
  return require("claudenova")
end

local function ui()
  return require("claudenova.ui")
end

local function say(msg)
  require("claudenova.ui.notify").info(msg)
end

-- Subcommands get their words and the raw text after the subcommand name, so
-- prompts keep their spacing.

---@type table<string, {desc: string, run: fun(args: string[], raw: string), complete?: fun(): string[]}>
M.subcommands = {
  new = {
    desc = "new [--plan] [prompt]: start a session in the current directory",
    run = function(args, raw)
      local mode
      if args[1] == "--plan" then
        mode = "plan"
        raw = raw:gsub("^%-%-plan%s*", "")
      end
      local info = nova().new({ prompt = raw, mode = mode })
      ui().open_transcript(info.id)
    end,
    complete = function() return { "--plan" } end,
  },
  send = {
    desc = "send {prompt}: send a prompt to the current session (starts one if none)",
    run = function(args, raw)
      if #args == 0 then
        ui().prompt()
        return
      end
      nova().send(raw)
    end,
  },
  sessions = {
    desc = "sessions: pick a session and open its transcript",
    run = function() ui().pick_session() end,
  },
  stop = {
    desc = "stop: stop the current session",
    run = function() say(nova().stop().message) end,
  },
  interrupt = {
    desc = "interrupt: end the current turn",
    run = function() say(nova().interrupt().message) end,
  },
  resume = {
    desc = "resume [id]: continue a session by its claude session id",
    run = function(args)
      if args[1] then
        local info = nova().resume(args[1])
        ui().open_transcript(info.id)
      else
        ui().pick_resume()
      end
    end,
  },
  mode = {
    desc = "mode {mode}: switch the current session's permission mode",
    run = function(args)
      if not args[1] then
        error("claude-nova: mode needs one of " .. table.concat(require("claudenova.config").modes, ", "), 0)
      end
      say(nova().set_mode(args[1]).message)
    end,
    complete = function() return require("claudenova.config").modes end,
  },
  allow = {
    desc = "allow: allow the request in view (surface or sidebar row), else pick one",
    run = function() ui().decide_target("allow") end,
  },
  ["allow-session"] = {
    desc = "allow-session: allow it, and this tool for the rest of the session",
    run = function() ui().decide_target("allow_session") end,
  },
  review = { desc = "review: show the full request in view, else pick one", run = function() ui().review_target() end },
  deny = {
    desc = "deny [message]: deny the request in view, else pick one; the message is shown to Claude",
    run = function(args, raw) ui().decide_target("deny", #args > 0 and raw or nil) end,
  },
  sidebar = { desc = "sidebar: toggle the sidebar", run = function() ui().toggle_sidebar() end },
  transcript = { desc = "transcript: open the current session's transcript", run = function() ui().open_transcript() end },
  log = {
    desc = "log: open the host log",
    run = function() vim.cmd.split(vim.fn.fnameescape(require("claudenova.host").log_path())) end,
  },
  build = { desc = "build: build the host binary with go build", run = function() require("claudenova.host").build() end },
}

function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

function M.run(opts)
  local args = vim.deepcopy(opts.fargs)
  local sub = table.remove(args, 1)
  local raw = (opts.args or ""):gsub("^%s*%S+%s?", "", 1)
  local guard = require("claudenova.errors").guard
  if not sub then
    guard(function() ui().toggle_sidebar() end)()
    return
  end
  local cmd = M.subcommands[sub]
  if not cmd then
    require("claudenova.ui.notify").error(("unknown subcommand %q (one of %s)"):format(sub, table.concat(M.names(), ", ")))
    return
  end
  guard(cmd.run)(args, raw)
end

function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+", { trimempty = false })
  if #words <= 2 then
    return vim.tbl_filter(function(n) return vim.startswith(n, arglead) end, M.names())
  end
  local cmd = M.subcommands[words[2]]
  if cmd and cmd.complete and #words == 3 then
    return vim.tbl_filter(function(n) return vim.startswith(n, arglead) end, cmd.complete())
  end
  return {}
end

return M
