-- The action panel: one request in a float with Allow / Allow for Session /
-- Review / Deny. Closing it only hides it; the row stays in the sidebar.
local errors = require("claudenova.core.errors")
local text = require("claudenova.core.text")
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local gesture = require("claudenova.core.gesture")
local keytable = require("claudenova.services.keys")
local notify = require("claudenova.setup.notify")
local scheduler = require("claudenova.services.scheduler")
local state = require("claudenova.store.state")
local draw = require("claudenova.core.render")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_panel")
M.current = nil ---@type {id: string, win: integer, buf: integer}|nil

local function cfg()
  return config.get()
end

--- The choices of request r, in order: what claude's hints allow (no
--- session-wide allow, whole tool or Always… when claude asks for no
--- lasting rule; no session choice when there is nothing to allow with).
local function choices(r, keys, review)
  local h = r.hints or {}
  local twice = h.deliberate and function(k)
    return k .. " " .. k
  end or function(k)
    return k
  end
  local out = {}
  local function item(name, text, allow)
    local k = keys[name] or "-"
    if allow and keys[name] then
      k = twice(k)
    end
    table.insert(out, { name = name, text = ("[%s] %s"):format(k, text) })
  end
  item("allow", "Allow once", true)
  if r.session_choice and r.session_choice ~= "" then
    item("allow_session", "Allow " .. r.session_choice, true)
  end
  if r.tool_choice and r.tool_choice ~= "" and r.tool_choice ~= r.session_choice then
    item("allow_tool", "Allow " .. r.tool_choice, true)
  end
  if r.dir_choice and r.dir_choice ~= "" and not h.no_rules then
    item("allow_dir", "Allow " .. r.dir_choice, true)
  end
  if not h.no_rules and not r.no_always then
    item("always", "Always…")
  end
  item("review", review and "Hide review" or "Review")
  item("deny", "Deny")
  item("deny_stop", "Deny and stop")
  item("close", "Close")
  return out
end

-- The panel's lines for a window width cells wide (the key hint wraps
-- between choices; other long lines wrap in the window), their highlights,
-- and which choice each line of a one-choice-a-line layout holds.
local function render(r, review, width)
  local keys = cfg().keymaps.panel
  local lines, hls = {}, {}
  local function add(line, hl, s, e)
    table.insert(lines, line)
    if hl then
      table.insert(hls, { #lines - 1, s or 0, e or -1, hl })
    end
  end
  add(r.title, "ClaudeNovaTitle")
  add("")
  if r.said and r.said ~= "" then
    -- Why it asks, in Claude's words (what it said right before the call).
    for i, l in ipairs(text.lines(r.said)) do
      add((i == 1 and "Claude: " or "        ") .. l, "ClaudeNovaNote")
    end
    add("")
  end
  if r.reason and r.reason ~= "" then
    for _, l in ipairs(text.lines(r.reason)) do
      add(l, "ClaudeNovaReason")
    end
    add("")
  end
  for _, f in ipairs(r.fields or {}) do
    local vals = text.lines(f.value)
    add(f.label .. ": " .. vals[1], "ClaudeNovaLabel", 0, #f.label + 1)
    for i = 2, #vals do
      add("    " .. vals[i])
    end
  end
  if r.file_change and (r.added > 0 or r.removed > 0) then
    add(("Changes: +%d -%d"):format(r.added, r.removed))
  end
  add("")
  -- The choices claude's hints allow, each saying exactly what it allows
  -- (see choices()). The key hint wraps to the screen instead of being cut.
  local rows = {}
  local h = r.hints or {}
  if h.why and h.why ~= "" then
    add("Claude's hint: " .. h.why, "ClaudeNovaReason")
  end
  local items = choices(r, keys, review)
  if h.deliberate then
    -- Not approvable by a stray key: one choice a line, the cursor on Deny;
    -- allow takes its key twice, or <CR> on its line.
    add("Approve deliberately: press a key twice, or move to its line and press <CR>.", "ClaudeNovaReason")
    for _, it in ipairs(items) do
      add(it.text, "ClaudeNovaKey")
      rows[#lines] = it.name
    end
  else
    local room = math.max(20, width)
    local line = ""
    for _, it in ipairs(items) do
      if line ~= "" and text.width(line .. "   " .. it.text) > room then
        add(line, "ClaudeNovaKey")
        line = it.text
      else
        line = line == "" and it.text or (line .. "   " .. it.text)
      end
    end
    add(line, "ClaudeNovaKey")
  end
  if review then
    add("")
    for _, l in ipairs(r.review or {}) do
      local hl
      if vim.startswith(l, "+") and not vim.startswith(l, "+++") then
        hl = "DiffAdd"
      elseif vim.startswith(l, "-") and not vim.startswith(l, "---") then
        hl = "DiffDelete"
      elseif vim.startswith(l, "@@") then
        hl = "DiffChange"
      end
      add(l, hl)
    end
  end
  return lines, hls, rows
end

local renew_later -- below, with the panel's buffer

-- The panel's window, kept between panels: a request's panel shows in it
-- again rather than in a window opened anew (and from shows where focus
-- goes back when it hides). Opening a float is the dearest part of a Bash
-- panel on Neovim 0.10 (0.18 ms of its front end's 0.5; showing a hidden
-- one takes a few microseconds); a closed panel is a hidden float,
-- unfocusable, on the tab it opened in.
local panel_win ---@type integer|nil
local from ---@type {win: integer, prev: integer}|nil

-- Whether win is a window (0, "the current window" to the API, is not one:
-- winnr("#") is 0 when there is no previous window).
local function valid(win)
  return win ~= nil and win ~= 0 and vim.api.nvim_win_is_valid(win)
end

-- Close the panel's window for good (it moves to another tab, its buffer
-- is made anew, or it could not be hidden safely).
local function discard()
  if valid(panel_win) then
    errors.try(vim.api.nvim_win_close, panel_win, true)
  end
  panel_win = nil
end

-- The window focus went back to from the panel: Neovim 0.10's <C-w>p
-- would enter the hidden panel, so the window before that is made the
-- previous one again (with no autocommand: nothing moves for the user).
local function mend_previous(win)
  local back = vim.api.nvim_get_current_win()
  if vim.fn.win_getid(vim.fn.winnr("#")) ~= win then
    return true
  end
  local prev = from and from.prev
  local tab = vim.api.nvim_get_current_tabpage()
  if not (valid(prev) and prev ~= back and prev ~= win and vim.api.nvim_win_get_tabpage(prev) == tab) then
    return false
  end
  vim.cmd(("noautocmd call nvim_set_current_win(%d)"):format(prev))
  vim.cmd(("noautocmd call nvim_set_current_win(%d)"):format(back))
  return true
end

-- Hide the panel's window. Focus in it goes back to the window the panel
-- opened from, running the autocommands closing it ran.
local function hide(win)
  if vim.api.nvim_get_current_win() == win then
    local back = from and from.win
    if
      not (valid(back) and back ~= win and vim.api.nvim_win_get_tabpage(back) == vim.api.nvim_win_get_tabpage(win))
    then
      return discard()
    end
    vim.api.nvim_set_current_win(back)
    if not valid(win) or vim.api.nvim_get_current_win() == win then
      return discard()
    end
  end
  if not mend_previous(win) then
    return discard()
  end
  vim.api.nvim_win_set_config(win, { hide = true, focusable = false })
end

function M.close()
  local cur = M.current
  M.current = nil
  if cur and valid(cur.win) then
    if cur.win == panel_win then
      hide(cur.win)
    else
      errors.try(vim.api.nvim_win_close, cur.win, true)
    end
  end
  if cur and vim.api.nvim_buf_is_valid(cur.buf) then
    vim.b[cur.buf].claudenova_request = nil
  end
  renew_later()
end

-- The panel's keys act on the request it shows (M.current), read when a key
-- is pressed: one set of keymaps serves every panel, and is set again only
-- when the keymaps config changes. (Setting a dozen keymaps for every
-- request was half of the garbage a Bash panel left for Lua's collector,
-- whose pauses were the slowest panels.)
local NAMES = { "allow", "allow_session", "allow_tool", "always", "review", "deny", "close", "allow_dir", "deny_stop" }
local DESC = {
  allow = "Allow once",
  allow_session = "Allow what the panel offers for the session",
  allow_tool = "Allow every call of this tool this session",
  always = "Always…: allow or deny from now on, with a rule",
  review = "Toggle the full review",
  deny = "Deny with an optional message",
  deny_stop = "Deny and end the turn",
  allow_dir = "Allow the folder the panel names",
  close = "Hide the panel (the request stays pending)",
}
local ALLOWS = { allow = true, allow_session = true, allow_tool = true, allow_dir = true }
local NOT_OFFERED = {
  allow_session = "Allow for the session",
  allow_tool = "Allow the whole tool",
  always = "Always…",
  allow_dir = "Allow this folder",
}

-- Say why choice name is not offered for request r.
local function not_offered(r, name)
  local what = NOT_OFFERED[name] or name
  local h = r.hints or {}
  if h.no_rules then
    notify.info(("%s is not offered: claude asks that no lasting rule be made (%s)"):format(what, h.why or ""))
  elseif r.no_always and what == "Always…" then
    notify.info(r.no_always)
  elseif what == "Allow this folder" then
    notify.info("Allow this folder is not offered: claude suggested no folder for this request")
  else
    notify.info(("%s is not offered: claude suggested no rule for this request (Always… makes one)"):format(what))
  end
end

-- What choice name allows for request r, in its words (the panel's line).
local function what_it_does(r, name)
  local function choice(field, otherwise)
    return "Allow " .. ((r[field] or "") ~= "" and r[field] or otherwise)
  end
  if name == "allow_session" then
    return choice("session_choice", "for the session")
  elseif name == "allow_tool" then
    return choice("tool_choice", "every call of this tool this session")
  elseif name == "allow_dir" then
    return choice("dir_choice", "the folder claude suggests")
  end
  return DESC[name]
end

-- Take choice name for request r.
local function take(r, name)
  if ALLOWS[name] then
    local ok, why = actions.decide(r.id, name, nil, "surface")
    if not ok and why then
      notify.info(why)
    end
  elseif name == "always" then
    actions.always(r.id)
  elseif name == "review" then
    M.open(r, { review = not (M.current and M.current.review), focus = true })
  elseif name == "deny" then
    actions.deny_with_message(r.id, "surface")
  elseif name == "deny_stop" then
    actions.deny_stop(r.id, "surface")
  elseif name == "close" then
    M.close()
  end
end

-- Whether the panel offers choice name for request r.
local function offered(r, name)
  for _, it in ipairs(choices(r, cfg().keymaps.panel, false)) do
    if it.name == name then
      return true
    end
  end
  return false
end

-- A key of choice name pressed in the panel. default_to_no: an allow key
-- arms its choice, the same key again takes it; any other choice disarms.
local function press(name)
  local cur = M.current
  if not cur then
    return
  end
  local r = cur.r
  local h = r.hints or {}
  if not offered(r, name) then
    return not_offered(r, name)
  end
  if h.deliberate and ALLOWS[name] and cur.armed ~= name then
    cur.armed = name
    local key = cfg().keymaps.panel[name]
    return notify.info(
      ("press %s again to %s (claude asks for a deliberate answer)"):format(key, what_it_does(r, name):lower())
    )
  end
  cur.armed = nil
  return take(r, name)
end

-- <CR> of a deliberate answer: the choice on the cursor's line, taken at
-- once (moving to its line was the deliberate part).
local function press_line()
  local cur = M.current
  local name = cur and cur.rows[vim.api.nvim_win_get_cursor(0)[1]]
  if name and offered(cur.r, name) then
    cur.armed = nil
    take(cur.r, name)
  end
end

-- The keymaps in the panel's buffer: the config they were made from, and
-- whether <CR> is mapped.
local installed = { keys = nil, cr = false }

local function map(buf, lhs, fn, desc)
  vim.api.nvim_buf_set_keymap(buf, "n", lhs, "", { callback = fn, nowait = true, noremap = true, desc = desc })
end

-- The keymaps config the panel's keys are made from, as a string.
local function signature(keys)
  local parts = {}
  for _, name in ipairs(NAMES) do
    table.insert(parts, tostring(keys[name]))
  end
  table.insert(parts, tostring(cfg().keymaps.help))
  return table.concat(parts, "\0")
end

-- Map the panel's keys in buf for request r (only what changed since the
-- last panel: the keymaps config, and <CR> for a deliberate answer).
local function set_keymaps(buf, r)
  local keys = cfg().keymaps.panel
  local sig = signature(keys)
  if installed.keys ~= sig then
    if installed.keys then
      -- Another config: the last one's keys go first (<CR> too: it is
      -- mapped again below when this request needs it).
      for _, lhs in ipairs(installed.lhs) do
        errors.try(vim.api.nvim_buf_del_keymap, buf, "n", lhs)
      end
      if installed.cr then
        errors.try(vim.api.nvim_buf_del_keymap, buf, "n", "<CR>")
      end
    end
    local lhs, taken = {}, {}
    -- Errors reach the user on one line; deciding keys do nothing while the
    -- grace period of a panel that opened on its own lasts. The newer
    -- choices (deny and stop, the folder) give way when you gave their
    -- default key to another one.
    for _, name in ipairs(NAMES) do
      local k = keys[name]
      if k and not taken[k] then
        taken[k] = true
        local fn = function()
          press(name)
        end
        map(
          buf,
          k,
          gesture.wrap(name ~= "close" and scheduler.guard(buf, fn) or fn),
          "claude-nova panel: " .. DESC[name]
        )
        table.insert(lhs, k)
      end
    end
    map(buf, "<Esc>", M.close, "claude-nova panel: Hide the panel")
    table.insert(lhs, "<Esc>")
    keytable.map(buf, "panel")
    table.insert(lhs, cfg().keymaps.help)
    installed.keys, installed.lhs, installed.cr = sig, lhs, false
  end
  local deliberate = (r.hints or {}).deliberate == true
  if deliberate and not installed.cr then
    map(buf, "<CR>", gesture.wrap(scheduler.guard(buf, press_line)), "claude-nova panel: Take the choice on this line")
  elseif installed.cr and not deliberate then
    errors.try(vim.api.nvim_buf_del_keymap, buf, "n", "<CR>")
  end
  installed.cr = deliberate
end

local function title(buf)
  if scheduler.in_grace(buf) then
    return " claude-nova · keys wait a moment "
  end
  return " claude-nova "
end

-- The panel's width for lines, and the width of the widest of them.
local function width_of(lines)
  local widest = 0
  for _, l in ipairs(lines) do
    widest = math.max(widest, text.width(l))
  end
  return math.min(math.max(20, widest + 1), math.max(20, vim.o.columns - 4)), widest
end

-- The size and place of the panel on this screen: as wide as its longest
-- line (up to the screen), as tall as its wrapped text (up to the screen;
-- then it scrolls, and its footer says so). lines: buf's lines, when the
-- caller has them at hand.
local function geometry(buf, win, lines)
  lines = lines or vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local width, widest = width_of(lines)
  local maxh = math.max(3, vim.o.lines - vim.o.cmdheight - 4)
  local height = #lines
  if win and vim.api.nvim_win_is_valid(win) then
    -- Wrapped lines count as many screen lines as they take.
    vim.api.nvim_win_set_config(win, { width = width, height = math.min(height, maxh) })
    local ok, th = pcall(vim.api.nvim_win_text_height, win, {})
    if ok and th and th.all then
      height = th.all
    end
  end
  local cfg_ = {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - math.min(height, maxh)) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = math.min(height, maxh),
    title = title(buf),
    title_pos = "center",
  }
  if height > maxh then
    cfg_.footer = (" %d more line%s: j/<C-d> scrolls "):format(height - maxh, height - maxh == 1 and "" or "s")
    cfg_.footer_pos = "center"
  else
    cfg_.footer = ""
  end
  -- Whether a line wraps (then the height is the window's to say).
  return cfg_, widest > width
end

-- Fill buf with r's lines for a window width cells wide; rows (the line ->
-- choice map the keymaps read) is filled again in place.
local function fill(buf, rows, lines, hls, now)
  draw.lines(buf, ns, lines, hls, { changed_only = true })
  for k in pairs(rows) do
    rows[k] = nil
  end
  for k, v in pairs(now) do
    rows[k] = v
  end
end

-- Fill buf for the width the panel takes: the key hint wraps to the widest
-- the screen allows, then the panel takes the width those lines need, and
-- the hint wraps again a cell inside it. That changes nothing unless a line
-- is wider than the screen allows: only then is it rendered again.
-- On a wide screen the text stops at MAX_TEXT cells: a line the eye can
-- follow, the keys in two or three rows rather than one across the screen.
local MAX_TEXT = 100

local function layout(buf, r, review, rows)
  local lines, hls, now = render(r, review, math.max(20, math.min(MAX_TEXT, vim.o.columns - 6)))
  local width, widest = width_of(lines)
  if widest > width - 1 then
    lines, hls, now = render(r, review, width - 1)
  end
  fill(buf, rows, lines, hls, now)
  return lines
end

-- Put the cursor on Deny when claude asks for a deliberate answer
-- (default_to_no: it opens on its decline option).
local function on_deny(win, r, rows)
  if (r.hints or {}).deliberate then
    for lnum, name in pairs(rows) do
      if name == "deny" then
        errors.try(vim.api.nvim_win_set_cursor, win, { lnum, 0 })
        vim.wo[win].cursorline = true
      end
    end
  end
end

--- Fit the open panel to the screen again (after a resize, or when its
--- grace period ends).
function M.relayout()
  local cur = M.current
  if not (cur and vim.api.nvim_win_is_valid(cur.win)) then
    return
  end
  local r = state.requests[cur.id] or cur.r
  layout(cur.buf, r, cur.review, cur.rows)
  vim.api.nvim_win_set_config(cur.win, (geometry(cur.buf, cur.win)))
  on_deny(cur.win, r, cur.rows)
end

-- The panel's buffer, kept hidden between panels: setting 'filetype' (its
-- FileType autocommands search the runtimepath for ftplugin, indent and
-- syntax files) was half of the time a Bash panel took to open.
local panel_buf
-- How many windows were opened on the buffer. Neovim 0.10 keeps a record
-- per window that ever showed a buffer and searches it on every window
-- opened on it (0.12 does not), so there, after RENEW windows, the buffer
-- is made again once no panel shows (the 0.7 ms that costs is spent then,
-- not when a panel opens). The panel's window is kept, so a new one is
-- opened only when it was closed or the panel shows on another tab.
local uses, RENEW = 0, vim.fn.has("nvim-0.12") == 1 and math.huge or 32

local make_buffer, follow_resizes

--- Wipe the panel's buffer (when there is one) and its window, and make the
--- buffer anew.
local function renew()
  discard()
  if panel_buf and vim.api.nvim_buf_is_valid(panel_buf) then
    errors.try(vim.api.nvim_buf_delete, panel_buf, { force = true })
  end
  make_buffer()
  uses = 0
end

-- The panel's buffer; shown: a panel shows in it now (it is not made anew
-- under it).
local function the_buffer(shown)
  if not (panel_buf and vim.api.nvim_buf_is_valid(panel_buf)) or (uses >= RENEW and not shown) then
    renew()
  end
  return panel_buf
end

--- Make the panel's buffer ahead of the first panel (while a session's
--- claude starts), so the first request does not pay for it.
function M.prepare()
  if not (panel_buf and vim.api.nvim_buf_is_valid(panel_buf)) then
    renew()
  end
end

--- Make the buffer again once RENEW windows opened on it, while no panel
--- shows: after a panel closed, not when the next one opens.
function renew_later()
  if uses < RENEW then
    return
  end
  vim.schedule(function()
    if not M.current and uses >= RENEW and panel_buf and vim.api.nvim_buf_is_valid(panel_buf) then
      renew()
    end
  end)
end

function make_buffer()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].undolevels = -1
  vim.bo[buf].filetype = "claudenova-panel"
  vim.b[buf].claudenova_surface = "panel"
  installed = { keys = nil, cr = false }
  vim.api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    desc = "claude-nova: leaving the panel hides it",
    callback = function()
      vim.schedule(function()
        if not (M.current and M.current.buf == buf) then
          return
        end
        -- g?: its key list opens over it, and closing the list comes back
        -- (maybe before this runs).
        local cur = vim.api.nvim_get_current_buf()
        if cur == buf or vim.b[cur].claudenova_surface == "help" then
          return
        end
        M.close()
      end)
    end,
  })
  panel_buf = buf
end

-- A resized screen fits the open panel to it (one autocommand for every
-- panel, made with the first).
local resizes
function follow_resizes()
  if resizes then
    return
  end
  resizes = vim.api.nvim_create_autocmd("VimResized", {
    group = vim.api.nvim_create_augroup("ClaudeNovaPanel", { clear = true }),
    desc = "claude-nova: fit the panel to the new screen size",
    callback = function()
      if M.current then
        M.relayout()
      end
    end,
  })
end

-- Show buf in the panel's window with config c and focus it: the kept
-- window when it is on this tab, else a new one.
local function show(buf, c)
  local win = panel_win
  if
    valid(win)
    and vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage()
    and vim.api.nvim_win_get_buf(win) == buf
  then
    c.hide, c.focusable = false, true
    vim.api.nvim_win_set_config(win, c)
    if vim.api.nvim_get_current_win() ~= win then
      -- noautocmd, as a new window is entered (below).
      vim.cmd(("noautocmd call nvim_set_current_win(%d)"):format(win))
    end
    vim.api.nvim_win_set_cursor(win, { 1, 0 })
    vim.api.nvim_set_option_value("cursorline", false, { win = win })
    return win
  end
  discard()
  -- noautocmd: entering the panel would run every WinLeave, BufLeave,
  -- WinEnter, BufEnter and BufWinEnter autocommand there is (Neovim's own
  -- matchparen and netrw take 0.25 ms of the 0.3 ms it took), none of
  -- which has anything to do in the panel. Leaving it runs them as usual.
  c.style, c.border, c.noautocmd = "minimal", "rounded", true
  win = vim.api.nvim_open_win(buf, true, c)
  uses = uses + 1
  local wo = { win = win } -- ('minimal' turned 'cursorline' off)
  vim.api.nvim_set_option_value("wrap", true, wo)
  vim.api.nvim_set_option_value("linebreak", true, wo)
  vim.api.nvim_set_option_value("breakindent", true, wo)
  vim.api.nvim_set_option_value("breakindentopt", "shift:4", wo)
  panel_win = win
  return win
end

--- Show request r and focus it (claudenova.services.scheduler decides when a
--- panel may open on its own). opts.review expands the full input and diff;
--- opts.grace: it opened on its own, its deciding keys wait a moment.
function M.open(r, opts)
  opts = opts or {}
  -- A panel showing gives its window to r (nothing hides in between).
  local last = M.current
  M.current = nil
  local shown = last and valid(last.win) and last.win == panel_win
  if last and vim.api.nvim_buf_is_valid(last.buf) then
    vim.b[last.buf].claudenova_request = nil
  end
  if last and valid(last.win) and not shown then
    errors.try(vim.api.nvim_win_close, last.win, true)
  end
  local buf = the_buffer(shown)
  if vim.api.nvim_get_current_win() ~= panel_win or not valid(panel_win) then
    from = { win = vim.api.nvim_get_current_win(), prev = vim.fn.win_getid(vim.fn.winnr("#")) }
  end
  vim.b[buf].claudenova_request = r.id
  scheduler.grace[buf] = nil -- the last panel's, if it closed in its grace period
  local rows = {}
  local lines = layout(buf, r, opts.review, rows)
  if opts.grace then
    -- Once drawn: on 0.10 the grace period makes a modifiable buffer
    -- read-only, and drawing a read-only buffer stops Neovim for a second
    -- on "W10: Warning: Changing a readonly file".
    scheduler.start_grace(buf, M.relayout)
  end
  local c, wraps = geometry(buf, nil, lines)
  local win = show(buf, c)
  if wraps then
    -- A line wider than the screen wraps: the panel's height is the
    -- wrapped text's, which only the window knows.
    vim.api.nvim_win_set_config(win, (geometry(buf, win)))
  end
  set_keymaps(buf, r)
  on_deny(win, r, rows)
  M.current = { id = r.id, win = win, buf = buf, review = opts.review, r = r, rows = rows }
  follow_resizes()
end

function M.withdraw(id)
  if M.current and M.current.id == id then
    M.close()
  end
end

return M
