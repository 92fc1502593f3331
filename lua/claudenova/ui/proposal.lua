-- Editable proposals: the staged file (the file as it would be after the
-- change) opens beside the original in diff mode. :w applies it with the
-- user's edits; wiping the buffer (or :q on its last window) rejects it.
local M = {}

---@type table<string, {buf: integer, orig: integer, tab: integer|nil, wins: integer[], group: integer, r: table}>
M.open_ = {}

local function cfg()
  return require("claudenova.config").get()
end

local function host()
  return require("claudenova.host")
end

local function winbar(r)
  local keys = cfg().keymaps.proposal
  local rel = r.target ~= "" and r.target or r.path
  local bar = ("Proposal · %s %s · %s · :w apply · :q reject"):format(r.tool, rel, r.session_name)
  if keys.allow or keys.deny then
    local key = require("claudenova.ui.text").key
    bar = bar .. (" · %s apply / %s reject"):format(key(keys.allow), key(keys.deny))
  end
  return "%#ClaudeNovaWinbar#" .. bar:gsub("%%", "%%%%")
end

local function load_original(buf, r)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  if r.exists and vim.fn.filereadable(r.path) == 1 then
    vim.api.nvim_buf_call(buf, function()
      -- ++edit: detect fileformat and encoding like :edit, so the diff
      -- compares like with like (CRLF files included).
      vim.cmd("silent keepalt read ++edit " .. vim.fn.fnameescape(r.path))
      vim.cmd("silent 1delete _")
    end)
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

local function original_buf(r)
  local buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, buf, ("claudenova://original/%s/%s"):format(r.id:gsub("[^%w%-_:]", "_"), r.target))
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  load_original(buf, r)
  local ft = vim.filetype.match({ filename = r.path })
  if ft then
    vim.bo[buf].filetype = ft
  end
  vim.bo[buf].readonly = true
  return buf
end

local function set_keymaps(buf, r)
  local keys = cfg().keymaps.proposal
  if keys.allow then
    vim.keymap.set("n", keys.allow, function()
      vim.cmd("write")
    end, { buffer = buf, desc = "claude-nova: Apply this proposal (save)" })
  end
  if keys.deny then
    vim.keymap.set("n", keys.deny, function()
      vim.cmd("bwipeout! " .. buf)
    end, { buffer = buf, desc = "claude-nova: Reject this proposal" })
  end
end

local function focus(p)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == p.buf then
      vim.api.nvim_set_current_win(w)
      return true
    end
  end
  return false
end

--- Open the proposal of request r.
function M.open(r)
  local existing = M.open_[r.id]
  if existing and vim.api.nvim_buf_is_valid(existing.buf) and focus(existing) then
    return
  end
  if not r.staged or r.staged == "" then
    vim.notify("claude-nova: this proposal has no staged file", vim.log.levels.ERROR)
    return
  end
  local layout = cfg().proposal.layout
  if layout == "tab" then
    vim.cmd("tab split")
  elseif layout == "vsplit" then
    vim.cmd("vsplit")
  else
    vim.cmd("split")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(r.staged))
  local buf = vim.api.nvim_get_current_buf()
  local pwin = vim.api.nvim_get_current_win()
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  -- Keep the file's own final-newline state: byte-exact results.
  vim.bo[buf].fixendofline = false
  vim.b[buf].claudenova_proposal = r.id
  local ft = vim.filetype.match({ filename = r.path, buf = buf })
  if ft then
    vim.bo[buf].filetype = ft
  end
  vim.wo[pwin].winbar = winbar(r)

  local orig = original_buf(r)
  vim.cmd("leftabove vsplit")
  local owin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(owin, orig)
  vim.wo[owin].winbar = "%#ClaudeNovaWinbar#Original · " .. ((r.exists and r.target or "(new file)"):gsub("%%", "%%%%"))
  vim.cmd("diffthis")
  vim.api.nvim_set_current_win(pwin)
  vim.cmd("diffthis")

  local group = vim.api.nvim_create_augroup("ClaudeNovaProposal_" .. buf, { clear = true })
  local p = { buf = buf, orig = orig, tab = layout == "tab" and vim.api.nvim_get_current_tabpage() or nil, wins = { pwin, owin }, group = group, r = r }
  M.open_[r.id] = p
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    buffer = buf,
    desc = "claude-nova: saving the proposal applies it",
    callback = function()
      host().notify("proposal_saved", { id = r.id })
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWipeout", "BufDelete" }, {
    group = group,
    buffer = buf,
    desc = "claude-nova: closing the proposal rejects it",
    callback = function()
      if M.open_[r.id] == p then
        M.open_[r.id] = nil
        pcall(vim.api.nvim_del_augroup_by_id, group)
        host().notify("proposal_wiped", { id = r.id })
        vim.schedule(function()
          if vim.api.nvim_buf_is_valid(orig) then
            pcall(vim.api.nvim_buf_delete, orig, { force = true })
          end
        end)
      end
    end,
  })
  set_keymaps(buf, r)
end

local function rescue(p)
  local lines = vim.api.nvim_buf_get_lines(p.buf, 0, -1, false)
  local dir = cfg().storage .. "/rescued"
  vim.fn.mkdir(dir, "p", tonumber("700", 8))
  local name = ("%s/%s-%s"):format(dir, os.date("%Y%m%d-%H%M%S"), vim.fn.fnamemodify(p.r.path, ":t"))
  vim.fn.writefile(lines, name)
  vim.notify(
    ("claude-nova: the proposal for %s was withdrawn while it had unsaved edits; they are kept in %s"):format(p.r.target, name),
    vim.log.levels.WARN
  )
end

--- The request left the registry: close its windows (keeping unsaved edits).
function M.withdraw(id, outcome)
  local p = M.open_[id]
  if not p then
    return
  end
  M.open_[id] = nil
  pcall(vim.api.nvim_del_augroup_by_id, p.group)
  if vim.api.nvim_buf_is_valid(p.buf) and vim.bo[p.buf].modified and not tostring(outcome):match("^applied") then
    rescue(p)
  end
  if p.tab and vim.api.nvim_tabpage_is_valid(p.tab) and #vim.api.nvim_list_tabpages() > 1 then
    local tabnr = vim.api.nvim_tabpage_get_number(p.tab)
    pcall(vim.cmd, tabnr .. "tabclose!")
  else
    for _, w in ipairs(p.wins) do
      if vim.api.nvim_win_is_valid(w) and #vim.api.nvim_list_wins() > 1 then
        pcall(vim.api.nvim_win_close, w, true)
      end
    end
  end
  for _, b in ipairs({ p.buf, p.orig }) do
    if vim.api.nvim_buf_is_valid(b) then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
end

--- The real file changed on disk: show its current content as the original.
function M.rebase(data)
  local p = M.open_[data.id]
  if not p then
    return
  end
  p.r.exists = data.exists
  if vim.api.nvim_buf_is_valid(p.orig) then
    load_original(p.orig, p.r)
    pcall(vim.cmd, "diffupdate")
  end
end

--- Claude wrote path: reload buffers showing it.
function M.reload(path)
  local buf = vim.fn.bufnr(path)
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    pcall(vim.cmd, "checktime " .. buf)
  end
end

return M
