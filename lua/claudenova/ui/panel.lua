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
  -- Each choice says exactly what it allows. The key hint wraps to the
  -- screen instead of being cut.
  local items = {
    ("[%s] Allow once"):format(keys.allow or "-"),
    ("[%s] Allow %s"):format(keys.allow_session or "-", r.session_choice or "for this session"),
  }
  if r.tool_choice and r.tool_choice ~= r.session_choice then
    table.insert(items, ("[%s] Allow %s"):format(keys.allow_tool or "-", r.tool_choice))
  end
  vim.list_extend(items, {
    ("[%s] Always…"):format(keys.always or "-"),
    ("[%s] %s"):format(keys.review or "-", review and "Hide review" or "Review"),
    ("[%s] Deny"):format(keys.deny or "-"),
    ("[%s] Close"):format(keys.close or "-"),
  })
  local room = math.max(20, vim.o.columns - 10)
  local line = ""
  for _, it in ipairs(items) do
    if line ~= "" and vim.fn.strdisplaywidth(line .. "   " .. it) > room then
      add(line, "ClaudeNovaKey")
      line = it
    else
      line = line == "" and it or (line .. "   " .. it)
    end
  end
  add(line, "ClaudeNovaKey")
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
  return lines, hls
end

function M.close()
  local cur = M.current
  M.current = nil
  if cur and vim.api.nvim_win_is_valid(cur.win) then
    vim.api.nvim_win_close(cur.win, true)
  end
end

local function set_keymaps(buf, r)
  local keys = cfg().keymaps.panel
  local act = require("claudenova.errors").guard
  local function decide(behavior)
    return function()
      local ok, why = ui().decide(r.id, behavior, nil, "surface")
      if not ok and why then
        require("claudenova.ui.notify").info(why)
      end
    end
  end
  local maps = {
    allow = { decide("allow"), "Allow once" },
    allow_session = { decide("allow_session"), "Allow " .. (r.session_choice or "for the session") },
    allow_tool = { decide("allow_tool"), "Allow " .. (r.tool_choice or "every call of this tool this session") },
    always = { function() ui().always(r.id) end, "Always…: allow or deny from now on, with a rule" },
    review = { function() M.open(r, { review = not (M.current and M.current.review), focus = true }) end, "Toggle the full review" },
    deny = { function() ui().deny_with_message(r.id, "surface") end, "Deny with an optional message" },
    close = { M.close, "Hide the panel (the request stays pending)" },
  }
  for name, m in pairs(maps) do
    if keys[name] then
      vim.keymap.set("n", keys[name], act(m[1]), { buffer = buf, nowait = true, desc = "claude-nova panel: " .. m[2] })
    end
  end
  vim.keymap.set("n", "<Esc>", M.close, { buffer = buf, nowait = true, desc = "claude-nova panel: Hide the panel" })
end

--- Show request r and focus it (claudenova.ui.scheduler decides when a
--- panel may open on its own). opts.review expands the full input and diff.
function M.open(r, opts)
  opts = opts or {}
  M.close()
  local lines, hls = render(r, opts.review)
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
  set_keymaps(buf, r)
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
