-- The files view: a worktree session's branch (:ClaudeNova changes branch)
-- or a review round (:ClaudeNova changes round) read like a pull request.
-- One buffer lists every changed file with its +/− lines, whether you
-- marked it viewed and how many comments it has; <CR> opens a file in the
-- changes view (its content at the base ↔ now, diff mode), and there ]f
-- and [f go on to the next and the previous file and <localleader>v marks
-- it viewed and goes on. Comments work as in the changes view.
--
-- A merge (:ClaudeNova merge) is listed the same way, first: every file
-- the merge proposes with its +/− (what applying it changes in your
-- checkout), conflicts marked, and once settled whether it was applied;
-- <CR> opens the file's proposal, and apply_clean applies every file
-- without a conflict at once (the host applies each as :w of its proposal
-- would); conflicted files stay proposals.
local actions = require("claudenova.store.actions")
local state = require("claudenova.store.state")
local changes = require("claudenova.surfaces.changes")
local comments = require("claudenova.surfaces.comments")
local config = require("claudenova.setup.config")
local draw = require("claudenova.core.render")
local errors = require("claudenova.core.errors")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local textutil = require("claudenova.core.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_files")

-- What you marked viewed, per view (M.key): the file's path -> the sum of
-- its content when you marked it. A file that changed since is not viewed
-- any more (as a pull request's "viewed" goes when the file changes). The
-- marks are kept in storage (viewed.json), so they outlive Neovim.
M.viewed = nil ---@type table<string, {at: integer, files: table<string, string>}>|nil

-- How many views' marks storage keeps (the least recently marked go).
M.KEEP = 100

local function viewed_path()
  return vim.fs.joinpath(config.get().storage, "viewed.json")
end

local function load()
  if M.viewed then
    return M.viewed
  end
  M.viewed = {}
  local ok, lines = pcall(vim.fn.readfile, viewed_path())
  if ok and #lines > 0 then
    local dok, v = pcall(vim.json.decode, table.concat(lines, "\n"), { luanil = { object = true, array = true } })
    if dok and type(v) == "table" then
      for key, e in pairs(v) do
        if type(e) == "table" and type(e.files) == "table" then
          M.viewed[key] = { at = tonumber(e.at) or 0, files = e.files }
        end
      end
    else
      errors.log("warn", "viewed.json could not be read; the viewed marks start afresh")
    end
  end
  return M.viewed
end

local function save()
  local all = load()
  local keys = vim.tbl_keys(all)
  if #keys > M.KEEP then
    table.sort(keys, function(a, b)
      return all[a].at > all[b].at
    end)
    for i = M.KEEP + 1, #keys do
      all[keys[i]] = nil
    end
  end
  local path = viewed_path()
  vim.fn.mkdir(vim.fs.dirname(path), "p")
  local tmp = path .. ".tmp"
  if errors.try(vim.fn.writefile, { vim.json.encode(all) }, tmp) then
    local ok, err = os.rename(tmp, path)
    if not ok then
      errors.log("warn", "viewed marks not kept: " .. tostring(err))
    end
  end
end

--- What a file's viewed mark stands for: its content now.
local function sum(f)
  return f.exists == false and "deleted" or (f.sum ~= "" and f.sum or "?")
end

--- Whether file f is marked viewed in marks (a view's entry of the
--- store) and has not changed since.
local function marked(marks, f)
  return marks ~= nil and marks.files[f.rel] == sum(f)
end

--- Whether file f of view is marked viewed (and has not changed since).
function M.is_viewed(view, f)
  return marked(load()[M.key(view)], f)
end
-- buf -> { view, key, list = the files in order }
M.lists = {}

local function keys()
  return config.get().keymaps.files
end

--- The +/− lines of a file's change.
function M.stat(f)
  local ins, del = 0, 0
  for _, h in ipairs(f.hunks or {}) do
    ins, del = ins + (h.ins or 0), del + (h.del or 0)
  end
  return ins, del
end

--- The key of a view's marks: the branch and its base, or the round and
--- when it started (a session's number is the running host's only).
function M.key(view)
  if view.merge then
    return ("merge:%s"):format(view.branch)
  end
  if view.branch then
    return ("branch:%s@%s"):format(view.branch, view.base or "")
  end
  return ("round:%d:%d"):format(view.since or 0, view.round or 0)
end

--- The heading of a view; n: how many of its files are viewed (counted
--- when not given).
function M.heading(view, n)
  if not n then
    n = 0
    for _, f in ipairs(view.files) do
      if M.is_viewed(view, f) then
        n = n + 1
      end
    end
  end
  local files = ("%d file%s · %d viewed"):format(#view.files, #view.files == 1 and "" or "s", n)
  if view.merge then
    local conflicts = 0
    for _, f in ipairs(view.files) do
      conflicts = conflicts + ((f.conflicts and not f.outcome) and 1 or 0)
    end
    if conflicts > 0 then
      files = ("%d file%s · %d with conflicts · %d viewed"):format(
        #view.files,
        #view.files == 1 and "" or "s",
        conflicts,
        n
      )
    end
    return ("⎇ %s → your checkout · %s"):format(view.branch, files)
  end
  if view.branch then
    return ("⎇ %s · since %s · %s"):format(view.branch, (view.base or ""):sub(1, 7), files)
  end
  return ("Round %d · since %s · %s"):format(view.round or 0, os.date("%H:%M", view.since or 0), files)
end

--- The list's lines and highlights: the heading, then a line per file.
function M.lines(view)
  -- Each file's mark is looked up once: the heading counts those below.
  local lines, hls = { "", "" }, { { 0, 0, -1, "Title" } }
  local marks = load()[M.key(view)]
  local n = 0
  for _, f in ipairs(view.files) do
    local ins, del = M.stat(f)
    local viewed = marked(marks, f)
    n = n + (viewed and 1 or 0)
    local seen = viewed and "✓" or "·"
    local n = #comments.on(f.path)
    local tail = ""
    if f.outcome then
      tail = f.outcome == "applied" and "  applied" or "  skipped"
    elseif f.conflicts then
      tail = "  conflicts"
    elseif f.error and f.error ~= "" then
      tail = "  " .. f.error
    elseif not f.existed then
      tail = "  new"
    elseif not f.exists then
      tail = "  deleted"
    end
    local stats = ("+%d −%d"):format(ins, del)
    local by = changes.by(f, "  ") -- the command that changed it
    local line = ("%s %s  %s%s%s%s"):format(seen, f.rel, stats, n > 0 and ("  ✎ %d"):format(n) or "", tail, by)
    local row = #lines
    table.insert(lines, line)
    table.insert(hls, { row, 0, #seen, viewed and "ClaudeNovaFilesViewed" or "Comment" })
    local s = #seen + 1 + #f.rel + 2
    local plus = ("+%d"):format(ins)
    table.insert(hls, { row, s, s + #plus, "DiffAdded" })
    table.insert(hls, { row, s + #plus + 1, s + #stats, "DiffRemoved" })
    if by ~= "" then
      table.insert(hls, { row, #line - #by + 2, #line, "Comment" })
    end
    if f.outcome or f.conflicts then
      local hl = f.outcome == "applied" and "DiagnosticOk" or f.outcome and "Comment" or "DiagnosticWarn"
      table.insert(hls, { row, #line - #by - #tail + 2, #line - #by, hl })
    end
  end
  lines[1] = M.heading(view, n)
  return lines, hls
end

local function file_at(st, lnum)
  return st.view.files[lnum - 2]
end

local function redraw(buf)
  local st = M.lists[buf]
  if st and vim.api.nvim_buf_is_valid(buf) then
    local lines, hls = M.lines(st.view)
    draw.lines(buf, ns, lines, hls, { changed_only = true })
  end
end

local function redraw_all()
  for buf in pairs(M.lists) do
    redraw(buf)
  end
end

--- Mark file f of view viewed (or not, when it was).
function M.toggle(view, f)
  local was = M.is_viewed(view, f)
  local all = load()
  local key = M.key(view)
  all[key] = all[key] or { at = 0, files = {} }
  all[key].at = os.time()
  all[key].files[f.rel] = not was and sum(f) or nil
  save()
  redraw_all()
end

local open -- forward

-- In a file's diff: the files around it, viewed, back to the list.
local function map_diff(st, index, v)
  local k = keys()
  local function go(to)
    local f = st.view.files[to]
    if not f then
      notify.info(to < 1 and "the first file" or "the last file")
      return
    end
    errors.try(vim.cmd, "tabclose")
    open(st, to)
  end
  local maps = {
    {
      k.next_file,
      function()
        go(index + 1)
      end,
      "Open the next file of the list",
    },
    {
      k.prev_file,
      function()
        go(index - 1)
      end,
      "Open the previous file of the list",
    },
    {
      k.viewed,
      function()
        local f = st.view.files[index]
        local was = M.is_viewed(st.view, f)
        M.toggle(st.view, f)
        if not was and st.view.files[index + 1] then
          go(index + 1)
        else
          notify.info(("%s: %s"):format(f.rel, was and "not viewed" or "viewed"))
        end
      end,
      "Mark the file viewed and open the next",
    },
  }
  for _, b in ipairs({ v.before, v.now }) do
    keytable.bind(b, maps)
  end
end

open = function(st, index)
  local f = st.view.files[index]
  if not f then
    return
  end
  if st.view.merge then
    -- A merge's file: its proposal, as the sidebar's <CR> opens it.
    if state.requests[f.id] then
      actions.present(f.id)
    else
      notify.info(("%s: %s"):format(f.rel, f.outcome == "applied" and "applied" or "no longer a proposal"))
    end
    return
  end
  local v = changes.open_file(st.view, f)
  if v then
    map_diff(st, index, v)
    local k = keys()
    notify.info(
      ("%s viewed · %s %s next/previous · %s (%d of %d)"):format(
        textutil.key(k.viewed),
        textutil.key(k.next_file),
        textutil.key(k.prev_file),
        f.rel,
        index,
        #st.view.files
      )
    )
  end
end

--- The proposals of a merge whose buffers hold edits not saved yet: "apply
--- all clean files" leaves them to their :w.
local function edited(view)
  local ids = {}
  local open = require("claudenova.surfaces.proposal").open_
  for _, f in ipairs(view.files) do
    local p = open[f.id]
    if p and vim.api.nvim_buf_is_valid(p.buf) and vim.bo[p.buf].modified then
      table.insert(ids, f.id)
    end
  end
  return ids
end

--- Apply every file of a merge's view without a conflict (the host applies
--- each as :w of its proposal would, and says what it applied and left).
function M.apply_clean(view)
  local res = actions.answer(nil, "apply_clean", { session = view.session, except = edited(view) })
  for _, f in ipairs(view.files) do
    for _, rel in ipairs(res and res.applied or {}) do
      if f.rel == rel then
        f.outcome = "applied"
      end
    end
  end
  redraw_all()
  return res
end

--- The view of a merge, from what the host answered :ClaudeNova merge.
function M.merge_view(sum)
  local view = { merge = true, session = sum.session, branch = sum.branch, files = {} }
  for _, f in ipairs(sum.files or {}) do
    table.insert(view.files, {
      id = f.id,
      rel = f.rel,
      path = f.path,
      hunks = { { ins = f.added, del = f.removed } },
      conflicts = f.conflicts,
      existed = not f.new,
      exists = not f.deleted,
      sum = f.id, -- a merge's file is viewed once: a new merge, new marks
    })
  end
  return view
end

--- Open what a merge answered (:ClaudeNova merge, compare's m): its files
--- view first when it proposed files; true when it opened.
function M.open_merge(sum)
  if sum and sum.files and #sum.files > 0 then
    M.show(M.merge_view(sum))
    return true
  end
  return false
end

--- Show view (a branch's or a round's files, or a merge's) in the files list.
function M.show(view)
  local name = ("claudenova://files/%s"):format(M.key(view):gsub(":", "/"))
  local existing = vim.fn.bufnr(name)
  if existing > 0 then
    errors.try(vim.api.nvim_buf_delete, existing, { force = true })
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  errors.try(vim.api.nvim_buf_set_name, buf, name)
  local st = { view = view, key = M.key(view) }
  M.lists[buf] = st
  vim.cmd("tabnew")
  local placeholder = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, buf)
  if placeholder ~= buf and vim.api.nvim_buf_is_valid(placeholder) then
    errors.try(vim.api.nvim_buf_delete, placeholder, { force = true })
  end
  labels.set(
    buf,
    view.merge and ("Merge · " .. view.branch)
      or view.branch and ("Branch · " .. view.branch)
      or ("Round " .. (view.round or 0))
  )
  vim.b[buf].claudenova_surface = "files"
  vim.bo[buf].filetype = "claudenova-files"
  redraw(buf)
  vim.api.nvim_win_set_cursor(0, { math.min(3, vim.api.nvim_buf_line_count(buf)), 0 })
  local k = keys()
  local maps = {
    {
      k.open,
      function()
        local lnum = vim.api.nvim_win_get_cursor(0)[1]
        if file_at(st, lnum) then
          open(st, lnum - 2)
        end
      end,
      "Open the file under the cursor in a diff",
    },
    {
      k.viewed,
      function()
        local f = file_at(st, vim.api.nvim_win_get_cursor(0)[1])
        if f then
          M.toggle(view, f)
        end
      end,
      "Mark the file under the cursor viewed (or not)",
    },
    {
      k.next_file,
      function()
        local lnum = vim.api.nvim_win_get_cursor(0)[1]
        vim.api.nvim_win_set_cursor(0, { math.min(math.max(3, lnum + 1), #view.files + 2), 0 })
      end,
      "Next file",
    },
    {
      k.prev_file,
      function()
        local lnum = vim.api.nvim_win_get_cursor(0)[1]
        vim.api.nvim_win_set_cursor(0, { math.max(3, lnum - 1), 0 })
      end,
      "Previous file",
    },
    {
      k.close,
      function()
        errors.try(vim.cmd, "tabclose")
      end,
      "Close the files view",
    },
  }
  if view.merge then
    table.insert(maps, {
      k.apply_clean,
      function()
        M.apply_clean(view)
      end,
      "Apply every file without a conflict (as :w of its proposal); conflicted files stay proposals",
    })
    local bar = {}
    for _, part in ipairs({
      { k.open, "proposal" },
      { k.apply_clean, "apply all clean files" },
      { k.close, "close" },
      { config.get().keymaps.help, "keys" },
    }) do
      if part[1] then
        table.insert(bar, textutil.key(part[1]) .. " " .. part[2])
      end
    end
    vim.wo.winbar = "%#ClaudeNovaWinbar#" .. table.concat(bar, " · ")
    -- A file settled (applied, or its proposal closed): the list says so.
    local au = vim.api.nvim_create_autocmd("User", {
      pattern = "ClaudeNovaRequestDecided",
      desc = "claude-nova: a merge's files view follows its files",
      callback = function(ev)
        for _, f in ipairs(view.files) do
          if ev.data and f.id == ev.data.id then
            f.outcome = ev.data.outcome == "applied" and "applied" or "skipped"
            redraw(buf)
          end
        end
      end,
    })
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        errors.try(vim.api.nvim_del_autocmd, au)
      end,
    })
  end
  keytable.bind(buf, maps)
  if config.get().keymaps.changes.comment and not view.merge then
    vim.keymap.set("n", "<localleader>s", function()
      comments.send()
    end, { buffer = buf, desc = "claude-nova: Send the comments as one review" })
  end
  keytable.map(buf, "files")
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      M.lists[buf] = nil
    end,
  })
  -- The keys first: a narrow screen cuts the end.
  if view.merge then
    notify.info(
      ("%s proposal%s: %s"):format(
        textutil.key(k.open),
        k.apply_clean and (" · %s apply all clean files"):format(textutil.key(k.apply_clean)) or "",
        M.heading(view)
      )
    )
    return buf
  end
  notify.info(
    ("%s open · %s viewed · %s next: %s"):format(
      textutil.key(k.open),
      textutil.key(k.viewed),
      textutil.key(k.next_file),
      M.heading(view)
    )
  )
  return buf
end

-- Comments change: the counts follow.
comments.on_changed(redraw_all)

return M
