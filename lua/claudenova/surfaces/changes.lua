-- :ClaudeNova changes: the files a turn changed, each as a diff from before
-- the turn (left) to what is on disk now (right), with per-hunk undo (the
-- before-turn lines go back on disk, Claude is told) and keep (reviewed).
-- The host owns the disk: it computes the hunks, checks the file did not
-- change since it was shown, and writes. The same view shows a review round
-- (:ClaudeNova changes round, ui.round: view.round is set): every file
-- Claude changed since the review baseline; comments on its lines go with
-- the next review (ui.comments).
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local draw = require("claudenova.core.render")
local actions = require("claudenova.store.actions")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local blocks = require("claudenova.core.blocks")
local state = require("claudenova.store.state")
local textutil = require("claudenova.core.text")
local comments = require("claudenova.surfaces.comments")

local M = {}

local notify = require("claudenova.setup.notify")

local function cfg()
  return config.get()
end

M.views = {} ---@type table<integer, table> right-side buffer -> view

local function set_lines(buf, text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
    vim.bo[buf].endofline = true
  else
    vim.bo[buf].endofline = text == ""
  end
  lines = vim.tbl_map(function(l)
    return (l:gsub("\r$", ""))
  end, lines)
  draw.lines(buf, nil, lines)
  vim.bo[buf].modified = false
end

local function scratch(name, label, text, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  errors.try(vim.api.nvim_buf_set_name, buf, name)
  labels.set(buf, label)
  set_lines(buf, text)
  if ft then
    vim.bo[buf].filetype = ft
  end
  vim.b[buf].claudenova_surface = "changes"
  return buf
end

local function key_of(h)
  return h.a .. ":" .. h.del
end

--- The blocks of a file's change as diff mode draws them (ui/blocks.lua),
--- each with who wrote its lines when it was not the session.
function M.blocks(f)
  return blocks.of_file(f)
end

--- The tally of a view: hunks left, undone, kept.
function M.tally(v)
  local kept = 0
  for _, h in ipairs(M.blocks(v.file)) do
    if v.kept[key_of(h)] then
      kept = kept + 1
    end
  end
  return { hunks = #M.blocks(v.file), undone = v.undone, kept = kept }
end

local function winbar_parts(v, width)
  local keys = cfg().keymaps.changes
  local key = textutil.key
  local t = M.tally(v)
  local head = ("Now · %s%s%s · %d hunk%s"):format(
    state.session_prefix(v.session),
    v.file.rel,
    M.by(v.file),
    t.hunks,
    t.hunks == 1 and "" or "s"
  )
  if t.undone > 0 then
    head = head .. (" · %d undone"):format(t.undone)
  end
  if t.kept > 0 then
    head = head .. (" · %d kept"):format(t.kept)
  end
  local how = ("%s undo hunk · %s keep"):format(key(keys.undo_hunk), key(keys.keep_hunk))
  local comment = keys.comment and ("%s comment"):format(key(keys.comment)) or ""
  local parts = { head, how, comment, ("%s close · ]c next"):format(key(keys.close)) }
  if width and width < vim.fn.strdisplaywidth(head) + 3 + vim.fn.strdisplaywidth(how) then
    parts = { how, head, comment, parts[4] } -- narrow: what to do first
  end
  if cfg().keymaps.help then
    table.insert(parts, key(cfg().keymaps.help) .. " keys")
  end
  return parts
end

--- The winbar of the changes window being drawn, fitted to its width.
function M.winbar_of()
  local win, buf = textutil.drawn()
  local v = buf and M.views[buf]
  if not v then
    return ""
  end
  return "%#ClaudeNovaWinbar#"
    .. textutil.fit(winbar_parts(v, vim.api.nvim_win_get_width(win)), vim.api.nvim_win_get_width(win))
end

local ns = vim.api.nvim_create_namespace("claudenova_changes")

local function render(v)
  set_lines(v.before, v.file.before)
  set_lines(v.now, v.file.now)
  local notes = {}
  for _, h in ipairs(M.blocks(v.file)) do
    local marks = {}
    local who = h.who
    if who ~= "" then
      -- Not this session's change: say whose.
      table.insert(marks, { "by " .. who, "ClaudeNovaNote" })
    end
    if v.kept[key_of(h)] then
      table.insert(marks, { (#marks > 0 and " · " or "") .. "kept", "ClaudeNovaNote" })
    end
    if #marks > 0 then
      table.insert(notes, { h.b - 1, 0, { virt_text = marks, virt_text_pos = "eol" } })
    end
  end
  draw.marks(v.now, ns, notes)
  for _, w in ipairs(vim.fn.win_findbuf(v.now)) do
    vim.wo[w].winbar = "%!v:lua.require'claudenova.core.text'.winbar('changes')"
  end
  if M.views[v.now] then
    comments.render(v.now)
  end
  for _, b in ipairs({ v.before, v.now }) do
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      vim.api.nvim_win_call(w, function()
        vim.cmd("diffupdate")
      end)
    end
  end
end

--- The hunk (index, hunk) under line lnum of the right side: the lines it
--- put there, or for a deletion the line it sits on or after.
function M.hunk_at(v, lnum)
  for i, h in ipairs(M.blocks(v.file)) do
    if h.ins > 0 and lnum >= h.b and lnum < h.b + h.ins then
      return i, h
    end
    if h.ins == 0 and (lnum == h.b - 1 or lnum == h.b or (h.b == 1 and lnum == 1)) then
      return i, h
    end
  end
end

-- The file's own buffer, when it is loaded.
local function file_buf(path)
  local buf = vim.fn.bufnr(path)
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    return buf
  end
end

local function next_hunk(v, from)
  for _, h in ipairs(M.blocks(v.file)) do
    if h.b > from then
      local w = vim.fn.win_findbuf(v.now)[1]
      if w then
        vim.api.nvim_win_set_cursor(w, { math.max(1, math.min(h.b, vim.api.nvim_buf_line_count(v.now))), 0 })
      end
      return
    end
  end
end

local undo_hunk

--- Undo the hunk under the cursor of view v. A hunk that holds someone
--- else's change (another session's, yours) is undone only when you choose
--- to; keeping it is the default.
function M.undo(v)
  if v.branch then
    notify.info(
      ("%s is the branch's work, not on your disk: :ClaudeNova merge brings it over as proposals"):format(v.file.rel)
    )
    return
  end
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local i = M.hunk_at(v, lnum)
  if not i then
    notify.info("no hunk under the cursor (]c goes to the next)")
    return
  end
  local own = file_buf(v.file.path)
  if own and vim.bo[own].modified then
    notify.warn(
      ("%s has unsaved edits in the editor: save or discard them first (nothing was undone)"):format(v.file.rel)
    )
    return
  end
  local h = M.blocks(v.file)[i]
  local who = h.who
  if who ~= "" then
    local undo = ("Undo it: the change by %s goes too (told so)"):format(who)
    vim.ui.select({ "Keep it", undo }, {
      prompt = ("Hunk %d of %s was changed by %s."):format(i, v.file.rel, who),
    }, function(choice)
      if choice == undo then
        undo_hunk(v, i, own, true)
      end
    end)
    return
  end
  undo_hunk(v, i, own, false)
end

undo_hunk = function(v, i, own, others)
  local h = M.blocks(v.file)[i]
  local ok, res = pcall(calls.request, "undo_hunk", {
    session = v.session,
    turn = v.turn,
    path = v.file.path,
    hunk = i,
    -- The block as diff mode draws it.
    range = { a = h.a, del = h.del, b = h.b, ins = h.ins },
    sum = v.file.sum,
    round = v.round ~= nil,
    others = others,
  })
  if not ok then
    notify.error(res)
    -- The file changed since: show it as it is.
    local ok2, view
    if v.round then
      ok2, view = pcall(calls.request, "review_round", { session = v.session })
    else
      ok2, view = pcall(calls.request, "changes", { session = v.session, turn = v.turn })
    end
    if ok2 then
      for _, f in ipairs(view.files) do
        if f.path == v.file.path then
          v.file = f
          render(v)
        end
      end
    end
    return
  end
  v.file = res
  v.undone = v.undone + 1
  if own then
    vim.api.nvim_buf_call(own, function()
      vim.cmd("silent! checktime")
      if vim.uv.fs_stat(v.file.path) then
        vim.cmd("silent! edit!")
      end
    end)
  end
  render(v)
  notify.info(("undid hunk %d of %s; Claude is told"):format(i, v.file.rel))
end

--- Keep the hunk under the cursor (reviewed) and go to the next one.
function M.keep(v)
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local i, h = M.hunk_at(v, lnum)
  if not i then
    notify.info("no hunk under the cursor (]c goes to the next)")
    return
  end
  v.kept[key_of(h)] = true
  render(v)
  local t = M.tally(v)
  notify.info(("kept hunk %d of %s (%d of %d kept); nothing changes on disk"):format(i, v.file.rel, t.kept, t.hunks))
  next_hunk(v, lnum)
end

local function close(v)
  if v.tab and vim.api.nvim_tabpage_is_valid(v.tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd("tabclose " .. vim.api.nvim_tabpage_get_number(v.tab))
  else
    for _, b in ipairs({ v.before, v.now }) do
      if vim.api.nvim_buf_is_valid(b) then
        errors.try(vim.api.nvim_buf_delete, b, { force = true })
      end
    end
  end
end

--- Open one file of a turn's changes in a tab: before the turn ↔ now.
function M.open_file(view, f)
  if f.error then
    notify.warn(("%s: %s"):format(f.rel, f.error))
    return
  end
  local ft = vim.filetype.match({ filename = f.path })
  local what = M.what(view)
  local base = view.round and ("claudenova://round/%d/%d/"):format(view.session, view.round)
    or view.branch and ("claudenova://branch/%d/"):format(view.session)
    or ("claudenova://changes/%d/%d/"):format(view.session, view.n)
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local placeholder = vim.api.nvim_get_current_buf()
  local v = {
    session = view.session,
    turn = view.turn,
    n = view.n,
    round = view.round,
    branch = view.branch,
    file = f,
    undone = 0,
    kept = {},
    tab = tab,
    before = scratch(base .. "before/" .. f.rel, ("Before %s · %s"):format(what, f.rel), f.before, ft),
    now = scratch(base .. "now/" .. f.rel, ("Changes of %s · %s"):format(what, f.rel), f.now, ft),
  }
  vim.api.nvim_win_set_buf(0, v.now)
  labels.apply(vim.api.nvim_get_current_win())
  if vim.api.nvim_buf_is_valid(placeholder) and placeholder ~= v.now then
    errors.try(vim.api.nvim_buf_delete, placeholder, { force = true })
  end
  vim.wo.signcolumn = "yes:1" -- both sides: a diagnostic never shifts one
  vim.cmd("diffthis")
  vim.cmd("leftabove vsplit")
  vim.api.nvim_win_set_buf(0, v.before)
  vim.wo.signcolumn = "yes:1"
  labels.apply(vim.api.nvim_get_current_win())
  vim.wo.winbar = "%#ClaudeNovaWinbar#Before "
    .. what
    .. " · "
    .. (f.existed and f.rel or "(did not exist)"):gsub("%%", "%%%%")
  vim.cmd("diffthis")
  vim.cmd("wincmd l")
  M.views[v.now] = v
  local keys = cfg().keymaps.changes
  local maps = {
    {
      keys.undo_hunk,
      function()
        M.undo(v)
      end,
      "undo the hunk under the cursor (its lines before the turn go back on disk; Claude is told)",
    },
    {
      keys.keep_hunk,
      function()
        M.keep(v)
      end,
      "keep the hunk under the cursor, go to the next",
    },
    {
      keys.close,
      function()
        close(v)
      end,
      "close the changes view",
    },
  }
  for _, b in ipairs({ v.before, v.now }) do
    for _, m in ipairs(maps) do
      if m[1] then
        vim.keymap.set("n", m[1], m[2], { buffer = b, desc = "claude-nova: " .. m[3] })
      end
    end
    if keys.comment then
      comments.keys(b, keys.comment)
    end
    keytable.map(b, "changes")
  end
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = v.now,
    once = true,
    callback = function()
      M.views[v.now] = nil
    end,
  })
  render(v)
  local key = textutil.key
  if v.branch then
    notify.info(("%s keep a hunk, %s close: %s on %s"):format(key(keys.keep_hunk), key(keys.close), f.rel, v.branch))
  else
    notify.info(
      ("%s undo a hunk, %s keep it, %s close: changes of %s"):format(
        key(keys.undo_hunk),
        key(keys.keep_hunk),
        key(keys.close),
        f.rel
      )
    )
  end
  local blocks = M.blocks(f)
  if #blocks > 0 then
    vim.api.nvim_win_set_cursor(0, { math.max(1, math.min(blocks[1].b, vim.api.nvim_buf_line_count(v.now))), 0 })
  end
  return v
end

--- " · by `sed -i …`" when a command changed the file (a file tool: ""),
--- after sep (default " · ").
function M.by(f, sep)
  if not f.by or f.by == "" then
    return ""
  end
  return ("%sby `%s`"):format(sep or " · ", textutil.first_line(f.by, 40))
end

--- What a view shows: "prompt 3", or "round 2" for a review round.
function M.what(view)
  if view.branch then
    return view.branch
  end
  if view.round then
    return ("round %d"):format(view.round)
  end
  return ("prompt %d"):format(view.n)
end

--- :ClaudeNova changes [N]: the files prompt N (default: the last that
--- changed a file) changed; one opens at once, several are picked.
function M.open(session, turn)
  session = session or actions.session_in_view() or 0
  local args = { session = session }
  if type(turn) == "number" then
    args.n = turn
  elseif turn then
    args.turn = turn
  end
  return M.show(calls.request("changes", args))
end

--- Show the files of a view (a turn's changes, or a round's): one opens at
--- once, several are picked.
function M.show(view)
  if #view.files == 1 then
    return M.open_file(view, view.files[1])
  end
  local prompt = ("Files changed by %s:"):format(M.what(view))
  if view.round then
    prompt = ("Files Claude changed since %s (round %d):"):format(os.date("%H:%M", view.since), view.round)
  end
  vim.ui.select(view.files, {
    prompt = prompt,
    format_item = function(f)
      if f.error then
        return f.rel .. " · " .. f.error
      end
      return ("%s%s · %d hunk%s%s"):format(
        f.rel,
        M.by(f),
        #M.blocks(f),
        #M.blocks(f) == 1 and "" or "s",
        f.existed and "" or " · new file"
      )
    end,
    kind = "claudenova.changes",
  }, function(f)
    if f then
      M.open_file(view, f)
    end
  end)
end

textutil.register_winbar("changes", M.winbar_of)
comments.add_view_finder(function(buf)
  return M.views[buf]
end)

return M
