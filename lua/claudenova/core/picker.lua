-- A small floating list with the vim.ui.select signature, used when
-- questions.ui = "float": j/k move, <CR> chooses, q/<Esc> cancels.
local text = require("claudenova.core.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_picker")

function M.select(items, opts, on_choice)
  opts = opts or {}
  local fmt = opts.format_item or tostring
  -- The prompt is the title; one too wide for it (a title cannot wrap)
  -- goes above the items instead, wrapped at spaces, whole.
  local prompt = (opts.prompt or "Choose"):gsub("%s*\n%s*", " ")
  local room = vim.o.columns - 6
  local head = {}
  if vim.fn.strdisplaywidth(prompt) + 2 > room then
    head = text.wrap(prompt, room - 2)
  end
  local lines = vim.deepcopy(head)
  for i, it in ipairs(items) do
    table.insert(lines, ("%d. %s"):format(i, fmt(it)))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.b[buf].claudenova_surface = "picker"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  for i = 1, #head do
    vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, { end_col = #head[i], hl_group = "Title" })
  end
  local width = #head == 0 and vim.fn.strdisplaywidth(prompt) or 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, room)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - #lines) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = #lines,
    border = "rounded",
    title = #head == 0 and (" " .. prompt .. " ") or nil,
    style = "minimal",
  })
  vim.wo[win].cursorline = true
  -- An item wider than the screen is cut, never wrapped: a wrapped item
  -- would push the last ones out of the float.
  vim.wo[win].wrap = false
  -- The cursor stays on the items.
  vim.api.nvim_win_set_cursor(win, { #head + 1, 0 })
  vim.api.nvim_create_autocmd("CursorMoved", {
    buffer = buf,
    desc = "claude-nova: the picker's cursor stays on its items",
    callback = function()
      if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_cursor(win)[1] <= #head then
        vim.api.nvim_win_set_cursor(win, { #head + 1, 0 })
      end
    end,
  })
  local done = false
  local function finish(choice, idx)
    if done then
      return
    end
    done = true
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    on_choice(choice, idx)
  end
  local function choose()
    local idx = vim.api.nvim_win_get_cursor(win)[1] - #head
    if items[idx] then
      finish(items[idx], idx)
    end
  end
  vim.keymap.set("n", "<CR>", choose, { buffer = buf, desc = "claude-nova: Choose" })
  for _, k in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", k, function()
      finish(nil, nil)
    end, { buffer = buf, desc = "claude-nova: Cancel" })
  end
  for i = 1, math.min(#items, 9) do
    vim.keymap.set("n", tostring(i), function()
      finish(items[i], i)
    end, { buffer = buf, desc = "claude-nova: Choose item " .. i })
  end
  vim.api.nvim_create_autocmd("BufLeave", {
    buffer = buf,
    once = true,
    desc = "claude-nova: leaving the picker cancels it",
    callback = function()
      vim.schedule(function()
        finish(nil, nil)
      end)
    end,
  })
end

return M
