-- What a person reads for a claude-nova window in the tab line and the
-- status line: "Proposal · greet.py", "Transcript · 1 · the tour", instead
-- of the buffer's name (a staged file's storage path, claudenova://…).
--
-- The buffer names stay what they are (a proposal is a real file that :w
-- writes; the others are claudenova:// names autocmds can match). Each
-- surface gives its buffer a label here; the window's local status line
-- shows it, and so does the tab line while it is Neovim's default: then
-- ours draws the same tabs, with the labels.
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")

local M = {}

-- buf → label, a string or a function returning one (read when drawn, so
-- a session's new name shows at once).
local labels = {}

-- The label, [+] when modified (not [-]: most surfaces are never modifiable),
-- [RO], and a narrow ruler (the sidebar is narrow).
M.STATUSLINE = "%<%{v:lua.require'claudenova.setup.labels'.status()}%= %l,%c%V %P"
local TABLINE = "%!v:lua.require'claudenova.setup.labels'.tabline()"

--- The label of buf, or nil when it has none.
function M.get(buf)
  local l = labels[buf]
  if type(l) == "function" then
    local ok, s = pcall(l)
    l = ok and s or nil
  end
  return l
end

-- How Neovim's own tab line names a buffer: relative to the working
-- directory or home, each folder shortened to a letter.
local function default_name(buf)
  local bt = vim.bo[buf].buftype
  if bt == "quickfix" then
    local info = vim.fn.getwininfo(vim.fn.bufwinid(buf))[1]
    return (info and info.loclist == 1) and "[Location List]" or "[Quickfix List]"
  end
  local name = vim.fn.bufname(buf)
  if name == "" then
    return (bt == "nofile" or bt == "nowrite") and "[Scratch]" or (bt == "prompt" and "[Prompt]" or "[No Name]")
  end
  if name:match("^%a[%w+.-]*://") then
    return name -- health://, term://…: not a path to shorten
  end
  return vim.fn.pathshorten(vim.fn.fnamemodify(name, ":~:."))
end

--- The name a person reads for buf: its label, else what Neovim shows.
function M.of(buf)
  return M.get(buf) or default_name(buf)
end

-- The status line of each window that shows a labelled buffer. :setlocal:
-- only while the buffer is the window's.
local function set_status(buf)
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    M.apply(w)
  end
end

local function install_tabline()
  if config.get().tabline and vim.go.tabline == "" then
    vim.go.tabline = TABLINE
  end
end

--- Give win the status line of its buffer's label (when it has one). The
--- surfaces call it where they put their buffer in a window: BufWinEnter
--- does not fire there when they run inside another autocommand.
function M.apply(win)
  if
    vim.api.nvim_win_is_valid(win)
    and labels[vim.api.nvim_win_get_buf(win)] ~= nil
    and vim.api.nvim_win_get_config(win).relative == ""
  then
    vim.api.nvim_set_option_value("statusline", M.STATUSLINE, { scope = "local", win = win })
  end
end

--- Give a scratch buffer a name a person reads in the tabline and the
--- statusline ("Plan · 1 · tidy up greet.py"); a name taken already gets
--- " (2)", " (3)", ….
function M.name_buf(buf, name)
  M.set(buf, name)
  -- A slash would make it a path: a division slash reads the same.
  name = name:gsub("/", "∕")
  local taken = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf then
      taken[vim.api.nvim_buf_get_name(b)] = true
    end
  end
  local try, n = name, 1
  while taken[vim.fn.fnamemodify(try, ":p")] do
    n = n + 1
    try = ("%s (%d)"):format(name, n)
  end
  errors.try(vim.api.nvim_buf_set_name, buf, try)
end

--- Give buf a label (a string, or a function returning one).
function M.set(buf, label)
  local first = labels[buf] == nil
  labels[buf] = label
  if first then
    local group = vim.api.nvim_create_augroup("ClaudeNovaLabel_" .. buf, { clear = true })
    vim.api.nvim_create_autocmd("BufWinEnter", {
      group = group,
      buffer = buf,
      desc = "claude-nova: the window's status line names what it shows",
      callback = function(ev)
        set_status(ev.buf)
      end,
    })
    vim.api.nvim_create_autocmd({ "BufWipeout", "BufDelete" }, {
      group = group,
      buffer = buf,
      once = true,
      desc = "claude-nova: forget the label",
      callback = function(ev)
        labels[ev.buf] = nil
        errors.try(vim.api.nvim_del_augroup_by_id, group)
      end,
    })
  end
  set_status(buf)
  install_tabline()
end

--- The status line's text of the window being drawn: its label and flags.
function M.status()
  local win = vim.g.statusline_winid
  local buf = (win and vim.api.nvim_win_is_valid(win)) and vim.api.nvim_win_get_buf(win)
    or vim.api.nvim_get_current_buf()
  return M.of(buf) .. (vim.bo[buf].modified and " [+]" or "") .. (vim.bo[buf].readonly and " [RO]" or "")
end

-- Cut s to w cells, keeping its end (where a file's name is).
local function keep_tail(s, w)
  if vim.fn.strdisplaywidth(s) <= w then
    return s
  end
  local chars = vim.fn.strchars(s)
  for i = 1, chars do
    local t = vim.fn.strcharpart(s, i)
    if vim.fn.strdisplaywidth(t) <= w then
      return t
    end
  end
  return ""
end

--- The tab line: Neovim's default one (window count, "+" when modified, the
--- name, a close "X"), with each tab named by its window's label.
function M.tabline()
  local tabs = vim.api.nvim_list_tabpages()
  local cur = vim.api.nvim_get_current_tabpage()
  local width = math.max(6, math.floor((vim.o.columns - 1 + #tabs / 2) / #tabs))
  local out = {}
  for i, tab in ipairs(tabs) do
    local hl = tab == cur and "%#TabLineSel#" or "%#TabLine#"
    local n, modified = 0, false
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      if vim.api.nvim_win_get_config(w).relative == "" then
        n = n + 1
        modified = modified or vim.bo[vim.api.nvim_win_get_buf(w)].modified
      end
    end
    local prefix = (n > 1 and tostring(n) or "") .. (modified and "+" or "")
    -- A tab is named by its window, not by a float over it (a key list,
    -- a panel): the window the cursor came from.
    local tw = vim.api.nvim_tabpage_get_win(tab)
    if vim.api.nvim_win_get_config(tw).relative ~= "" then
      local back = tab == cur and vim.fn.win_getid(vim.fn.winnr("#")) or 0
      if back == 0 or vim.api.nvim_win_get_config(back).relative ~= "" then
        for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
          if vim.api.nvim_win_get_config(w).relative == "" then
            back = w
            break
          end
        end
      end
      tw = back ~= 0 and back or tw
    end
    local buf = vim.api.nvim_win_get_buf(tw)
    local label = M.get(buf)
    local room = math.max(width - 2 - (prefix ~= "" and #prefix + 1 or 0), 1)
    -- A label reads from its start ("Transcript · 2 · fix the…"); a file's
    -- path keeps its end, the file's name.
    local name = label and require("claudenova.core.text").cut(label, room) or keep_tail(default_name(buf), room)
    name = name:gsub("%%", "%%%%")
    out[#out + 1] = ("%%%dT%s "):format(i, hl)
    if prefix ~= "" then
      out[#out + 1] = prefix .. " "
    end
    out[#out + 1] = name .. " "
  end
  out[#out + 1] = "%#TabLineFill#%T"
  if #tabs > 1 then
    out[#out + 1] = "%=%#TabLine#%999XX"
  end
  return table.concat(out)
end

return M
