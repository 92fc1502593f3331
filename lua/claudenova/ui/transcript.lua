-- One markdown buffer per session (claudenova://session/N). Go sends the
-- operations; this applies them and never takes focus.
local M = {}

M.bufs = {} ---@type table<integer, integer>
M.count = {} ---@type table<integer, integer> lines applied per session

local function cfg()
  return require("claudenova.config").get()
end

local function set_keymaps(buf, id)
  local keys = cfg().keymaps.transcript
  local function prompt()
    require("claudenova.ui.prompt").open(id)
  end
  if keys.prompt then
    vim.keymap.set("n", keys.prompt, prompt, { buffer = buf, desc = "claude-nova: Write a prompt" })
  end
  if keys.prompt_alt then
    vim.keymap.set("n", keys.prompt_alt, prompt, { buffer = buf, desc = "claude-nova: Write a prompt" })
  end
  if keys.interrupt then
    vim.keymap.set("n", keys.interrupt, require("claudenova.errors").guard(function()
      local out = require("claudenova").interrupt(id)
      if out and out.message then
        require("claudenova.ui.notify").info(out.message)
      end
    end), { buffer = buf, desc = "claude-nova: Interrupt the turn" })
  end
end

-- Fetch the whole transcript from the host. Always from a scheduled
-- callback: a synchronous host call from inside a UI event (which is itself a
-- call from the host) would break Neovim's nested-call ordering.
M.syncing = {} ---@type table<integer, boolean>

local function fill(id)
  local buf = M.bufs[id]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    M.syncing[id] = false
    return
  end
  local ok, snap = pcall(require("claudenova.host").request, "transcript", { session = id })
  local lines = {}
  if ok and type(snap) == "table" then
    -- Older lines live in a file of the host's (it keeps a bounded tail).
    if (snap.first or 0) > 0 and snap.file then
      local rok, head = pcall(vim.fn.readfile, snap.file, "", snap.first)
      lines = rok and head or {}
      for _ = #lines + 1, snap.first do
        table.insert(lines, "…")
      end
    end
    vim.list_extend(lines, snap.lines or {})
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, #lines > 0 and lines or { "" })
  vim.bo[buf].modifiable = false
  M.count[id] = #lines
  M.syncing[id] = false
end

local function resync(id)
  if M.syncing[id] then
    return
  end
  M.syncing[id] = true
  vim.schedule(function() fill(id) end)
end

--- Fetch the whole transcript again (Go dropped updates it could not
--- deliver while Neovim was busy).
function M.resync(id)
  if M.bufs[id] and vim.api.nvim_buf_is_valid(M.bufs[id]) then
    resync(id)
  end
end

--- The host died: its sessions are gone. Their buffers stay readable under
--- another name, and the next host's session 1 gets a fresh buffer.
function M.host_lost()
  for id, buf in pairs(M.bufs) do
    if vim.api.nvim_buf_is_valid(buf) then
      local epoch = require("claudenova.host").epoch
      pcall(vim.api.nvim_buf_set_name, buf, ("claudenova://ended/%d/session/%d"):format(epoch, id))
      vim.bo[buf].modifiable = true
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "> The host stopped: this session is gone." })
      vim.bo[buf].modifiable = false
      vim.b[buf].claudenova_session = nil
      pcall(vim.api.nvim_clear_autocmds, { buffer = buf })
    end
  end
  M.bufs, M.count, M.syncing = {}, {}, {}
end

--- The transcript buffer of session id (created on demand).
function M.ensure(id)
  local buf = M.bufs[id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, "claudenova://session/" .. id)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1 -- append-only: undo history would only cost time and memory
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].modifiable = false
  vim.b[buf].claudenova_session = id
  set_keymaps(buf, id)
  -- Where the markdown ftplugin starts tree-sitter (Neovim 0.12), keep it
  -- running only while the transcript is shown: a streaming transcript in a
  -- window that is not looked at should not be reparsed. Where it does not
  -- (0.10), leave highlighting as the user has it.
  local uses_ts = vim.treesitter.highlighter.active[buf] ~= nil
  local function ts(on)
    if not uses_ts then
      return
    end
    if on then
      pcall(vim.treesitter.start, buf, "markdown")
    else
      pcall(vim.treesitter.stop, buf)
    end
  end
  ts(false)
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = buf,
    desc = "claude-nova: highlight the transcript while it is shown",
    callback = function() ts(true) end,
  })
  vim.api.nvim_create_autocmd("BufHidden", {
    buffer = buf,
    desc = "claude-nova: stop parsing a hidden transcript",
    callback = function() vim.schedule(function() if vim.fn.bufwinid(buf) == -1 then ts(false) end end) end,
  })
  M.bufs[id] = buf
  M.count[id] = 0
  if require("claudenova.host").running() then
    resync(id) -- a re-created buffer catches up with what it missed
  end
  return buf
end

-- Windows whose cursor was on the last line follow the output, the current
-- one included (unless the user is selecting or typing there).
local function follow(buf, before)
  local cur = vim.api.nvim_get_current_win()
  local normal = vim.api.nvim_get_mode().mode == "n"
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf and (w ~= cur or normal) then
      if vim.api.nvim_win_get_cursor(w)[1] >= before then
        pcall(vim.api.nvim_win_set_cursor, w, { vim.api.nvim_buf_line_count(buf), 0 })
      end
    end
  end
end

--- Apply Go's operations ({op="append"|"set", index, lines}).
function M.apply(id, ops)
  local buf = M.ensure(id)
  if M.syncing[id] then
    return -- the pending fill fetches these lines too
  end
  local before = vim.api.nvim_buf_line_count(buf)
  vim.bo[buf].modifiable = true
  for _, op in ipairs(ops) do
    local n = M.count[id] or 0
    if op.op == "append" then
      if op.index > n then
        vim.bo[buf].modifiable = false
        resync(id) -- we missed lines: fetch the whole transcript
        return
      end
      -- Lines a fill already fetched are skipped.
      local new = op.index < n and vim.list_slice(op.lines, n - op.index + 1) or op.lines
      if #new > 0 then
        if n == 0 then
          vim.api.nvim_buf_set_lines(buf, 0, -1, false, new)
        else
          vim.api.nvim_buf_set_lines(buf, n, n, false, new)
        end
        M.count[id] = n + #new
      end
    elseif op.op == "set" and op.index < n then
      vim.api.nvim_buf_set_lines(buf, op.index, op.index + 1, false, op.lines)
    end
  end
  vim.bo[buf].modifiable = false
  follow(buf, before)
end

local function is_transcript(buf)
  return vim.b[buf].claudenova_session ~= nil
end

-- A tab that holds a proposal or a plan is that surface's own: a transcript
-- never opens there.
local function surface_tab(tab)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
    local kind = vim.b[vim.api.nvim_win_get_buf(w)].claudenova_surface
    if kind == "proposal" or kind == "plan" then
      return true
    end
  end
  return false
end

--- Show session id's transcript: in the tab's transcript window if it has
--- one (one per tab), else in a new split at the bottom. opts.focus moves
--- the cursor there; otherwise the user's window keeps it.
function M.open(id, opts)
  opts = opts or {}
  local buf = M.ensure(id)
  if surface_tab(0) then
    local prev = vim.fn.tabpagenr("#")
    local tabs = vim.api.nvim_list_tabpages()
    if prev > 0 and tabs[prev] and not surface_tab(tabs[prev]) then
      vim.api.nvim_set_current_tabpage(tabs[prev])
    else
      vim.cmd("tabnew")
    end
  end
  local from = vim.api.nvim_get_current_win()
  local win
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if is_transcript(vim.api.nvim_win_get_buf(w)) then
      win = w
      break
    end
  end
  if not win then
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_win_set_buf(win, buf)
  -- The transcript's own look, not the one of the window it was split from.
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  if opts.focus or from == win then
    vim.api.nvim_set_current_win(win)
  elseif vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  return win
end

return M
