-- Every message to the user goes through here: one prefix, one screen line
-- at any width (no "Press ENTER"), the whole text kept in the host log.
local M = {}

local PREFIX = "claude-nova: "

local function host_log(level, msg)
  local host = package.loaded["claudenova.host"]
  if host and host.running() then
    pcall(host.notify, "log", { level = level, msg = msg })
  end
end

-- Whether the ruler is drawn in the command line (no status line for the
-- current window): a message there must stop before it.
local function ruler_in_cmdline()
  if not vim.o.ruler then
    return false
  end
  local ls = vim.o.laststatus
  if vim.api.nvim_win_get_config(0).relative ~= "" then
    return true -- a float has no status line
  end
  return ls == 0 or (ls == 1 and #vim.api.nvim_tabpage_list_wins(0) == 1)
end

--- The screen cells a message may use without a hit-enter prompt and
--- without running into the ruler.
local function room()
  local space = vim.v.echospace
  if type(space) ~= "number" or space <= 0 then
    space = vim.o.columns - 12
  end
  if ruler_in_cmdline() then
    space = math.min(space, vim.o.columns - 18 - (vim.o.showcmd and 11 or 0))
  end
  return math.max(20, math.min(space, vim.o.columns - 1) - 1)
end

--- msg on one line, cut with … to fit width cells.
function M.fit(msg, width)
  msg = tostring(msg):gsub("%s*\n%s*", " · "):gsub("%c", " ")
  return require("claudenova.ui.text").cut(msg, width or room())
end

local names = { [vim.log.levels.ERROR] = "error", [vim.log.levels.WARN] = "warn" }

--- Show msg (prefixed, one line). level: vim.log.levels.
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  msg = tostring(msg)
  if not vim.startswith(msg, PREFIX) then
    msg = PREFIX .. msg
  end
  local line = M.fit(msg)
  if line ~= msg then
    host_log(names[level] or "info", msg)
  end
  -- Output still scrolled up in the message area (a pick from the built-in
  -- vim.ui.select) would turn even one line into a hit-enter prompt.
  if not vim.in_fast_event() then
    pcall(vim.cmd, "redraw")
  end
  vim.notify(line, level, { title = "claude-nova" })
end

function M.info(msg)
  M.notify(msg, vim.log.levels.INFO)
end

function M.warn(msg)
  M.notify(msg, vim.log.levels.WARN)
end

--- Show an error (any value: it is cleaned by claudenova.errors).
function M.error(err)
  M.notify(require("claudenova.errors").message(err), vim.log.levels.ERROR)
end

return M
