-- :ClaudeNova {sub}: one table drives dispatch, completion and help.
local M = {}

local function nova()
  return require("claudenova")
end

local function ui()
  return require("claudenova.ui")
end

-- Subcommands get their words and the raw text after the subcommand name, so
-- prompts keep their spacing.

---@type table<string, {desc: string, run: fun(args: string[]), complete?: fun(): string[]}>
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
  stop = { desc = "stop: stop the current session", run = function() nova().stop() end },
  interrupt = { desc = "interrupt: end the current turn", run = function() nova().interrupt() end },
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
        error("claudenova: mode needs one of " .. table.concat(require("claudenova.config").modes, ", "), 0)
      end
      nova().set_mode(args[1])
    end,
    complete = function() return require("claudenova.config").modes end,
  },
  allow = { desc = "allow: allow the request under the cursor (sidebar) or the oldest", run = function() ui().decide_target("allow") end },
  ["allow-session"] = { desc = "allow-session: allow this tool for the session", run = function() ui().decide_target("allow_session") end },
  review = { desc = "review: show the full request", run = function() ui().review_target() end },
  deny = {
    desc = "deny [message]: deny the request under the cursor (sidebar) or the oldest",
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
  if not sub then
    local ok, err = pcall(ui().toggle_sidebar)
    if not ok then
      vim.notify(tostring(err), vim.log.levels.ERROR)
    end
    return
  end
  local cmd = M.subcommands[sub]
  if not cmd then
    vim.notify(("claudenova: unknown subcommand %q (one of %s)"):format(sub, table.concat(M.names(), ", ")), vim.log.levels.ERROR)
    return
  end
  local ok, err = pcall(cmd.run, args, raw)
  if not ok then
    vim.notify(tostring(err), vim.log.levels.ERROR)
  end
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
