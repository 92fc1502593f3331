-- Review comments: the user's comments on lines of the files Claude changed,
-- for the next review (:ClaudeNova comment, <localleader>c in the changes
-- view and in the buffers of changed files). The host keeps them (per
-- session folder, on disk) and sends them as one message; this module shows
-- each as virtual lines under its last line, in the file's buffer and in the
-- changes view, with extmarks that follow the user's edits (their places go
-- back to the host when the buffer is written, and before a list or a send).
local actions = require("claudenova.store.actions")
local render = require("claudenova.core.render")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local textutil = require("claudenova.core.text")

local blocks = require("claudenova.core.blocks")

local M = {}

local notify = require("claudenova.setup.notify")

local ns = vim.api.nvim_create_namespace("claudenova_comments")
M.ns = ns

-- What the host last said, per folder: { comments = { … }, files = { path = true } }.
M.folders = {}
-- Per buffer: comment id -> { top = extmark, bottom = extmark (carries the text) }.
M.marks = {}

-- The views above this module tell it what it cannot know itself, by
-- registering when they load: which file a view's buffer shows (the
-- changes view), and who hears that Claude's lines landed (blame).
local finders = {} ---@type (fun(buf: integer): table|nil)[]
local landed_listeners = {} ---@type fun(paths: string[])[]

--- fn(buf) returns the view buf belongs to ({ file = { path = … } }) or nil.
function M.add_view_finder(fn)
  table.insert(finders, fn)
end

--- Call fn(paths) when the host says Claude's lines landed in paths.
function M.on_landed(fn)
  table.insert(landed_listeners, fn)
end

local changed_listeners = {} ---@type fun()[]

--- Call fn() when the comments changed (added, edited, sent, moved).
function M.on_changed(fn)
  table.insert(changed_listeners, fn)
end

local function cfg()
  return config.get()
end

local function key(lhs)
  return textutil.key(lhs)
end

--- The session in view (0: the current one) and the editor's folder: what
--- every review call is about.
function M.args(extra)
  local ok, sid = pcall(function()
    return actions.session_in_view()
  end)
  local out = { session = (ok and sid) or 0, cwd = vim.fn.getcwd() }
  for k, v in pairs(extra or {}) do
    out[k] = v
  end
  return out
end

--- The file buf shows (an absolute path) and, in the changes view, its view.
function M.path_of(buf)
  for _, find in ipairs(finders) do
    local v = find(buf)
    if v then
      return v.file.path, v
    end
  end
  if vim.bo[buf].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return vim.fn.fnamemodify(name, ":p")
end

local function buffer_text(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, "\n")
  if vim.bo[buf].eol and not (#lines == 1 and lines[1] == "") then
    text = text .. "\n"
  end
  return text
end
M.buffer_text = buffer_text

--- The unsent comments on path, by line.
function M.on(path)
  local out = {}
  for _, f in pairs(M.folders) do
    for _, c in ipairs(f.comments or {}) do
      if c.path == path then
        table.insert(out, c)
      end
    end
  end
  return M.by_line(out)
end

--- list (of { from, … }) sorted by its first line, in place; returns it.
function M.by_line(list)
  table.sort(list, function(a, b)
    return a.from < b.from
  end)
  return list
end

local function changed_file(path)
  for _, f in pairs(M.folders) do
    if f.files and f.files[path] then
      return true
    end
  end
  return false
end

local function remember(cwd, comments, files)
  local f = M.folders[cwd] or {}
  f.comments = comments or f.comments or {}
  if files then
    f.files = {}
    for _, p in ipairs(files) do
      f.files[p] = true
    end
  end
  M.folders[cwd] = f
end

-- Words of s in lines of at most width cells (a longer word stays whole).
local function wrap(s, width)
  local out, line = {}, ""
  for word in s:gmatch("%S+") do
    if line ~= "" and vim.fn.strdisplaywidth(line .. " " .. word) > width then
      table.insert(out, line)
      line = word
    else
      line = line == "" and word or (line .. " " .. word)
    end
  end
  table.insert(out, line)
  return out
end

-- The comment's text as virtual lines under its line: "✎ " and its lines,
-- wrapped to the window (width cells), at most eight (then `more` says
-- where the rest is).
local function virt_lines(c, indent, width, more)
  local head = c.to > c.from and ("✎ %d-%d: "):format(c.from, c.to) or "✎ "
  local room = math.max(20, width - vim.fn.strdisplaywidth(indent) - vim.fn.strdisplaywidth(head))
  local rows = {}
  for _, l in ipairs(vim.split(c.text, "\n", { plain = true })) do
    vim.list_extend(rows, wrap(l, room))
  end
  local out = {}
  for i, l in ipairs(rows) do
    if i > 8 then
      out[#out] = {
        {
          indent
            .. string.rep(" ", vim.fn.strdisplaywidth(head))
            .. (more or "… (:ClaudeNova comments shows it all)"),
          "ClaudeNovaComment",
        },
      }
      break
    end
    local lead = i == 1 and head or string.rep(" ", vim.fn.strdisplaywidth(head))
    table.insert(out, { { indent .. lead .. l, "ClaudeNovaComment" } })
  end
  return out
end

M.virt_lines = virt_lines

-- The text width of the narrowest window showing buf (80 when none does).
local function text_width(buf)
  local width
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    local info = vim.fn.getwininfo(w)[1]
    local tw = vim.api.nvim_win_get_width(w) - (info and info.textoff or 0) - 1
    width = math.min(width or tw, tw)
  end
  return width or 80
end
M.text_width = text_width

-- In the changes view, the line of the left side (before) that faces line
-- lnum of the right side (now): a comment's virtual lines on the right get
-- as many blank ones there, so that the two sides stay lined up.
local function mark_row(buf, id)
  local m = id and vim.api.nvim_buf_get_extmark_by_id(buf, ns, id, {})
  return m and m[1]
end

--- Where the comments of buf are now (1-based), by id: their marks
--- followed the buffer's edits.
function M.places(buf)
  local out = {}
  for id, m in pairs(M.marks[buf] or {}) do
    local top, bottom = mark_row(buf, m.top), mark_row(buf, m.bottom)
    if top and bottom then
      out[id] = { from = top + 1, to = math.max(top, bottom) + 1 }
    end
  end
  return out
end

--- Show the comments of buf's file in buf. A buffer with unsaved edits
--- keeps the places its marks followed to; otherwise the host's places
--- count (they followed Claude's edits).
function M.render(buf)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local path, view = M.path_of(buf)
  if not path then
    return
  end
  local keep = not view and vim.bo[buf].modified
  local here = keep and M.places(buf) or {}
  local left = view and vim.api.nvim_buf_is_valid(view.before) and view.before
  if left then
    vim.api.nvim_buf_clear_namespace(left, ns, 0, -1)
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local width = text_width(buf)
  local marks, placed = {}, {}
  for _, c in ipairs(M.on(path)) do
    local at = here[c.id] or { from = c.from, to = c.to }
    local top = math.min(math.max(at.from, 1), count) - 1
    local bottom = math.min(math.max(at.to, at.from), count) - 1
    local line = vim.api.nvim_buf_get_lines(buf, bottom, bottom + 1, false)[1] or ""
    local indent = line:match("^%s*"):gsub("\t", string.rep(" ", vim.bo[buf].tabstop))
    local vl = virt_lines(c, indent, width)
    -- Each comment's range, tracked as the buffer changes (its ids below).
    table.insert(placed, { top, 0, { right_gravity = false } })
    table.insert(placed, { bottom, 0, { right_gravity = false, virt_lines = vl } })
    table.insert(marks, c.id)
    if left then
      -- The other side keeps in step: as many blank lines where it faces.
      blocks.pad(left, ns, blocks.facing(blocks.of_file(view.file), bottom + 1), #vl)
    end
  end
  local ids = render.marks(buf, ns, placed)
  local by_id = {}
  for i, id in ipairs(marks) do
    by_id[id] = { top = ids[2 * i - 1], bottom = ids[2 * i] }
  end
  M.marks[buf] = by_id
  M.map(buf)
end

--- Every buffer showing path (its own, and changes views of it).
local function bufs_of(path)
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and M.path_of(b) == path then
      table.insert(out, b)
    end
  end
  return out
end

local function render_all()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and (M.marks[b] or (M.path_of(b) and #M.on(M.path_of(b)) > 0)) then
      M.render(b)
    end
  end
end

--- The moves to tell the host (comments whose marks moved in buffers of
--- their files) and the texts of those buffers with unsaved edits.
function M.collect()
  local moves, buffers = {}, {}
  local by_id = {}
  for _, f in pairs(M.folders) do
    for _, c in ipairs(f.comments or {}) do
      by_id[c.id] = c
    end
  end
  for buf in pairs(M.marks) do
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_is_loaded(buf) then
      local path, view = M.path_of(buf)
      if path and not view then
        for id, at in pairs(M.places(buf)) do
          local c = by_id[id]
          if c and (c.from ~= at.from or c.to ~= at.to) then
            table.insert(moves, { id = id, from = at.from, to = at.to })
          end
        end
        if vim.bo[buf].modified then
          buffers[path] = buffer_text(buf)
        end
      end
    else
      M.marks[buf] = nil
    end
  end
  return moves, buffers
end

--- Tell the host where the comments are now (before a list or a send, and
--- when a buffer is written).
function M.sync()
  local moves = M.collect()
  if #moves == 0 then
    return
  end
  calls.request("comments_move", M.args({ moves = moves }))
  local by_id = {}
  for _, m in ipairs(moves) do
    by_id[m.id] = m
  end
  for _, f in pairs(M.folders) do
    for _, c in ipairs(f.comments or {}) do
      local m = by_id[c.id]
      if m then
        c.from, c.to = m.from, m.to
      end
    end
  end
end

local ready = false

--- First use of the review in this editor: keep buffers showing their
--- comments as they are opened, and the host told where they moved.
function M.ensure()
  if ready then
    return
  end
  ready = true
  local group = vim.api.nvim_create_augroup("ClaudeNovaComments", { clear = true })
  vim.api.nvim_create_autocmd({ "BufWinEnter", "BufReadPost", "FileChangedShellPost" }, {
    group = group,
    desc = "claude-nova: show the review comments of the file",
    callback = function(ev)
      local path = M.path_of(ev.buf)
      if path and (#M.on(path) > 0 or M.marks[ev.buf] or changed_file(path)) then
        -- After a reload the host's places count again.
        M.render(ev.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    desc = "claude-nova: tell the host where the review comments moved",
    callback = function(ev)
      if M.marks[ev.buf] then
        errors.guard(M.sync)()
      end
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    desc = "claude-nova: forget the comment marks of a closed buffer (the host keeps the comments)",
    callback = function(ev)
      M.marks[ev.buf] = nil
    end,
  })
end

--- Ask the host for the folder's comments and show them.
function M.load()
  M.ensure()
  local v = calls.request("comments", M.args())
  remember(v.cwd, v.comments, v.files)
  render_all()
  return v
end

--- The review event from the host (inside its call: nothing here calls
--- the host back).
function M.changed(data)
  remember(data.cwd, data.comments, data.files)
  vim.schedule(function()
    M.ensure()
    render_all()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      local path = vim.api.nvim_buf_is_loaded(b) and M.path_of(b)
      if path and changed_file(path) then
        M.map(b)
      end
    end
    if data.blame and #data.blame > 0 then
      for _, fn in ipairs(landed_listeners) do
        fn(data.blame)
      end
    end
    M.redraw_list(data.cwd)
    for _, fn in ipairs(changed_listeners) do
      fn()
    end
  end)
end

--- Map the comment key (keymaps.review.comment) in buf when it shows a file
--- Claude changed this round or one with comments, unless a mapping of the
--- user's has that key in buf.
function M.map(buf)
  local lhs = cfg().keymaps.review.comment
  local path, view = M.path_of(buf)
  if not lhs or view or not path or vim.b[buf].claudenova_comment_key then
    return
  end
  if not changed_file(path) and #M.on(path) == 0 then
    return
  end
  local mine = vim.fn.maparg(key(lhs), "n", false, true)
  if mine and mine.buffer == 1 then
    return
  end
  vim.b[buf].claudenova_comment_key = true
  M.keys(buf, lhs)
end

--- Map lhs in buf (normal: the line, visual: the selection) to comment.
function M.keys(buf, lhs)
  vim.keymap.set("n", lhs, function()
    errors.guard(M.add)({ buf = buf })
  end, { buffer = buf, desc = "claude-nova: Comment on this line for the next review" })
  vim.keymap.set("x", lhs, function()
    local a, b = vim.fn.line("v"), vim.fn.line(".")
    vim.cmd("normal! \27")
    errors.guard(M.add)({ buf = buf, line1 = math.min(a, b), line2 = math.max(a, b) })
  end, { buffer = buf, desc = "claude-nova: Comment on the selected lines for the next review" })
end

--- Add a comment: opts = { text?, buf?, line1?, line2? } (the cursor's line
--- by default). Without text, vim.ui.input asks; an empty answer is refused
--- by the host, with a message.
function M.add(opts)
  opts = opts or {}
  M.ensure()
  local buf = opts.buf or vim.api.nvim_get_current_buf()
  local path, view = M.path_of(buf)
  if not path then
    if vim.b[buf].claudenova_surface == "changes" then
      error("claude-nova: in the changes view, comments go on the right side (the file as it is now)", 0)
    end
    error("claude-nova: a comment goes on a line of a file: this buffer has none", 0)
  end
  local l1 = opts.line1
  if not l1 then
    local win = vim.fn.bufwinid(buf)
    l1 = win ~= -1 and vim.api.nvim_win_get_cursor(win)[1] or 1
  end
  local l2 = opts.line2 or l1
  local function go(text)
    if text == nil then
      return -- cancelled
    end
    local args = M.args({ path = path, from = l1, to = l2, text = text })
    if not view and vim.bo[buf].modified then
      args.buffer = buffer_text(buf) -- the code quoted is the buffer's
    end
    M.sync()
    local res = calls.request("comment_add", args)
    -- Shown at once (the host's review event follows with the whole list).
    local f = M.folders[res.cwd] or { comments = {} }
    local known = false
    for _, c in ipairs(f.comments) do
      known = known or c.id == res.comment.id
    end
    if not known then
      table.insert(f.comments, res.comment)
    end
    M.folders[res.cwd] = f
    for _, b in ipairs(bufs_of(path)) do
      M.render(b)
    end
    local msg = res.message
    if
      res.hint
      and res.hint ~= ""
      and vim.fn.strdisplaywidth("claude-nova: " .. msg .. " · " .. res.hint) <= notify.room()
    then
      msg = msg .. " · " .. res.hint -- what to do next, when it fits whole
    end
    notify.info(msg)
  end
  if opts.text and vim.trim(opts.text) ~= "" then
    go(opts.text)
    return
  end
  local where = l2 > l1 and ("lines %d-%d"):format(l1, l2) or ("line %d"):format(l1)
  vim.ui.input({ prompt = ("Comment on %s of %s: "):format(where, vim.fn.fnamemodify(path, ":t")) }, function(text)
    errors.guard(go)(text)
  end)
end

--- Send the review: every unsent comment, as one message to the session in
--- view.
function M.send()
  M.ensure()
  M.sync()
  local moves, buffers = M.collect()
  local res = calls.request("comments_send", {
    session = M.args().session,
    moves = #moves > 0 and moves or vim.NIL,
    buffers = next(buffers) and buffers or vim.empty_dict(),
  })
  notify.info(res.message)
  M.refresh_open_list() -- its round is over: the list shows the new one
  return res
end

-- The comments list (:ClaudeNova comments).

local list = { buf = nil, rows = {} }

local function list_lines(v)
  local lines, rows = {}, {}
  for _, c in ipairs(v.comments or {}) do
    local where = c.to > c.from and ("%s:%d-%d"):format(c.rel, c.from, c.to) or ("%s:%d"):format(c.rel, c.from)
    local text = vim.split(c.text, "\n", { plain = true })
    local first = text[1] .. (#text > 1 and (" … (+%d lines)"):format(#text - 1) or "")
    table.insert(lines, where .. "  " .. first)
    rows[#lines] = c
  end
  if #lines == 0 then
    lines = { "No comments in this round yet: :ClaudeNova comment {text} comments on the line under the cursor." }
  end
  return lines, rows
end

--- The winbar of the comments list being drawn, fitted to its width.
function M.winbar_of()
  local win, buf = textutil.drawn()
  if not buf or buf ~= list.buf or not list.view then
    return ""
  end
  local v = list.view
  local k = cfg().keymaps.comments
  local files = {}
  for _, c in ipairs(v.comments or {}) do
    files[c.path] = true
  end
  local nfiles = vim.tbl_count(files)
  local head = ("Comments · %d in %d file%s"):format(#(v.comments or {}), nfiles, nfiles == 1 and "" or "s")
  if v.session and v.session > 0 then
    head = head .. (" · round %d of session %d"):format(v.round, v.session)
  end
  local parts = {
    head,
    ("%s jump · %s edit · %s delete"):format(key(k.jump), key(k.edit), key(k.delete)),
    ("%s send · %s close"):format(key(k.send), key(k.close)),
  }
  return "%#ClaudeNovaWinbar#" .. textutil.fit(parts, vim.api.nvim_win_get_width(win))
end

local function draw(v)
  local buf = list.buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    return
  end
  local lines, rows = list_lines(v)
  list.rows, list.view = rows, v
  render.lines(buf, nil, lines)
  vim.bo[buf].modified = false
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    vim.wo[w].winbar = "%!v:lua.require'claudenova.core.text'.winbar('comments')"
  end
end

--- The list, open, shows the folder's comments as the host last said.
function M.redraw_list(cwd)
  if list.buf and vim.api.nvim_buf_is_valid(list.buf) and list.view and list.view.cwd == cwd and M.folders[cwd] then
    local v = vim.deepcopy(list.view)
    v.comments = M.folders[cwd].comments
    draw(v)
  end
end

local function refresh_list()
  draw(M.load())
end

--- The list, when it is open, shows the round as the host has it now.
function M.refresh_open_list()
  if list.buf and vim.api.nvim_buf_is_valid(list.buf) then
    refresh_list()
  end
end

local function under_cursor()
  local c = list.rows[vim.api.nvim_win_get_cursor(0)[1]]
  if not c then
    notify.info("no comment on this line")
  end
  return c
end

local function jump()
  local c = under_cursor()
  if not c then
    return
  end
  vim.cmd("wincmd p")
  if vim.api.nvim_get_current_buf() == list.buf then
    vim.cmd("aboveleft split")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(c.path))
  local n = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(0, { math.min(c.from, n), 0 })
  M.render(vim.api.nvim_get_current_buf())
end

local function edit()
  local c = under_cursor()
  if not c then
    return
  end
  vim.ui.input({ prompt = ("Comment on %s:%d: "):format(c.rel, c.from), default = c.text }, function(text)
    if text == nil then
      return
    end
    errors.guard(function()
      local v = calls.request("comment_edit", M.args({ id = c.id, text = text }))
      remember(v.cwd, v.comments, v.files)
      draw(v)
      render_all()
      notify.info(("comment on %s:%d edited"):format(c.rel, c.from))
    end)()
  end)
end

local function delete()
  local c = under_cursor()
  if not c then
    return
  end
  local v = calls.request("comment_edit", M.args({ id = c.id, delete = true }))
  remember(v.cwd, v.comments, v.files)
  draw(v)
  render_all()
  notify.info(("comment on %s:%d deleted"):format(c.rel, c.from))
end

--- :ClaudeNova comments: the round's comments, one per line.
function M.open_list()
  M.ensure()
  M.sync()
  local v = M.load()
  if not (list.buf and vim.api.nvim_buf_is_valid(list.buf)) then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    errors.try(vim.api.nvim_buf_set_name, buf, "claudenova://comments")
    labels.set(buf, "Review comments")
    vim.b[buf].claudenova_surface = "comments"
    list.buf = buf
    local k = cfg().keymaps.comments
    local maps = {
      { k.jump, jump, "open the comment's file at its line" },
      { k.edit, edit, "edit the comment under the cursor" },
      { k.delete, delete, "delete the comment under the cursor" },
      {
        k.send,
        M.send,
        "send the review (every comment, one message)",
      },
      {
        k.close,
        function()
          errors.try(vim.api.nvim_win_close, 0, true)
        end,
        "close the comments list",
      },
    }
    for _, m in ipairs(maps) do
      if m[1] then
        vim.keymap.set("n", m[1], errors.guard(m[2]), { buffer = buf, nowait = true, desc = "claude-nova: " .. m[3] })
      end
    end
    -- The list is not text to edit: the keys that would insert say what
    -- does (instead of E21).
    for _, lhs in ipairs({ "i", "a", "I", "A", "o", "O" }) do
      if vim.fn.maparg(lhs, "n", false, true).buffer ~= 1 then
        vim.keymap.set("n", lhs, function()
          notify.info(
            ("the comments list is read-only: %s edits the comment under the cursor, %s opens its line"):format(
              key(k.edit),
              key(k.jump)
            )
          )
        end, { buffer = buf, nowait = true, desc = "claude-nova: say how to edit a comment" })
      end
    end
    keytable.map(buf, "comments")
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        list.buf = nil
      end,
    })
  end
  local win = vim.fn.bufwinid(list.buf)
  if win == -1 then
    local height = math.max(3, math.min(#(v.comments or {}) + 1, 12))
    vim.cmd(("botright %dsplit"):format(height))
    vim.api.nvim_win_set_buf(0, list.buf)
    labels.apply(vim.api.nvim_get_current_win())
    -- A long comment, or the hint of an empty list, is never cut: it wraps.
    vim.wo.wrap = true
    vim.wo.linebreak = true
    vim.wo.breakindent = true
    vim.wo.number = false
    vim.wo.relativenumber = false
    vim.wo.signcolumn = "no"
  else
    vim.api.nvim_set_current_win(win)
  end
  draw(v)
  return list.buf
end

textutil.register_winbar("comments", M.winbar_of)

return M
