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
local hls = { [vim.log.levels.ERROR] = "ErrorMsg", [vim.log.levels.WARN] = "WarningMsg" }

-- Whether vim.notify is Neovim's own (it writes to the message history;
-- a notifier plugin replaces it).
local function builtin_notify()
  local info = debug.getinfo(vim.notify, "S")
  local src = info and info.source or ""
  return src == "?" or src:find("vim/_editor.lua", 1, true) ~= nil
end

-- Put the whole text into :messages without leaving it on screen (what is
-- shown is the line cut to the screen). execute() shows what it captures,
-- so it runs once the editor is settled (SafeState: a picker's list may
-- still be up now, and output then would need a hit-enter), then the screen
-- is redrawn and the cut line shown again.
local function keep_whole(msg, level, show)
  local function keep()
    local hl = hls[level] or "None"
    pcall(vim.fn.execute, ("echohl %s | echomsg %s | echohl None"):format(hl, vim.fn.string(msg)), "")
    pcall(vim.cmd, "redraw")
    if show then
      pcall(show)
    end
  end
  if vim.fn.exists("##SafeState") == 1 then
    vim.api.nvim_create_autocmd("SafeState", { once = true, callback = keep, desc = "claude-nova: keep a cut message whole in :messages" })
  else
    vim.defer_fn(keep, 50)
  end
end

--- Show msg (prefixed, one line). level: vim.log.levels. A message cut to
--- fit keeps its whole text in :messages (and the host log).
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  msg = tostring(msg)
  if not vim.startswith(msg, PREFIX) then
    msg = PREFIX .. msg
  end
  if vim.in_fast_event() then
    return vim.schedule(function() M.notify(msg, level) end)
  end
  -- Output still scrolled up in the message area (a pick from the built-in
  -- vim.ui.select) would turn even one line into a hit-enter prompt.
  pcall(vim.cmd, "redraw")
  local line = M.fit(msg)
  if line == msg then
    vim.notify(line, level, { title = "claude-nova" })
    return
  end
  host_log(names[level] or "info", msg)
  local whole = msg:gsub("%s*\n%s*", " · ")
  if builtin_notify() then
    -- Shown cut, kept whole (not a second time cut).
    local function show() vim.api.nvim_echo({ { line, hls[level] } }, false, {}) end
    show()
    keep_whole(whole, level, show)
  else
    -- A notifier plugin shows it its own way; :messages gets the whole
    -- (and the message line is cleared of what execute() showed).
    vim.notify(line, level, { title = "claude-nova" })
    keep_whole(whole, level, function() vim.api.nvim_echo({ { "" } }, false, {}) end)
  end
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
