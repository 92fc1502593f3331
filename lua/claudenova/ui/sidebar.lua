-- The sidebar: every session and its pending requests, in one split.
local state = require("claudenova.ui.state")
local text = require("claudenova.ui.text")

local M = {}

local NAME = "claudenova://sidebar"
local ns = vim.api.nvim_create_namespace("claudenova_sidebar")

M.buf = nil
M.rows = {} ---@type table<integer, string> line -> request id

local function cfg()
  return require("claudenova.config").get()
end

local function ui()
  return require("claudenova.ui")
end

local function win()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return nil
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == M.buf then
      return w
    end
  end
  return nil
end
M.win = win

function M.id_under_cursor()
  local w = win()
  if not w or vim.api.nvim_get_current_win() ~= w then
    return nil
  end
  return M.rows[vim.api.nvim_win_get_cursor(w)[1]]
end

local function with_row(fn)
  return require("claudenova.errors").guard(function()
    local id = M.id_under_cursor()
    if not id then
      require("claudenova.ui.notify").info("no request on this line")
      return
    end
    fn(id)
  end)
end

local function decide(behavior)
  return with_row(function(id)
    local ok, why = ui().decide(id, behavior, nil, "sidebar")
    if not ok and why then
      require("claudenova.ui.notify").info(why)
    end
  end)
end

-- The requests on the rows of the visual selection.
local function selected_ids()
  local a, b = vim.fn.line("v"), vim.fn.line(".")
  if a > b then
    a, b = b, a
  end
  local ids = {}
  for lnum = a, b do
    if M.rows[lnum] then
      table.insert(ids, M.rows[lnum])
    end
  end
  return ids
end

-- A key in visual mode decides every selected request.
local function decide_selection(behavior)
  return require("claudenova.errors").guard(function()
    local ids = selected_ids()
    vim.cmd("normal! \27") -- leave visual mode
    if #ids == 0 then
      require("claudenova.ui.notify").info("no request in the selection")
      return
    end
    if behavior == "deny" then
      vim.ui.input({ prompt = ("Deny %d — message for Claude (optional): "):format(#ids) }, function(msg)
        if msg ~= nil then
          ui().decide_many(ids, "deny", msg ~= "" and msg or nil)
        end
      end)
      return
    end
    ui().decide_many(ids, behavior)
  end)
end

local verbs_desc = { allow = "Allow", allow_session = "Allow for the session", deny = "Deny" }

local function set_keymaps(buf)
  local keys = cfg().keymaps.sidebar
  local actions = {
    present = { with_row(function(id) ui().present(id) end), "Open the request's surface" },
    allow = { decide("allow"), "Allow the request" },
    allow_session = { decide("allow_session"), "Allow this tool for the session" },
    review = {
      with_row(function(id)
        local r = state.requests[id]
        if r and r.surface == "panel" then
          require("claudenova.ui.panel").open(r, { review = true, focus = true })
        else
          ui().present(id)
        end
      end),
      "Review the full request",
    },
    deny = { with_row(function(id) ui().deny_with_message(id, "sidebar") end), "Deny (optional message for Claude)" },
    always = { with_row(function(id) ui().always(id) end), "Always…: allow or deny from now on, with a rule" },
    close = { function() M.close() end, "Close the sidebar" },
  }
  for name, act in pairs(actions) do
    local lhs = keys[name]
    if lhs then
      vim.keymap.set("n", lhs, act[1], { buffer = buf, nowait = true, desc = "claude-nova: " .. act[2] })
    end
  end
  -- Batch: the same keys on a visual selection of rows.
  for name, behavior in pairs({ allow = "allow", allow_session = "allow_session", deny = "deny" }) do
    local lhs = keys[name]
    if lhs then
      vim.keymap.set("x", lhs, decide_selection(behavior), { buffer = buf, nowait = true, desc = "claude-nova: " .. verbs_desc[behavior] .. " every selected request" })
    end
  end
end

local function ensure_buf()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, NAME)
  vim.bo[buf].filetype = "claudenova-sidebar"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].undolevels = -1
  vim.bo[buf].modifiable = false
  vim.b[buf].claudenova_surface = "sidebar"
  set_keymaps(buf)
  M.buf = buf
  return buf
end

local function state_hl(s)
  return ({
    waiting = "ClaudeNovaStateWaiting",
    running = "ClaudeNovaStateRunning",
    starting = "ClaudeNovaStateRunning",
    idle = "ClaudeNovaStateIdle",
  })[s] or "ClaudeNovaStateExited"
end

--- Redraw the sidebar (cheap when it is not visible).
function M.render()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return
  end
  local w = win()
  local keep_id = w and M.rows[vim.api.nvim_win_get_cursor(w)[1]]
  local lines, hls, rows = {}, {}, {}
  local function add(line, marks)
    table.insert(lines, line)
    for _, m in ipairs(marks or {}) do
      table.insert(hls, { #lines - 1, m[1], m[2], m[3] })
    end
  end
  local pending = #state.order()
  add(("Claude Nova · %d pending"):format(pending), { { 0, -1, "ClaudeNovaTitle" } })
  local keys = cfg().keymaps.sidebar
  add(("%s open  %s allow  %s session  %s review  %s deny"):format(
    keys.present or "-", keys.allow or "-", keys.allow_session or "-", keys.review or "-", keys.deny or "-"
  ), { { 0, -1, "ClaudeNovaKey" } })
  for _, sid in ipairs(state.session_ids()) do
    local s = state.sessions[sid]
    add("")
    local head = ("▸ %d %s"):format(s.id, s.name or "")
    local st = s.state or ""
    local line = ("%s · %s · %s"):format(head, st, s.mode or "default")
    add(line, {
      { 0, #head, "ClaudeNovaSession" },
      { #head + #" · ", #head + #" · " + #st, state_hl(st) },
    })
    for _, r in ipairs(state.for_session(sid)) do
      local tool = r.tool
      local stat = ""
      if r.file_change and (r.added > 0 or r.removed > 0) then
        stat = (" +%d -%d"):format(r.added, r.removed)
      end
      local target = r.target ~= "" and (" " .. r.target) or ""
      local prefix = "  " .. tool
      local row = prefix .. target .. stat .. "  " .. text.age(r.arrived)
      local marks = {
        { 2, #prefix, "ClaudeNovaTool" },
        { #prefix, #prefix + #target, "ClaudeNovaTarget" },
      }
      if stat ~= "" then
        local p = #prefix + #target
        local plus = (" +%d"):format(r.added)
        table.insert(marks, { p, p + #plus, "ClaudeNovaAdded" })
        table.insert(marks, { p + #plus, p + #stat, "ClaudeNovaRemoved" })
      end
      table.insert(marks, { #row - #text.age(r.arrived), #row, "ClaudeNovaAge" })
      add(row, marks)
      rows[#lines] = r.id
    end
  end
  vim.bo[M.buf].modifiable = true
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, lines)
  vim.bo[M.buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(M.buf, ns, 0, -1)
  for _, h in ipairs(hls) do
    local line_len = #lines[h[1] + 1]
    local e = h[3] < 0 and line_len or math.min(h[3], line_len)
    if h[2] < e then
      vim.api.nvim_buf_set_extmark(M.buf, ns, h[1], h[2], { end_col = e, hl_group = h[4] })
    end
  end
  M.rows = rows
  if w then
    -- Keep the cursor on the same request across re-renders.
    for lnum, id in pairs(rows) do
      if id == keep_id then
        pcall(vim.api.nvim_win_set_cursor, w, { lnum, 0 })
        return
      end
    end
    local cur = vim.api.nvim_win_get_cursor(w)
    if cur[1] > #lines then
      vim.api.nvim_win_set_cursor(w, { #lines, 0 })
    end
  end
end

function M.open()
  local buf = ensure_buf()
  if win() then
    return
  end
  local c = cfg().sidebar
  local cur = vim.api.nvim_get_current_win()
  vim.cmd((c.position == "left" and "topleft" or "botright") .. " vertical " .. c.width .. "split")
  local w = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(w, buf)
  vim.wo[w].winfixwidth = true
  vim.wo[w].number = false
  vim.wo[w].relativenumber = false
  vim.wo[w].signcolumn = "no"
  vim.wo[w].wrap = false
  vim.wo[w].cursorline = true
  M.render()
  -- Put the cursor on the first request, if any.
  local first
  for lnum in pairs(M.rows) do
    first = first and math.min(first, lnum) or lnum
  end
  if first then
    vim.api.nvim_win_set_cursor(w, { first, 0 })
  end
  if vim.api.nvim_win_is_valid(cur) and cur ~= w then
    -- The user asked for it: focus the sidebar.
    vim.api.nvim_set_current_win(w)
  end
end

--- Close the sidebar's window. As the last window of a tab it closes the
--- tab; as the very last window it shows another buffer instead (never an
--- empty tab left behind).
function M.close()
  local w = win()
  if not w then
    return
  end
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.api.nvim_win_close(w, true)
  elseif #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd("tabclose")
  else
    local alt = vim.fn.bufnr("#")
    if alt > 0 and alt ~= M.buf and vim.api.nvim_buf_is_valid(alt) and vim.bo[alt].buflisted then
      vim.api.nvim_win_set_buf(w, alt)
    else
      vim.cmd("enew")
    end
  end
end

function M.toggle()
  if win() then
    M.close()
  else
    M.open()
  end
end

return M
