-- "Always…": a small form to allow or deny a request from now on. The rule
-- is the CLI's own suggestion (or one for exactly this request), editable on
-- the first line (e.g. change Bash(npm test *) to Bash(npm run test:*));
-- <S-Tab> switches to the wider rules, each labelled with what it covers
-- (every call of the tool; every tool of an MCP server); <Tab> switches
-- allow / deny; 1-4 (or j/k then <CR>) pick where it is saved. <CR>
-- confirms and answers the request; q or <Esc> cancels (nothing is
-- answered; the caller's on_cancel takes the user back). It never opens for
-- a request claude asks no lasting rule for (claudenova.frontend's always()
-- checks its hints).
local errors = require("claudenova.core.errors")
local notify = require("claudenova.setup.notify")
local draw = require("claudenova.core.render")
local text = require("claudenova.core.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_always")

--- The rules the form offers for r, narrowest first: { rule, what }.
function M.presets(r)
  local out, seen = {}, {}
  local function add(rule, what)
    if rule and rule ~= "" and not seen[rule] then
      seen[rule] = true
      table.insert(out, { rule = rule, what = what })
    end
  end
  add(r.suggested_rule, r.suggested_what or "claude's suggestion")
  add(r.tool, ("every %s call"):format(r.tool))
  add(r.server_rule, r.server_choice)
  return out
end

-- The form's layout: line 1 the rule, 2 what it covers, 3 allow/deny,
-- 4 "Where:", then one line a scope, a blank line, the key hints.
local FIRST_SCOPE = 5

--- Open the form for request r. on_confirm(behavior, rule, destination)
--- is called when the user confirms, on_cancel (optional) when q or <Esc>
--- cancels it.
function M.open(r, on_confirm, on_cancel)
  -- Where a rule can be saved is the host's to say (the view's scopes,
  -- with their files); a request it offers none for has its no_always.
  local scopes = r.scopes or {}
  if #scopes == 0 then
    notify.info(r.no_always or "no rule can be saved for this request")
    return
  end
  local presets = M.presets(r)
  local st = { behavior = "allow", scope = math.min(2, #scopes), preset = 1 }
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "claudenova-always"
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "always"
  local what = r.target ~= "" and (r.tool .. " " .. r.target) or r.tool
  -- Narrow screens: the form takes them whole, so that its files fit.
  local width = math.min(math.max(76, #("Rule:   " .. (r.suggested_rule or "")) + 4), vim.o.columns - 2)

  local function rule_line()
    local l = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ""
    return vim.trim((l:gsub("^Rule:%s*", "")))
  end

  -- What the rule on line 1 covers: its preset's words, or "your own rule".
  local function covers(rule)
    for _, p in ipairs(presets) do
      if p.rule == rule then
        return p.what
      end
    end
    return "your own rule"
  end

  local function fixed(rule)
    local nxt = presets[st.preset % #presets + 1]
    local lines = {
      ("What:   %s%s"):format(covers(rule), (#presets > 1 and nxt) and ("   (<S-Tab>: " .. nxt.what .. ")") or ""),
      ("Do:     %s   (<Tab> switches)"):format(st.behavior == "allow" and "[allow]  deny " or " allow  [deny]"),
      "Where:",
    }
    for i, s in ipairs(scopes) do
      local line = ("  %s %d "):format(i == st.scope and "(•)" or "( )", i)
      local label = s.label
      if s.path and s.path ~= "" then
        -- The files in a column, unless that pushes one over the edge
        -- (wrapped, a path would break at its dots).
        label = ("%-22s %s"):format(label, s.path)
        if vim.fn.strdisplaywidth(line .. label) > width then
          label = s.label .. " " .. s.path
        end
      end
      table.insert(lines, line .. label)
    end
    table.insert(lines, "")
    table.insert(
      lines,
      ("<CR> confirm · <Tab> allow/deny · <S-Tab> rule · 1-%d where · edit the rule on line 1 · q cancel"):format(
        #scopes
      )
    )
    return lines
  end

  local function render(rule)
    rule = rule or rule_line()
    local lines = { "Rule:   " .. rule }
    vim.list_extend(lines, fixed(rule))
    local hls = { { #lines - 1, 0, -1, "ClaudeNovaKey" } }
    for i, n in ipairs({ 7, 7, 3, 6 }) do
      table.insert(hls, { i - 1, 0, n, "ClaudeNovaLabel" })
    end
    -- Line 1, the rule, is the user's to edit.
    draw.lines(buf, ns, lines, hls, { editable = true })
  end

  render(presets[1] and presets[1].rule or r.tool)
  local height = FIRST_SCOPE + #scopes + 1
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - height) / 2),
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    title = text.cut((" Always… %s "):format(what), width - 4),
    title_pos = "center",
  })
  -- The request's announcement ("a allow, d deny: …") is not this form's
  -- keys: off the message line.
  notify.clear(r.id)
  -- A narrow screen wraps the hint and the paths instead of cutting them.
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  local ok, th = pcall(vim.api.nvim_win_text_height, win, {})
  if ok and th and th.all and th.all > height then
    height = math.min(th.all, vim.o.lines - 4)
    vim.api.nvim_win_set_config(win, {
      relative = "editor",
      height = height,
      row = math.max(0, math.floor((vim.o.lines - height) / 2)),
      col = math.floor((vim.o.columns - width) / 2),
    })
  end
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
      errors.try(vim.api.nvim_win_set_cursor, 0, cur)
    end,
  })
  map("<Tab>", function()
    st.behavior = st.behavior == "allow" and "deny" or "allow"
    render()
  end, "Switch allow / deny")
  map("<S-Tab>", function()
    if #presets == 0 then
      return
    end
    st.preset = st.preset % #presets + 1
    render(presets[st.preset].rule)
  end, "Switch to the next rule: the suggestion, the whole tool, the MCP server")
  for i = 1, #scopes do
    map(tostring(i), function()
      st.scope = i
      render()
    end, "Save it to: " .. scopes[i].label)
  end
  map("<CR>", function()
    -- <CR> on a scope line picks that scope.
    local row = vim.api.nvim_win_get_cursor(0)[1]
    if row >= FIRST_SCOPE and row < FIRST_SCOPE + #scopes then
      st.scope = row - FIRST_SCOPE + 1
    end
    local rule = rule_line()
    local ok, why = pcall(on_confirm, st.behavior, rule, scopes[st.scope].name)
    if not ok then
      notify.error(why) -- the form stays open: fix the rule, confirm again
      return
    end
    if why ~= false then
      close()
    end
  end, "Confirm")
  local function cancel()
    close()
    if on_cancel then
      on_cancel()
    end
  end
  map("q", cancel, "Cancel")
  map("<Esc>", cancel, "Cancel")
  vim.api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    once = true,
    desc = "claude-nova: leaving the form cancels it",
    callback = function()
      vim.schedule(close)
    end,
  })
  return buf, win
end

return M
