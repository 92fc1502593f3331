-- Editable proposals: the staged file (the file as it would be after the
-- change) opens beside the original in diff mode. :w applies it with the
-- user's edits; wiping the buffer (or :q on its last window) rejects it.
local errors = require("claudenova.core.errors")
local actions = require("claudenova.store.actions")
local notify = require("claudenova.setup.notify")
local config = require("claudenova.setup.config")
local gesture = require("claudenova.core.gesture")
local header = require("claudenova.services.header")
local tabs = require("claudenova.core.tabs")
local hunks = require("claudenova.surfaces.hunks")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local rescue = require("claudenova.services.rescue")
local scheduler = require("claudenova.services.scheduler")
local state = require("claudenova.store.state")
local text = require("claudenova.core.text")

local M = {}

---@type table<string, {buf: integer, orig: integer, tab: integer|nil, group: integer, r: table, saving: boolean}>
M.open_ = {}

local function cfg()
  return config.get()
end

local function keys_help()
  local lhs = cfg().keymaps.help
  return lhs and text.key(lhs) or nil
end

-- The winbar's parts, most important first: what the proposal is, whose
-- it is, how to apply or reject it, the hunk keys. A narrow window leads
-- with how to apply or reject it.
local function winbar_parts(r, p, width)
  local keys = cfg().keymaps.proposal
  local key = text.key
  local rel = state.where(r)
  local agent = state.agent_label(r)
  -- A subagent's proposal names it first: a narrow window drops the rest.
  local whose = state.session_prefix(r.session) .. (agent and (agent .. " › ") or "")
  local head = ("Proposal · %s%s %s"):format(whose, r.tool, rel)
  if r.cell and r.cell ~= "" then
    head = head .. " · " .. r.cell
  end
  -- The hunks' tally is on the bar at every width: it is what ,r and ,c
  -- change.
  local tally = ""
  if p and p.hunk_review then
    local t = hunks.tally(p)
    tally = (" · %d hunk%s"):format(t.hunks, t.hunks == 1 and "" or "s")
    if t.rejected > 0 then
      tally = tally .. (" · %d rejected"):format(t.rejected)
    end
    if t.notes > 0 then
      tally = tally .. (" · %d note%s"):format(t.notes, t.notes == 1 and "" or "s")
    end
  end
  head = head .. tally
  local what = whose .. r.tool .. " " .. rel .. tally
  -- Once changed (a hunk rejected or restored, your edits), :q stops on
  -- E37: name what rejects it then.
  local how = ":w apply · :q reject"
  if p and vim.api.nvim_buf_is_valid(p.buf) and vim.bo[p.buf].modified then
    how = ":w apply · :q! reject" -- the deny key follows in the bar
  end
  if p and p.disk_changed then
    how = "changed on disk: :w merges · " .. how:gsub("^:w apply · ", "")
  end
  if r.plan_mode then
    how = "plan mode, no plan approved · " .. how
  end
  -- How to apply or reject it comes before whose it is: a long session
  -- name never pushes it off the bar.
  local parts = { head, how, state.session_label(r) }
  local sw = vim.fn.strdisplaywidth
  if width and width < sw(head) + 3 + sw(how) then
    -- Too narrow for both: how to apply or reject it first, then the
    -- tally (what ,r and ,c change), then what it is.
    parts = { how, what, state.session_label(r) }
    if tally ~= "" and sw(how .. " · " .. what) > width then
      parts = { how, tally:sub(#" · " + 1), whose .. r.tool .. " " .. rel, state.session_label(r) }
    end
  end
  if p and scheduler.in_grace(p.buf) then
    -- It just took the window: why keys do nothing yet comes first.
    parts = { "keys wait a moment", what, state.session_label(r) }
  end
  if keys_help() then
    -- Where every other key is listed: short, so it stays on the bar.
    table.insert(parts, 3, keys_help() .. " keys")
  end
  if p and p.hunk_review and (keys.reject_hunk or keys.restore_hunk or keys.note) then
    table.insert(
      parts,
      ("%s reject hunk · %s restore · %s note"):format(key(keys.reject_hunk), key(keys.restore_hunk), key(keys.note))
    )
  end
  if keys.allow or keys.deny then
    table.insert(parts, ("%s apply / %s reject"):format(key(keys.allow), key(keys.deny)))
  end
  return parts
end

--- The winbar of the proposal window being drawn, fitted to its width
--- (see text.winbar).
function M.winbar_of()
  local win, buf = text.drawn()
  local p = buf and M.open_[vim.b[buf].claudenova_proposal or ""]
  if not p then
    return ""
  end
  local width = vim.api.nvim_win_get_width(win)
  return "%#ClaudeNovaWinbar#" .. text.fit(winbar_parts(p.r, p, width), width)
end

local WINBAR = "%!v:lua.require'claudenova.core.text'.winbar('proposal')"

-- Fill the original side with the real file as it is on disk (for a
-- notebook cell: the cell's source before the edit, as Go read it).
local function load_original(buf, r)
  -- Not readonly while we fill it: no W10 "Changing a readonly file".
  vim.bo[buf].readonly = false
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  if r.cell and r.cell ~= "" then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(r.original or "", "\n", { plain = true }))
  elseif r.unsaved then
    -- A merge made from the user's buffer (edits not written yet): the
    -- original side is what they see, not the disk.
    local lines = vim.split((r.original or ""):gsub("\r\n", "\n"), "\n", { plain = true })
    if lines[#lines] == "" then
      table.remove(lines)
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  elseif r.exists and vim.fn.filereadable(r.path) == 1 then
    vim.api.nvim_buf_call(buf, function()
      -- ++edit: detect fileformat and encoding like :edit, so the diff
      -- compares like with like (CRLF files included).
      vim.cmd("silent keepalt read ++edit " .. vim.fn.fnameescape(r.path))
      vim.cmd("silent 1delete _")
    end)
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.bo[buf].readonly = true
end

-- The real file's content now (nil when it does not exist).
local function read_disk(path)
  local f = path ~= "" and io.open(path, "rb")
  if not f then
    return nil
  end
  local data = f:read("*a")
  f:close()
  return data
end

-- The real file's content and its stat, read off the editor's loop
-- (libuv's thread pool): cb(data or nil, stat or nil) runs in a fast
-- callback.
local function read_disk_async(path, cb)
  vim.uv.fs_open(path, "r", 438, function(oerr, fd)
    if oerr or not fd then
      return cb(nil)
    end
    vim.uv.fs_fstat(fd, function(serr, st)
      if serr or not st then
        vim.uv.fs_close(fd)
        return cb(nil)
      end
      vim.uv.fs_read(fd, st.size, 0, function(rerr, data)
        vim.uv.fs_close(fd)
        cb(not rerr and data or nil, st)
      end)
    end)
  end)
end

local function same_stat(a, b)
  return a and b and a.size == b.size and a.mtime.sec == b.mtime.sec and a.mtime.nsec == b.mtime.nsec
end

-- Warn as soon as the real file changes on disk while its proposal is
-- open, before any :w: the :w then merges the user's version with it (the
-- host never writes over it), and the winbar says so. What the file held
-- when the original side was read (p.disk_stat, its stat then) is read
-- again off the editor's loop: a large file's proposal opens without
-- reading it a third time. That read may come after a change (a file
-- written as the proposal opens): its stat tells, and the change is told.
local function watch_disk(p)
  local path = p.r.path or ""
  if path == "" or (p.r.cell and p.r.cell ~= "") then
    return
  end
  local function changed()
    if p.disk_changed or not M.open_[p.r.id] or p.saving or p.applying then
      return
    end
    p.disk_changed = true
    notify.warn(
      ("%s changed on disk after this proposal opened: :w merges your version with it (nothing is written over)"):format(
        p.r.target ~= "" and p.r.target or path
      )
    )
    p.on_change()
  end
  -- A change event: compare with what was read (once it is).
  local function check()
    if p.disk == false then
      p.disk_event = true -- the first read is under way: it checks when done
    elseif read_disk(path) ~= p.disk then
      changed()
    end
  end
  p.disk = false -- not read yet
  read_disk_async(path, function(data, st)
    if p.disk ~= false then
      return -- rebased meanwhile: read again then
    end
    p.disk = data
    if (st or p.disk_stat) and not same_stat(st, p.disk_stat) then
      vim.schedule(changed)
    elseif p.disk_event then
      vim.schedule(check) -- a change came while it was read
    end
  end)
  local w = vim.uv.new_fs_event()
  if not w then
    return
  end
  local dir, name = vim.fs.dirname(path), vim.fs.basename(path)
  local ok = w:start(dir, {}, function(_, file)
    if file ~= name then
      return
    end
    vim.schedule(check)
  end)
  if ok then
    p.watch = w
  else
    w:close()
  end
end

-- The filetype of a proposal: the real file's (the staged file's name may
-- say less, its folder is storage's), or a notebook cell's.
local function filetype_of(r, buf)
  return vim.filetype.match({ filename = (r.cell and r.cell ~= "") and r.staged or r.path, buf = buf })
end

-- Set a buffer's filetype unless it has it already: each setting runs
-- every FileType handler (syntax, ftplugin, language servers) again.
local function set_filetype(buf, ft)
  if ft and vim.bo[buf].filetype ~= ft then
    vim.bo[buf].filetype = ft
  end
end

local function scratch()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modeline = false
  return buf
end

-- Originals of large files read ahead, by request id: { buf, path, stat,
-- n } (see M.prepare; n: how many were read before it). At most PREPARED
-- are kept, the oldest go first.
local prepared, reads, PREPARED = {}, 0, 4

local function drop_prepared(id)
  local pre = prepared[id]
  prepared[id] = nil
  if pre and vim.api.nvim_buf_is_valid(pre.buf) then
    errors.try(vim.api.nvim_buf_delete, pre.buf, { force = true })
  end
end

-- The original read ahead for request r, when it is still the file on disk
-- (a stale one is wiped): read for the request, or before it came, under
-- the id r.prepared names.
local function take_prepared(r)
  local key = prepared[r.id] and r.id or r.prepared
  local pre = key and prepared[key]
  if
    pre
    and vim.api.nvim_buf_is_valid(pre.buf)
    and pre.path == r.path
    and r.exists
    and not (r.cell and r.cell ~= "")
    and same_stat(pre.stat, vim.uv.fs_stat(r.path))
  then
    prepared[key] = nil
    return pre.buf, pre.stat
  end
  if key then
    drop_prepared(key)
  end
  return nil
end

--- The original read ahead under id will not be needed: wiped.
function M.unprepare(id)
  drop_prepared(id)
end

--- Read the original side of request id's proposal (the file at path)
--- while the host stages it: the host asks for it on a large file, whose
--- reading is a good part of a proposal's opening. Its buffer is taken by
--- M.open when the file is still the same on disk, else made again.
function M.prepare(id, path)
  if prepared[id] or M.open_[id] then
    return
  end
  local stat = vim.uv.fs_stat(path)
  if not (stat and stat.type == "file") then
    return
  end
  if vim.tbl_count(prepared) >= PREPARED then
    local oldest
    for k, pre in pairs(prepared) do
      if not oldest or pre.n < prepared[oldest].n then
        oldest = k
      end
    end
    drop_prepared(oldest)
  end
  local buf = scratch()
  load_original(buf, { exists = true, path = path })
  set_filetype(buf, vim.filetype.match({ filename = path }))
  reads = reads + 1
  prepared[id] = { buf = buf, path = path, stat = stat, n = reads }
end

-- The original side's buffer, and the file's stat when it was read (nil
-- for a new file or a notebook cell).
local function original_buf(r, ft)
  local buf, stat = take_prepared(r)
  if not buf then
    buf = scratch()
    stat = r.exists and not (r.cell and r.cell ~= "") and vim.uv.fs_stat(r.path) or nil
    load_original(buf, r)
  end
  labels.name_buf(buf, "Original · " .. (r.exists and state.where(r) or (state.where(r) .. " (new file)")))
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "proposal"
  set_filetype(buf, ft or filetype_of(r))
  return buf, stat
end

local function set_keymaps(buf, r, p)
  local keys = cfg().keymaps.proposal
  keytable.map(buf, "proposal")
  -- Errors reach the user on one line; deciding keys wait out the grace
  -- period of a proposal that took the window on its own.
  local function guard(fn)
    return gesture.wrap(scheduler.guard(buf, fn))
  end
  for name, m in pairs({
    reject_hunk = { hunks.reject, "Put the original's lines back for the hunk under the cursor" },
    restore_hunk = { hunks.restore, "Put Claude's lines back for the hunk under the cursor" },
    note = { hunks.note, "Note for Claude on the hunk under the cursor" },
  }) do
    if keys[name] then
      vim.keymap.set(
        "n",
        keys[name],
        guard(function()
          m[1](p)
        end),
        { buffer = buf, desc = "claude-nova: " .. m[2] }
      )
    end
  end
  if keys.allow then
    vim.keymap.set(
      "n",
      keys.allow,
      guard(function()
        vim.cmd("write")
      end),
      { buffer = buf, desc = "claude-nova: Apply this proposal (save)" }
    )
  end
  if keys.deny then
    vim.keymap.set(
      "n",
      keys.deny,
      guard(function()
        vim.cmd("bwipeout! " .. buf)
      end),
      { buffer = buf, desc = "claude-nova: Reject this proposal" }
    )
  end
  if keys.deny_stop then
    vim.keymap.set(
      "n",
      keys.deny_stop,
      guard(function()
        actions.deny_stop(r.id, "surface")
      end),
      { buffer = buf, desc = "claude-nova: Reject this proposal and end the turn" }
    )
  end
end

local function win_of(buf, tab)
  local wins = tab and vim.api.nvim_tabpage_list_wins(tab) or vim.api.nvim_list_wins()
  for _, w in ipairs(wins) do
    if vim.api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
  return nil
end

-- Load the staged file into a new buffer in the current window. The file is
-- Claude's content, not the user's: its modelines are not run, and no swap
-- or undo file of it is written (nor left in storage).
local function load_staged(path)
  local buf = vim.fn.bufadd(path)
  vim.b[buf].editorconfig = false -- keep the file's own line ends and final newline
  local saved = { modeline = vim.go.modeline, undofile = vim.go.undofile }
  vim.go.modeline = false -- a new buffer takes the global values
  vim.go.undofile = false
  local ok, err = pcall(function()
    vim.cmd("noswapfile keepalt buffer " .. buf)
  end)
  vim.go.modeline, vim.go.undofile = saved.modeline, saved.undofile
  if not ok then
    error(err, 0)
  end
  vim.bo[buf].modeline = false
  vim.bo[buf].undofile = false
  vim.bo[buf].swapfile = false
  return buf
end

-- Give a proposal its layout back: the proposal window (focused) with the
-- original beside it, both in diff mode.
local function restore(p)
  local pwin = win_of(p.buf)
  if not pwin then
    return false
  end
  vim.api.nvim_set_current_win(pwin)
  local tab = vim.api.nvim_win_get_tabpage(pwin)
  if not vim.api.nvim_buf_is_valid(p.orig) then
    p.orig = (original_buf(p.r, p.ft))
  end
  if not (p.header and vim.api.nvim_win_is_valid(p.header)) and p.r.said and p.r.said ~= "" then
    -- What Claude said before it asked, above both sides.
    p.header, p.header_buf = header.open(pwin, p.r.said)
  end
  if not win_of(p.orig, tab) then
    -- Side by side; on a narrow screen (under 80 columns) the original goes
    -- above, so that each side has the whole width and no change is cut.
    vim.cmd(vim.o.columns < 80 and "leftabove split" or "leftabove vsplit")
    local owin = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(owin, p.orig)
    labels.apply(owin)
    local what = p.r.exists and state.where(p.r) or "(new file)"
    if p.r.cell and p.r.cell ~= "" then
      what = (p.r.original and p.r.original ~= "" or not p.r.cell:match("^a new"))
          and (p.r.cell .. " of " .. p.r.target)
        or ("(" .. p.r.cell .. ")")
    end
    vim.wo[owin].winbar = "%#ClaudeNovaWinbar#Original · " .. what:gsub("%%", "%%%%")
    -- Both sides keep a sign column: a diagnostic on one side never shifts it.
    vim.wo[owin].signcolumn = "yes:1"
    vim.cmd("diffthis")
    vim.api.nvim_set_current_win(pwin)
  end
  vim.wo[pwin].signcolumn = "yes:1"
  vim.cmd("diffthis")
  return true
end

-- After the screen changes size, each proposal's two sides share its width
-- again (Neovim gives the change to one window).
local function refit()
  for _, p in pairs(M.open_) do
    local pwin = win_of(p.buf)
    if pwin then
      errors.try(vim.api.nvim_win_call, pwin, function()
        vim.cmd("wincmd =")
      end)
    end
  end
end

--- Open the proposal of request r (or give it its layout back).
--- opts.grace: it opened on its own; its keys wait a moment.
function M.open(r, opts)
  opts = opts or {}
  if not M.layout_group then
    M.layout_group = vim.api.nvim_create_augroup("ClaudeNovaProposalLayout", { clear = true })
    vim.api.nvim_create_autocmd("VimResized", {
      group = M.layout_group,
      desc = "claude-nova: a proposal's sides share the screen again",
      callback = refit,
    })
  end
  local existing = M.open_[r.id]
  if existing and vim.api.nvim_buf_is_valid(existing.buf) and restore(existing) then
    return
  end
  if not r.staged or r.staged == "" then
    notify.error("this proposal has no staged file")
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
  local buf = load_staged(r.staged)
  local pwin = vim.api.nvim_get_current_win()
  vim.bo[buf].bufhidden = "wipe"
  -- Keep the file's own final-newline state: byte-exact results.
  vim.bo[buf].fixendofline = false
  vim.b[buf].claudenova_proposal = r.id
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "proposal"
  -- Loading it detected a filetype from the staged name: the real file's
  -- may differ.
  local ft = filetype_of(r, buf)
  set_filetype(buf, ft)

  local group = vim.api.nvim_create_augroup("ClaudeNovaProposal_" .. buf, { clear = true })
  local orig, disk_stat = original_buf(r, ft)
  local p = {
    buf = buf,
    orig = orig,
    disk_stat = disk_stat,
    ft = ft,
    tab = layout == "tab" and vim.api.nvim_get_current_tabpage() or nil,
    group = group,
    r = r,
    saving = false,
  }
  -- The staged file's path is storage's, not the user's: the status line
  -- and the tab line name what it is instead.
  labels.set(buf, "Proposal · " .. (r.target ~= "" and r.target or r.path))
  p.on_change = function()
    for _, w in ipairs(vim.fn.win_findbuf(p.buf)) do
      vim.wo[w].winbar = WINBAR
    end
  end
  M.open_[r.id] = p
  restore(p)
  p.on_change()
  hunks.place(p, r.hunks)
  watch_disk(p)
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    buffer = buf,
    desc = "claude-nova: saving the proposal applies it",
    callback = function()
      if not p.saving then
        -- The host may write the real file itself now (a merge): that is
        -- no change behind the user's back.
        p.applying = true
        actions.answer(r.id, "saved", { review = hunks.review(p) })
        -- In place of Neovim's "<storage path> written", which names the
        -- staged file: what the :w did.
        vim.schedule(function()
          notify.info(("%s: sent as you saved it"):format(r.target ~= "" and r.target or r.path))
        end)
      end
    end,
  })
  local pending_render = false
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    group = group,
    buffer = buf,
    desc = "claude-nova: keep the hunk tally current",
    callback = function()
      p.applying = false
      if pending_render then
        return
      end
      pending_render = true
      vim.defer_fn(function()
        pending_render = false
        hunks.render(p)
      end, 150)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWipeout", "BufDelete" }, {
    group = group,
    buffer = buf,
    desc = "claude-nova: closing the proposal rejects it",
    callback = function()
      if M.open_[r.id] == p then
        M.open_[r.id] = nil
        errors.try(vim.api.nvim_del_augroup_by_id, group)
        actions.answer(r.id, "wiped", { review = hunks.review(p) })
        vim.schedule(function()
          M.tidy(p)
        end)
      end
    end,
  })
  set_keymaps(buf, r, p)
  if opts.grace then
    scheduler.start_grace(buf, p.on_change)
  end
end

--- Apply a proposal now, as :w would (a command or the Lua API asked):
--- the buffer, with the user's edits, is written and applied. Returns the
--- host's answer ({decided, reason}).
function M.apply(r, behavior, opts, via)
  opts = opts or {}
  local p = M.open_[r.id]
  local review = vim.NIL
  if p and vim.api.nvim_buf_is_valid(p.buf) then
    p.saving = true
    local ok, err = pcall(vim.api.nvim_buf_call, p.buf, function()
      vim.cmd("silent write")
    end)
    p.saving = false
    if ok then
      review = hunks.review(p)
    elseif vim.fn.filereadable(r.staged) ~= 0 then
      error(err, 0)
    end
    -- Else its :w was answered a moment ago: the host took the staged file
    -- away before this side heard that the request went, and says so.
  end
  return actions.answer(r.id, "apply", {
    behavior = behavior,
    review = review,
    rules = opts.rules,
    destination = opts.destination,
    via = via,
  })
end

--- Close what is left of a proposal's layout: its original side and, in a
--- tab of its own, the tab once only claude-nova windows remain in it.
function M.tidy(p)
  if p.watch then
    errors.try(p.watch.stop, p.watch)
    errors.try(p.watch.close, p.watch)
    p.watch = nil
  end
  tabs.close(p.tab, { p.buf, p.orig, p.header_buf })
  header.close(p.header)
  tabs.wipe({ p.buf, p.orig })
end

local function keep_edits(p, why)
  rescue.keep(p.buf, "the proposal for " .. p.r.target, why, p.r.path ~= "" and p.r.path or p.r.target)
end

--- The request left the registry: close its windows (keeping unsaved edits).
function M.withdraw(id, outcome)
  drop_prepared(id)
  local p = M.open_[id]
  if not p then
    return
  end
  M.open_[id] = nil
  errors.try(vim.api.nvim_del_augroup_by_id, p.group)
  -- Modified still (or again): edits the answer did not carry, e.g. typed
  -- on after :w. Applied or not, they are kept.
  if vim.api.nvim_buf_is_valid(p.buf) and vim.bo[p.buf].modified then
    local applied = tostring(outcome):match("^applied")
    keep_edits(
      p,
      applied and "applied without your edits made after it was saved"
        or ("the proposal was " .. tostring(outcome):gsub(":.*", ""))
    )
  end
  -- Windows of the proposal close; a tab of its own goes with them.
  for _, b in ipairs({ p.buf, p.orig }) do
    if vim.api.nvim_buf_is_valid(b) then
      for _, w in ipairs(vim.fn.win_findbuf(b)) do
        if #vim.api.nvim_list_wins() > 1 then
          errors.try(vim.api.nvim_win_close, w, true)
        end
      end
    end
  end
  M.tidy(p)
end

--- The real file changed on disk: show its current content as the
--- original and, when Go restaged the proposal (Claude's change re-applied,
--- the user's edits merged), reload the proposal buffer.
function M.rebase(data)
  local p = M.open_[data.id]
  if not p then
    return
  end
  p.r.exists = data.exists
  if data.original then
    p.r.original = data.original
  end
  -- The merge took the file as it is now: a later change warns again.
  p.disk, p.disk_changed = read_disk(p.r.path or ""), false
  p.disk_stat = vim.uv.fs_stat(p.r.path or "")
  if vim.api.nvim_buf_is_valid(p.orig) then
    load_original(p.orig, p.r)
  end
  if data.reload and vim.api.nvim_buf_is_valid(p.buf) then
    if vim.bo[p.buf].modified then
      keep_edits(p, "the proposal was refreshed")
    end
    vim.api.nvim_buf_call(p.buf, function()
      vim.cmd("silent edit!")
    end)
    hunks.place(p, data.hunks)
    local first = data.conflicts and data.conflicts[1]
    local w = win_of(p.buf)
    if first and w then
      errors.try(vim.api.nvim_win_set_cursor, w, { first, 0 })
    end
  end
  for _, w in ipairs(vim.fn.win_findbuf(p.buf)) do
    vim.api.nvim_win_call(w, function()
      errors.try(vim.cmd, "diffupdate")
    end)
  end
end

text.register_winbar("proposal", M.winbar_of)

return M
