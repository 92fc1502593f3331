-- make demo's guide: a small window at the bottom of every tab that says
-- what the tour's current step shows and what to do, so the instruction is
-- on screen wherever the step's surface opened (a proposal in its own tab,
-- a plan, the panel). It reads the tour session's transcript: the newest
-- "Step N/9 · …" paragraph Claude wrote, or the tour's closing words.
-- :DemoGuide hides and shows it.
local M = {}

M.text = {
  "Welcome to claude-nova. A real claude CLI talks to a scripted model on 127.0.0.1.",
  "Press <CR> (or :DemoTour) to start the guided tour: each step asks you something, and this guide says what to do.",
  "g? in any claude-nova window lists its keys; , is the local leader here.",
}
M.session = nil ---@type integer|nil the tour's session
M.hidden = false

local buf
local wins = {} ---@type table<integer, integer> tab -> the guide's window there

local function wrap(lines, width)
  local out = {}
  for _, l in ipairs(lines) do
    local line = ""
    for word in l:gmatch("%S+") do
      if line == "" then
        line = word
      elseif vim.fn.strdisplaywidth(line .. " " .. word) <= width then
        line = line .. " " .. word
      else
        table.insert(out, line)
        line = word
      end
    end
    table.insert(out, line)
  end
  return out
end

local function close_all()
  for tab, w in pairs(wins) do
    if vim.api.nvim_win_is_valid(w) then
      pcall(vim.api.nvim_win_close, w, true)
    end
    wins[tab] = nil
  end
end

--- Draw the guide in the current tab (and drop the ones of other tabs,
--- which are drawn again when their tab is entered).
function M.draw()
  if M.hidden then
    close_all()
    return
  end
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].bufhidden = "hide"
    vim.b[buf].claudenova_surface = "guide"
  end
  local width = math.max(20, math.min(vim.o.columns - 4, 72))
  local lines = wrap(M.text, width - 2)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local height = math.min(#lines, math.max(3, math.floor(vim.o.lines / 3)))
  -- At the bottom, unless the window you are in starts in the guide's rows
  -- (a short split there, such as the comments list): then at the top, so
  -- that the guide never hides the window you work in or its winbar.
  local bottom = vim.o.lines - vim.o.cmdheight - 1
  local cur = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_config(cur).relative == "" then -- in a float: where it was
    local top = vim.api.nvim_win_get_position(cur)[1]
    M.at_top = top + 1 >= bottom - height - 2
  end
  local anchor, row = "SE", bottom
  if M.at_top then
    anchor, row = "NE", (vim.o.showtabline == 2 or #vim.api.nvim_list_tabpages() > 1) and 1 or 0
  end
  local cfg = {
    relative = "editor",
    anchor = anchor,
    row = row,
    col = vim.o.columns,
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    title = " Tour guide · :DemoGuide hides it ",
    title_pos = "center",
    focusable = false,
    zindex = 20, -- below the claude-nova surfaces (the panel is 50)
    noautocmd = true,
  }
  local tab = vim.api.nvim_get_current_tabpage()
  local w = wins[tab]
  if w and vim.api.nvim_win_is_valid(w) then
    cfg.noautocmd = nil
    vim.api.nvim_win_set_config(w, cfg)
  else
    w = vim.api.nvim_open_win(buf, false, cfg)
    wins[tab] = w
    vim.wo[w].wrap = true
    vim.wo[w].winhighlight = "Normal:NormalFloat,FloatBorder:FloatBorder"
  end
end

--- The newest step the tour's transcript names, as the guide's text.
function M.update()
  local tr = require("claudenova.surfaces.transcript")
  local b = M.session and tr.bufs[M.session]
  if not (b and vim.api.nvim_buf_is_valid(b)) then
    return
  end
  local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  for i = #lines, 1, -1 do
    local l = lines[i]
    if l:match("^Step %d+/%d+ · ") or l:match("^That was the tour%.") or l:match("^The tour: ") then
      local text = { l }
      for j = i + 1, #lines do
        if lines[j] == "" or lines[j]:match("^▸") or lines[j]:match("^#") then
          break
        end
        table.insert(text, lines[j])
      end
      M.text = { table.concat(text, " ") }
      M.draw()
      return
    end
  end
end

--- Follow session sid's transcript (the tour's).
function M.follow(sid)
  M.session = sid
  local tries = 0
  local function attach()
    local tr = require("claudenova.surfaces.transcript")
    local b = tr.bufs[sid]
    if not (b and vim.api.nvim_buf_is_valid(b)) then
      tries = tries + 1
      if tries < 200 then
        vim.defer_fn(attach, 50)
      end
      return
    end
    vim.api.nvim_buf_attach(b, false, {
      on_lines = function()
        if M.session ~= sid then
          return true -- detach: another tour runs
        end
        vim.schedule(M.update)
      end,
    })
    M.update()
  end
  attach()
end

function M.toggle()
  M.hidden = not M.hidden
  M.draw()
end

function M.setup()
  local group = vim.api.nvim_create_augroup("ClaudeNovaDemoGuide", { clear = true })
  vim.api.nvim_create_autocmd({ "TabEnter", "VimResized", "WinEnter" }, {
    group = group,
    desc = "claude-nova demo: the guide in every tab, fitted to the screen, clear of the window you are in",
    callback = function()
      vim.schedule(M.draw)
    end,
  })
  vim.api.nvim_create_user_command("DemoGuide", M.toggle, { desc = "claude-nova demo: hide or show the tour guide" })
  M.draw()
end

return M
