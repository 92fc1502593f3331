-- "Always…": a small form to allow or deny a request from now on. The rule
-- is the CLI's own suggestion, editable on the first line (e.g. change
-- Bash(npm test *) to Bash(npm run test:*)); <Tab> switches allow / deny;
-- 1-4 (or j/k then <CR>) pick where it is saved. <CR> confirms and answers
-- the request; q or <Esc> cancels (nothing is answered).
local notify = require("claudenova.ui.notify")

local M = {}

local SCOPES = {
  { name = "session", label = "this session" },
  { name = "localSettings", label = "this project, just me   .claude/settings.local.json" },
  { name = "projectSettings", label = "this project, shared   .claude/settings.json" },
  { name = "userSettings", label = "all my projects         ~/.claude/settings.json" },
}
M.scopes = SCOPES

local ns = vim.api.nvim_create_namespace("claudenova_always")

--- Open the form for request r. on_confirm(behavior, rule, destination)
--- is called when the user confirms.
function M.open(r, on_confirm)
  local st = { behavior = "allow", scope = 2 }
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "claudenova-always"
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "always"
  local what = r.target ~= "" and (r.tool .. " " .. r.target) or r.tool

  local function fixed()
    local lines = {
      ("Do:     %s   (<Tab> switches)"):format(st.behavior == "allow" and "[allow]  deny " or " allow  [deny]"),
      "Where:",
    }
    for i, s in ipairs(SCOPES) do
      table.insert(lines, ("  %s %d %s"):format(i == st.scope and "(•)" or "( )", i, s.label))
    end
    table.insert(lines, "")
    table.insert(lines, "<CR> confirm · <Tab> allow/deny · 1-4 where · edit the rule on line 1 · q cancel")
    return lines
  end

  local function rule_line()
    local l = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ""
    return vim.trim((l:gsub("^Rule:%s*", "")))
  end

  local function render(rule)
    local lines = { "Rule:   " .. (rule or rule_line()) }
    vim.list_extend(lines, fixed())
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.api.nvim_buf_set_extmark(buf, ns, 0, 0, { end_col = 7, hl_group = "ClaudeNovaLabel" })
    vim.api.nvim_buf_set_extmark(buf, ns, 1, 0, { end_col = 3, hl_group = "ClaudeNovaLabel" })
    vim.api.nvim_buf_set_extmark(buf, ns, 2, 0, { end_col = 6, hl_group = "ClaudeNovaLabel" })
    vim.api.nvim_buf_set_extmark(buf, ns, #lines - 1, 0, { end_col = #lines[#lines], hl_group = "ClaudeNovaKey" })
  end

  render(r.suggested_rule ~= "" and r.suggested_rule or r.tool)
  local width = math.min(math.max(72, #("Rule:   " .. (r.suggested_rule or "")) + 4), vim.o.columns - 4)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - 10) / 2),
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = 10,
    style = "minimal",
    border = "rounded",
    title = (" Always… %s "):format(what):sub(1, width - 4),
    title_pos = "center",
  })
  vim.wo[win].wrap = false
  vim.api.nvim_win_set_cursor(win, { 1, 8 })

  local function close()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = "claude-nova always: " .. desc })
  end
  -- Only the rule line is edited by hand; the rest is redrawn.
  vim.api.nvim_create_autocmd({ "TextChanged", "InsertLeave" }, {
    buffer = buf,
    desc = "claude-nova: keep the form's fixed lines",
    callback = function()
      local rule = rule_line()
      local cur = vim.api.nvim_win_get_cursor(0)
      render(rule)
      pcall(vim.api.nvim_win_set_cursor, 0, cur)
    end,
  })
  map("<Tab>", function()
    st.behavior = st.behavior == "allow" and "deny" or "allow"
    render()
  end, "Switch allow / deny")
  for i = 1, #SCOPES do
    map(tostring(i), function()
      st.scope = i
      render()
    end, "Save it to: " .. SCOPES[i].label)
  end
  map("<CR>", function()
    -- <CR> on a scope line picks that scope.
    local row = vim.api.nvim_win_get_cursor(0)[1]
    if row >= 4 and row < 4 + #SCOPES then
      st.scope = row - 3
    end
    local rule = rule_line()
    local ok, why = pcall(on_confirm, st.behavior, rule, SCOPES[st.scope].name)
    if not ok then
      notify.error(why) -- the form stays open: fix the rule, confirm again
      return
    end
    if why ~= false then
      close()
    end
  end, "Confirm")
  map("q", close, "Cancel")
  map("<Esc>", close, "Cancel")
  vim.api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    once = true,
    desc = "claude-nova: leaving the form cancels it",
    callback = function() vim.schedule(close) end,
  })
  return buf, win
end

return M
