-- Buffers follow the disk: when Claude writes a file (an applied proposal,
-- an edit in acceptEdits mode, a rewind), the loaded buffers of that file
-- show the new text at once, cursor and view kept. A buffer with unsaved
-- edits is never reloaded over and never raises Neovim's W11/W12 prompts:
-- the user is told once, on one line, and :ClaudeNova diff compares it with
-- the disk.
local errors = require("claudenova.core.errors")
local notify = require("claudenova.setup.notify")

local M = {}

local group = vim.api.nvim_create_augroup("ClaudeNovaDisk", { clear = true })

--- The loaded buffer of path (nil when none). Names are compared resolved,
--- not as patterns (bufnr() would take "a.txt" for "a.txt~" or "xa.txt").
function M.buf_of(path)
  local want = vim.fn.resolve(vim.fn.fnamemodify(path, ":p"))
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= "" and vim.fn.resolve(vim.fn.fnamemodify(name, ":p")) == want then
        return b
      end
    end
  end
  return nil
end

--- What identifies the file's content on disk now (nil: not on disk).
local function stamp(path)
  local st = vim.uv.fs_stat(path)
  return st and ("%d.%d:%d"):format(st.mtime.sec, st.mtime.nsec, st.size) or nil
end

--- Read buf's file again (it has no unsaved edits), keeping the cursor and
--- view of every window that shows it, and whether it is listed (:edit
--- lists it; the editor tools load files unlisted).
function M.reload(buf)
  local views = {}
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    views[w] = vim.api.nvim_win_call(w, vim.fn.winsaveview)
  end
  local listed = vim.bo[buf].buflisted
  vim.api.nvim_buf_call(buf, function()
    vim.cmd("silent! keepjumps edit!")
  end)
  vim.bo[buf].buflisted = listed
  vim.b[buf].claudenova_disk_stamp = stamp(vim.api.nvim_buf_get_name(buf))
  for w, v in pairs(views) do
    if vim.api.nvim_win_is_valid(w) then
      errors.try(vim.api.nvim_win_call, w, function()
        vim.fn.winrestview(v)
      end)
    end
  end
  vim.b[buf].claudenova_disk_told = nil
end

-- A buffer with unsaved edits whose file Claude changed: Neovim's own
-- check (focus, :checktime) would stop on a W12 prompt; this answers it
-- with "keep the buffer" instead, until the buffer is written or reloaded.
local function protect(buf)
  if vim.b[buf].claudenova_disk_guard then
    return
  end
  vim.b[buf].claudenova_disk_guard = true
  vim.api.nvim_create_autocmd("FileChangedShell", {
    group = group,
    buffer = buf,
    desc = "claude-nova: keep unsaved edits when Claude changed the file (no W12 prompt)",
    callback = function()
      vim.v.fcs_choice = ""
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWritePost", "BufReadPost" }, {
    group = group,
    buffer = buf,
    once = true,
    desc = "claude-nova: the buffer and its file agree again",
    callback = function()
      vim.b[buf].claudenova_disk_guard = nil
      vim.b[buf].claudenova_disk_told = nil
      errors.try(vim.api.nvim_clear_autocmds, { group = group, buffer = buf, event = "FileChangedShell" })
    end,
  })
end

--- The buffer's text as :w would write it (line endings and final newline
--- as the buffer keeps them).
local function text_of(buf)
  local nl = vim.bo[buf].fileformat == "dos" and "\r\n" or (vim.bo[buf].fileformat == "mac" and "\r" or "\n")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local eol = vim.bo[buf].endofline or (vim.bo[buf].fixendofline and not vim.bo[buf].binary)
  local text = table.concat(lines, nl)
  if eol and not (#lines == 1 and lines[1] == "") then
    text = text .. nl
  end
  return text
end

--- The loaded file buffers with unsaved edits, as { path, text } each (the
--- text :w would write): a merge takes them as the checkout's side. Each is
--- marked with its change count, so that the file the merge then writes
--- replaces it only while the user has not typed since.
function M.unsaved()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" and vim.bo[b].modified then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= "" then
        vim.b[b].claudenova_taken_tick = vim.b[b].changedtick
        table.insert(out, { path = vim.fn.resolve(vim.fn.fnamemodify(name, ":p")), text = text_of(b) })
      end
    end
  end
  return out
end

--- Claude wrote path: its buffer shows the new text, or (unsaved edits)
--- keeps them and the user is told once. took_unsaved: the file now holds
--- the buffer's unsaved text as M.unsaved gave it (a merge made from it),
--- so the buffer is read again unless the user typed since.
function M.written(path, took_unsaved)
  local buf = M.buf_of(path)
  if not buf then
    return
  end
  if took_unsaved and vim.bo[buf].modified and vim.b[buf].claudenova_taken_tick == vim.b[buf].changedtick then
    vim.b[buf].claudenova_taken_tick = nil
    M.reload(buf)
    return
  end
  if not vim.bo[buf].modified then
    -- Reloaded for this very write already (the diagnostics after a change
    -- do it first): a second reload would make its language servers start
    -- over and clear its diagnostics meanwhile.
    local now = stamp(path)
    if not (now and now == vim.b[buf].claudenova_disk_stamp) then
      M.reload(buf)
    end
    return
  end
  protect(buf)
  if not vim.b[buf].claudenova_disk_told then
    vim.b[buf].claudenova_disk_told = true
    notify.warn(
      ("%s: your unsaved edits are kept; Claude changed the file on disk (:ClaudeNova diff compares them)"):format(
        vim.fn.fnamemodify(path, ":~:.")
      )
    )
  end
end

--- :ClaudeNova diff: the current buffer beside its file on disk, in diff
--- mode (the disk side is a read-only scratch buffer).
function M.diff(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local path = vim.api.nvim_buf_get_name(buf)
  if path == "" or vim.bo[buf].buftype ~= "" then
    error("claude-nova: diff compares a file's buffer with the file on disk; this buffer has no file", 0)
  end
  if not vim.uv.fs_stat(path) then
    error(("claude-nova: %s is not on disk"):format(vim.fn.fnamemodify(path, ":~:.")), 0)
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd("sbuffer " .. buf)
    win = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_set_current_win(win)
  local disk = vim.api.nvim_create_buf(false, true)
  vim.bo[disk].bufhidden = "wipe"
  errors.try(vim.api.nvim_buf_set_name, disk, "On disk: " .. vim.fn.fnamemodify(path, ":~:."))
  vim.api.nvim_buf_set_lines(disk, 0, -1, false, vim.fn.readfile(path))
  vim.bo[disk].modifiable = false
  vim.bo[disk].filetype = vim.bo[buf].filetype
  vim.cmd("vertical rightbelow sbuffer " .. disk)
  vim.wo.signcolumn = "yes:1" -- both sides: a diagnostic never shifts one
  vim.cmd("diffthis")
  vim.api.nvim_set_current_win(win)
  vim.wo.signcolumn = "yes:1"
  vim.cmd("diffthis")
end

--- Tell the host of each file the user saves, from the first session on:
--- a command running meanwhile does not take the user's change as its own.
function M.watch_saves()
  if M.watching_saves then
    return
  end
  M.watching_saves = true
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    desc = "claude-nova: a file you saved is yours, not a running command's",
    callback = function(ev)
      if vim.bo[ev.buf].buftype ~= "" then
        return
      end
      local name = vim.api.nvim_buf_get_name(ev.buf)
      if name == "" or name:match("^%a[%w+.-]*://") then
        return
      end
      errors.try(require("claudenova.services.calls").notify, "user_saved", { path = vim.fn.fnamemodify(name, ":p") })
    end,
  })
end

return M
