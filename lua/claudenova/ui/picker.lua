-- A small floating list with the vim.ui.select signature, used when
-- questions.ui = "float": j/k move, <CR> chooses, q/<Esc> cancels.
local M = {}

function M.select(items, opts, on_choice)
  opts = opts or {}
  local fmt = opts.format_item or tostring
  local lines = {}
  for i, it in ipairs(items) do
    lines[i] = ("%d. %s"):format(i, fmt(it))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.b[buf].claudenova_surface = "picker"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local width = vim.fn.strdisplaywidth(opts.prompt or "")
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 6)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.floor((vim.o.lines - #lines) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = #lines,
    border = "rounded",
    title = " " .. (opts.prompt or "Choose") .. " ",
    style = "minimal",
  })
  vim.wo[win].cursorline = true
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
    local idx = vim.api.nvim_win_get_cursor(win)[1]
    finish(items[idx], idx)
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
