-- Every message to the user goes through here: one prefix, one screen line
-- at any width (no "Press ENTER"), the whole text kept in the host log.
local errors = require("claudenova.core.errors")
local text = require("claudenova.core.text")

local M = {}

local PREFIX = "claude-nova: "

-- A message's whole text is kept in the host's log (errors.log: the
-- channel writes it there).
local function host_log(level, msg)
  errors.log(level, msg)
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

--- The cells a message may take now (see room()).
function M.room()
  return room()
end

--- msg on one line, cut with … to fit width cells.
function M.fit(msg, width)
  msg = tostring(msg):gsub("%s*\n%s*", " · "):gsub("%c", " ")
  return text.cut(msg, width or room())
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
    errors.try(vim.fn.execute, ("echohl %s | echomsg %s | echohl None"):format(hl, vim.fn.string(msg)), "")
    errors.try(vim.cmd, "redraw")
    if show then
      errors.try(show)
    end
  end
  if vim.fn.exists("##SafeState") == 1 then
    vim.api.nvim_create_autocmd(
      "SafeState",
      { once = true, callback = keep, desc = "claude-nova: keep a cut message whole in :messages" }
    )
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
    return vim.schedule(function()
      M.notify(msg, level)
    end)
  end
  -- Output still scrolled up in the message area (a pick from the built-in
  -- vim.ui.select) would turn even one line into a hit-enter prompt.
  errors.try(vim.cmd, "redraw")
  local line = M.fit(msg)
  if line == msg then
    vim.notify(line, level, { title = "claude-nova" })
    return
  end
  host_log(names[level] or "info", msg)
  local whole = msg:gsub("%s*\n%s*", " · ")
  if builtin_notify() then
    -- Shown cut, kept whole (not a second time cut).
    local function show()
      vim.api.nvim_echo({ { line, hls[level] } }, false, {})
    end
    show()
    keep_whole(whole, level, show)
  else
    -- A notifier plugin shows it its own way; :messages gets the whole
    -- (and the message line is cleared of what execute() showed).
    vim.notify(line, level, { title = "claude-nova" })
    keep_whole(whole, level, function()
      vim.api.nvim_echo({ { "" } }, false, {})
    end)
  end
end

function M.info(msg)
  M.notify(msg, vim.log.levels.INFO)
end

-- The last message shown with a tag (an announcement of a request), so
-- that it can be taken off the message line when the request goes.
local shown = nil ---@type {tag: string, line: string}|nil

--- Show msg like info(), remembering it under tag (see clear()).
function M.tagged(msg, tag)
  M.info(msg)
  msg = tostring(msg)
  if not vim.startswith(msg, PREFIX) then
    msg = PREFIX .. msg
  end
  shown = { tag = tag, line = M.fit(msg) }
end

-- The text of the message area's rows, as drawn.
local function message_area()
  local rows = {}
  local first = vim.o.lines - math.max(1, vim.o.cmdheight) + 1
  for r = first, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      table.insert(cells, vim.fn.screenstring(r, c))
    end
    table.insert(rows, table.concat(cells))
  end
  return table.concat(rows, "\n")
end

--- Take the message shown under tag off the message line when it is still
--- what the line shows (a decided request's "a allow, d deny: …" would
--- otherwise stay there, stale); any other message is left alone.
function M.clear(tag)
  M.unpin(tag)
  if not shown or shown.tag ~= tag then
    return
  end
  local line = shown.line
  shown = nil
  vim.schedule(function()
    local ok, area = pcall(message_area)
    -- The start of the line, wide enough to be ours (the ruler may share it).
    local head = text.cut(line, math.min(#line, 30))
    head = head:gsub("…$", "")
    if ok and vim.startswith(vim.trim(area), vim.trim(head)) and vim.api.nvim_get_mode().mode ~= "c" then
      vim.api.nvim_echo({ { "" } }, false, {})
    end
  end)
end

-- A line pinned above the status line while the mode message (-- INSERT --)
-- covers the message line: a message there would never be seen.
local pins = {} ---@type table<string, {win: integer, buf: integer}>

--- Whether the message line is covered while in this mode (insert, replace,
--- select, a terminal: 'showmode' draws there).
function M.covered()
  local m = vim.api.nvim_get_mode().mode
  return vim.o.showmode
    and (
      m:sub(1, 1) == "i"
      or m:sub(1, 1) == "R"
      or m:sub(1, 1) == "s"
      or m:sub(1, 1) == "S"
      or m == "\19"
      or m:sub(1, 1) == "t"
    )
end

--- Pin msg (cut to the screen) in a small float right above the status
--- line until unpin(tag): seen while typing in insert mode.
function M.pin(tag, msg)
  M.unpin(tag)
  msg = tostring(msg)
  if not vim.startswith(msg, PREFIX) then
    msg = PREFIX .. msg
  end
  local line = text.cut(msg:gsub("%s*\n%s*", " · "), math.max(10, vim.o.columns - 2))
  local width = text.width(line)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { line })
  vim.bo[buf].bufhidden = "wipe"
  local row = math.max(0, vim.o.lines - vim.o.cmdheight - 2 - (vim.o.laststatus > 0 and 1 or 0))
  local ok, win = pcall(vim.api.nvim_open_win, buf, false, {
    relative = "editor",
    row = row,
    col = math.max(0, vim.o.columns - width - 1),
    width = width,
    height = 1,
    style = "minimal",
    focusable = false,
    zindex = 250,
    noautocmd = true,
  })
  if not ok then
    return
  end
  vim.wo[win].winhighlight = "Normal:ClaudeNovaWaiting"
  pins[tag] = { win = win, buf = buf }
end

--- Take a pinned line away.
function M.unpin(tag)
  local p = pins[tag]
  pins[tag] = nil
  if p and vim.api.nvim_win_is_valid(p.win) then
    errors.try(vim.api.nvim_win_close, p.win, true)
  end
end

function M.warn(msg)
  M.notify(msg, vim.log.levels.WARN)
end

--- Show an error (any value: it is cleaned by claudenova.core.errors).
function M.error(err)
  M.notify(errors.message(err), vim.log.levels.ERROR)
end

errors.report_with(M.error) -- errors.guard shows what it caught here

return M
