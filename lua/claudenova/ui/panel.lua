-- The action panel: one request in a float with Allow / Allow for Session /
-- Review / Deny. Closing it only hides it; the row stays in the sidebar.
local text = require("claudenova.ui.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_panel")
M.current = nil ---@type {id: string, win: integer, buf: integer}|nil

local function cfg()
  return require("claudenova.config").get()
end

local function ui()
  return require("claudenova.ui")
end

--- The choices of request r, in order: what claude's hints allow (no
--- session-wide allow, whole tool or Always… when claude asks for no
--- lasting rule; no session choice when there is nothing to allow with).
local function choices(r, keys, review)
  local h = r.hints or {}
  local twice = h.deliberate and function(k) return k .. " " .. k end or function(k) return k end
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
  if not h.no_rules then
    item("always", "Always…")
  end
  item("review", review and "Hide review" or "Review")
  item("deny", "Deny")
  item("close", "Close")
  return out
end

local function render(r, review)
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
    local room = math.max(20, vim.o.columns - 10)
    local line = ""
    for _, it in ipairs(items) do
      if line ~= "" and vim.fn.strdisplaywidth(line .. "   " .. it.text) > room then
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

function M.close()
  local cur = M.current
  M.current = nil
  if cur and vim.api.nvim_win_is_valid(cur.win) then
    vim.api.nvim_win_close(cur.win, true)
  end
end

local function set_keymaps(buf, r, rows)
  local keys = cfg().keymaps.panel
  local act = require("claudenova.errors").guard
  local notify = require("claudenova.ui.notify")
  local h = r.hints or {}
  local function decide(behavior)
    return function()
      local ok, why = ui().decide(r.id, behavior, nil, "surface")
      if not ok and why then
        notify.info(why)
      end
    end
  end
  local offered = {}
  for _, it in ipairs(choices(r, keys, false)) do
    offered[it.name] = true
  end
  local function not_offered(what)
    return function()
      if h.no_rules then
        notify.info(("%s is not offered: claude asks that no lasting rule be made (%s)"):format(what, h.why or ""))
      else
        notify.info(("%s is not offered: claude suggested no rule for this request (Always… makes one)"):format(what))
      end
    end
  end
  local maps = {
    allow = { decide("allow"), "Allow once" },
    allow_session = { decide("allow_session"), "Allow " .. ((r.session_choice or "") ~= "" and r.session_choice or "for the session") },
    allow_tool = { decide("allow_tool"), "Allow " .. ((r.tool_choice or "") ~= "" and r.tool_choice or "every call of this tool this session") },
    always = { function() ui().always(r.id) end, "Always…: allow or deny from now on, with a rule" },
    review = { function() M.open(r, { review = not (M.current and M.current.review), focus = true }) end, "Toggle the full review" },
    deny = { function() ui().deny_with_message(r.id, "surface") end, "Deny with an optional message" },
    close = { M.close, "Hide the panel (the request stays pending)" },
  }
  local allows = { allow = true, allow_session = true, allow_tool = true }
  -- default_to_no: an allow key arms its choice, the same key again takes
  -- it; any other choice disarms.
  local armed
  for name, m in pairs(maps) do
    local fn = m[1]
    if not offered[name] then
      fn = not_offered(({ allow_session = "Allow for the session", allow_tool = "Allow the whole tool", always = "Always…" })[name] or name)
    elseif h.deliberate and allows[name] then
      local take = fn
      fn = function()
        if armed == name then
          armed = nil
          return take()
        end
        armed = name
        notify.info(("press %s again to %s (claude asks for a deliberate answer)"):format(keys[name], m[2]:lower()))
      end
    elseif h.deliberate then
      local take = fn
      fn = function()
        armed = nil
        return take()
      end
    end
    if keys[name] then
      vim.keymap.set("n", keys[name], act(fn), { buffer = buf, nowait = true, desc = "claude-nova panel: " .. m[2] })
    end
  end
  if h.deliberate then
    vim.keymap.set("n", "<CR>", act(function()
      local name = rows[vim.api.nvim_win_get_cursor(0)[1]]
      if name and offered[name] then
        armed = nil
        maps[name][1]()
      end
    end), { buffer = buf, nowait = true, desc = "claude-nova panel: Take the choice on this line" })
  end
  vim.keymap.set("n", "<Esc>", M.close, { buffer = buf, nowait = true, desc = "claude-nova panel: Hide the panel" })
end

--- Show request r and focus it (claudenova.ui.scheduler decides when a
--- panel may open on its own). opts.review expands the full input and diff.
function M.open(r, opts)
  opts = opts or {}
  M.close()
  local lines, hls, rows = render(r, opts.review)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "claudenova-panel"
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "panel"
  for _, h in ipairs(hls) do
    local len = #lines[h[1] + 1]
    local e = h[3] < 0 and len or math.min(h[3], len)
    if h[2] < e then
      vim.api.nvim_buf_set_extmark(buf, ns, h[1], h[2], { end_col = e, hl_group = h[4] })
    end
  end
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 6))
  local height = math.min(#lines, math.max(3, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    title = " claude-nova ",
    title_pos = "center",
  })
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = false
  set_keymaps(buf, r, rows)
  if (r.hints or {}).deliberate then
    -- Opens on its decline option (default_to_no).
    for lnum, name in pairs(rows) do
      if name == "deny" then
        pcall(vim.api.nvim_win_set_cursor, win, { lnum, 0 })
        vim.wo[win].cursorline = true
      end
    end
  end
  M.current = { id = r.id, win = win, buf = buf, review = opts.review }
  vim.api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    once = true,
    desc = "claude-nova: leaving the panel hides it",
    callback = function()
      vim.schedule(function()
        if M.current and M.current.buf == buf then
          M.close()
        end
      end)
    end,
  })
end

function M.withdraw(id)
  if M.current and M.current.id == id then
    M.close()
  end
end

return M
