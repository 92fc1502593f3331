-- A header window above a surface (a proposal and its original, a plan):
-- what Claude said right before it asked, its reason in its words. It is a
-- small split of its own, so it never shifts the lines of a diff, wraps at
-- words and keeps its height fitted to its text as windows change size.
local errors = require("claudenova.core.errors")
local labels = require("claudenova.setup.labels")
local render = require("claudenova.core.render")
local textutil = require("claudenova.core.text")

local M = {}

M.wins = {} ---@type table<integer, integer> header window -> its buffer
M.said = {} ---@type table<integer, string> header window -> its text

local function fit(win)
  if not vim.api.nvim_win_is_valid(win) then
    M.wins[win] = nil
    return
  end
  -- Wrapped at words here, at the window's width: no word is split at a
  -- dot or a colon (as 'linebreak' would).
  local buf, said = M.wins[win], M.said[win]
  if buf and said and vim.api.nvim_buf_is_valid(buf) then
    local width = vim.api.nvim_win_get_width(win)
    local lines = {}
    for i, l in ipairs(vim.split(said, "\n", { plain = true })) do
      vim.list_extend(lines, textutil.wrap((i == 1 and "Claude: " or "") .. l, width - 1))
    end
    render.lines(buf, nil, lines)
  end
  local ok, h = pcall(vim.api.nvim_win_text_height, win, {})
  local rows = ok and h.all or vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  errors.try(vim.api.nvim_win_set_height, win, math.max(1, math.min(rows, math.floor(vim.o.lines / 3))))
end

--- Open a header showing "Claude: text" above win (nothing when text is
--- empty). Returns the header's window and buffer, or nil. The cursor
--- stays in win.
function M.open(win, text)
  if not text or vim.trim(text) == "" or not vim.api.nvim_win_is_valid(win) then
    return nil
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.b[buf].claudenova_surface = "header"
  local lines = vim.split("Claude: " .. vim.trim(text), "\n", { plain = true })
  render.lines(buf, nil, lines)
  labels.set(buf, "Claude says")
  local hwin
  vim.api.nvim_win_call(win, function()
    vim.cmd("aboveleft 1split")
    hwin = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(hwin, buf)
  end)
  for opt, val in pairs({
    wrap = true,
    linebreak = true,
    breakindent = true,
    number = false,
    relativenumber = false,
    signcolumn = "no",
    foldcolumn = "0",
    winfixheight = true,
    cursorline = false,
    spell = false,
    list = false,
  }) do
    vim.wo[hwin][opt] = val
  end
  vim.wo[hwin].winhighlight = "Normal:ClaudeNovaNote"
  labels.apply(hwin)
  M.wins[hwin], M.said[hwin] = buf, vim.trim(text)
  fit(hwin)
  if not M.group then
    M.group = vim.api.nvim_create_augroup("ClaudeNovaHeader", { clear = true })
    vim.api.nvim_create_autocmd({ "VimResized", "WinResized" }, {
      group = M.group,
      desc = "claude-nova: headers keep the height of their text",
      callback = function()
        for w in pairs(M.wins) do
          fit(w)
        end
      end,
    })
  end
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
  return hwin, buf
end

--- Close a header (its buffer goes with it).
function M.close(hwin)
  if hwin and vim.api.nvim_win_is_valid(hwin) then
    errors.try(vim.api.nvim_win_close, hwin, true)
  end
  if hwin then
    M.wins[hwin], M.said[hwin] = nil, nil
  end
end

return M
