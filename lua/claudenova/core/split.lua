-- Where a view that goes beside the conversation opens (a task's output,
-- the rules): never at the cost of the transcript, which stays readable.
-- With a transcript in this tab, the view takes half of the transcript's
-- window, side by side when it is wide enough, else below it (the
-- transcript first growing so that it keeps M.READABLE lines); without one,
-- a bottom split of at most a third of the screen.
local M = {}

-- A window narrower than this is split above and below, not side by side.
M.WIDE = 100

-- The lines the transcript keeps when a view opens below it.
M.READABLE = 8

local function transcript_win()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.b[vim.api.nvim_win_get_buf(w)].claudenova_session then
      return w
    end
  end
end

-- A window a view opened here still shows in this tab (the next view shares
-- its room rather than the transcript's).
local function view_win()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.w[w].claudenova_beside then
      return w
    end
  end
end

--- Open buf in a new window as above (height: what it wants at most) and
--- return the window; the cursor is in it. A second view splits the first
--- one's window.
function M.open(buf, height)
  local tw = transcript_win()
  local vw = tw and view_win()
  if vw then
    vim.api.nvim_set_current_win(vw)
    -- 'equalalways' would even out every window of the column, the
    -- transcript's too: it keeps its height through the split.
    local fixed = vim.wo[tw].winfixheight
    vim.wo[tw].winfixheight = true
    vim.cmd(vim.api.nvim_win_get_width(vw) >= M.WIDE and "rightbelow vsplit" or "rightbelow split")
    vim.wo[tw].winfixheight = fixed
  elseif tw then
    vim.api.nvim_set_current_win(tw)
    if vim.api.nvim_win_get_width(tw) >= M.WIDE then
      vim.cmd("rightbelow vsplit")
    else
      -- Below it: first the transcript grows to room for both (taken from
      -- the windows around it, as far as they can give), so that each half
      -- keeps M.READABLE lines.
      if vim.api.nvim_win_get_height(tw) < 2 * M.READABLE + 1 then
        vim.api.nvim_win_set_height(tw, 2 * M.READABLE + 1)
      end
      vim.cmd("rightbelow split")
    end
  else
    local h = math.max(3, math.min(height or 12, math.floor(vim.o.lines / 3)))
    vim.cmd(("botright %dsplit"):format(h))
  end
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.w[win].claudenova_beside = tw ~= nil
  return win
end

return M
