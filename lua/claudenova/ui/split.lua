-- Where a view that goes beside the conversation opens (a task's output,
-- the rules): never at the cost of the transcript, which stays readable.
-- With a transcript in this tab, the view takes half of the transcript's
-- window, side by side when it is wide enough, else below it; without one,
-- a bottom split of at most a third of the screen.
local M = {}

-- A window narrower than this is split above and below, not side by side.
M.WIDE = 100

local function transcript_win()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then
      return w
    end
  end
end

--- Open buf in a new window as above (height: what it wants at most) and
--- return the window; the cursor is in it.
function M.open(buf, height)
  local tw = transcript_win()
  if tw then
    vim.api.nvim_set_current_win(tw)
    if vim.api.nvim_win_get_width(tw) >= M.WIDE then
      vim.cmd("rightbelow vsplit")
    else
      vim.cmd("rightbelow split")
    end
  else
    local h = math.max(3, math.min(height or 12, math.floor(vim.o.lines / 3)))
    vim.cmd(("botright %dsplit"):format(h))
  end
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  return win
end

return M
