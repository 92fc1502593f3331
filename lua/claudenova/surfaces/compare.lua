-- :ClaudeNova compare: the worktree sessions of a repository side by side
-- (best of N: :ClaudeNova new --worktree --count=N {prompt}). One row per
-- branch (its session, state and +/−), then one row per file any of them
-- changed with each branch's +/−. <CR> on a file lays its versions side by
-- side in diff mode (one window per branch that changed it, the base where
-- none did); <CR> on a branch opens its files view; m merges that branch
-- into your checkout (:ClaudeNova merge: its files view first); x discards
-- one (asks first).
local errors = require("claudenova.core.errors")
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local draw = require("claudenova.core.render")
local files = require("claudenova.surfaces.files")
local calls = require("claudenova.services.calls")
local merged = require("claudenova.surfaces.merged")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")
local textutil = require("claudenova.core.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_compare")

-- buf -> { view, rows = { [lnum] = { branch = i } | { path = rel } }, session, cwd }
M.open_views = {}

local function pad(s, width)
  return s .. string.rep(" ", math.max(0, width - vim.fn.strdisplaywidth(s)))
end

local function short(branch)
  return (branch:gsub("^worktree%-", ""))
end

--- How a person tells branch b apart: its attempt's label ("fix-login
--- #2"), else its branch without "worktree-".
function M.label_of(b)
  return (b.label and b.label ~= "") and b.label or short(b.branch)
end

-- An attempt's number at a label's end.
local NUMBER = " #%d+$"

--- The column headings: "#1", "#2" for the attempts of one best of N, else
--- each branch's label cut to width, its end kept when the cut ones would
--- read the same.
local function headings(view, width)
  local stem, same = nil, #view.branches > 0
  for _, b in ipairs(view.branches) do
    local l = M.label_of(b)
    local this = (b.label and b.label ~= "" and l:find(NUMBER)) and l:gsub(NUMBER, "") or nil
    stem = stem or this
    same = same and this ~= nil and this == stem
  end
  local out, seen, clash = {}, {}, false
  for i, b in ipairs(view.branches) do
    local l = M.label_of(b)
    out[i] = same and l:match("#%d+$") or textutil.cut_keeping(l, width, NUMBER)
    clash = clash or seen[out[i]]
    seen[out[i]] = true
  end
  if clash then
    for i, b in ipairs(view.branches) do
      local l = M.label_of(b)
      if vim.fn.strchars(l) > width then
        l = "…" .. vim.fn.strcharpart(l, vim.fn.strchars(l) - width + 1)
      end
      out[i] = l
    end
  end
  return out
end

local function stat_of(b, rel)
  for _, f in ipairs(b.files or {}) do
    if f.rel == rel then
      return f, files.stat(f)
    end
  end
end

--- The view's lines, highlights and what each row stands for, the table
--- fitted to width columns. Each branch's label comes first (names before
--- states); the prompt they share goes in the title.
function M.lines(view, width)
  width = width or 80
  local n_br = #view.branches
  local title = ("Compare %d branch%s of %s"):format(
    n_br,
    n_br == 1 and "" or "es",
    vim.fn.fnamemodify(view.root, ":t")
  )
  local shared = view.branches[1] and view.branches[1].name or nil
  for _, b in ipairs(view.branches) do
    if not (b.label and b.label ~= "") or b.name ~= shared then
      shared = nil
    end
  end
  if shared and shared ~= "" then
    title = title .. (" · “%s”"):format(shared)
  end
  -- Lines fit the window (cut with "…", never wrapped): the label and the
  -- state first, the branch and the prompt give way.
  local room = math.max(20, width - 1)
  local lines = { textutil.cut(title, room), "" }
  local hls = { { 0, 0, -1, "Title" } }
  local rows = {}
  for i, b in ipairs(view.branches) do
    local n = #(b.files or {})
    local label = M.label_of(b)
    local line = ("%s · session %d %s%s · %d file%s +%d −%d · ⎇ %s"):format(
      label,
      b.session,
      b.state or "",
      (b.merge and b.merge ~= "") and (" · " .. b.merge) or "",
      n,
      n == 1 and "" or "s",
      b.added or 0,
      b.removed or 0,
      b.branch
    )
    if not shared and b.name and b.name ~= "" then
      line = line .. (" · “%s”"):format(b.name)
    end
    table.insert(lines, textutil.cut(line, room))
    rows[#lines] = { branch = i }
    table.insert(hls, { #lines - 1, 0, #label, "Directory" })
  end
  table.insert(lines, "")
  -- Each branch's column as wide as its heading, or its share of the room
  -- left beside the paths (at least a "+12 −3").
  local fw = 4
  for _, p in ipairs(view.paths) do
    fw = math.max(fw, vim.fn.strdisplaywidth(p))
  end
  fw = math.min(fw, math.max(12, math.floor(width / 3)))
  local share = math.max(10, math.floor((width - 1 - fw) / math.max(1, n_br)) - 2)
  local cols = {}
  local head = pad("File", fw)
  for i, h in ipairs(headings(view, share)) do
    cols[i] = math.min(share, math.max(10, vim.fn.strdisplaywidth(h)))
    head = head .. "  " .. pad(h, cols[i])
  end
  table.insert(lines, head)
  table.insert(hls, { #lines - 1, 0, -1, "Comment" })
  for _, p in ipairs(view.paths) do
    local line = pad(textutil.cut(p, fw), fw)
    for i, b in ipairs(view.branches) do
      local f, ins, del = stat_of(b, p)
      local cell = "·"
      if f and f.error and f.error ~= "" then
        cell = "binary"
      elseif f then
        cell = ("+%d −%d"):format(ins, del)
      end
      line = line .. "  " .. pad(cell, cols[i])
    end
    table.insert(lines, line)
    rows[#lines] = { path = p }
  end
  return lines, hls, rows
end

--- Lay the versions of file rel side by side in a tab, in diff mode.
function M.file(view, rel)
  local sides, base = {}, nil
  for _, b in ipairs(view.branches) do
    local f = stat_of(b, rel)
    if f then
      base = base or f.before
      if not (f.error and f.error ~= "") then
        table.insert(sides, { name = M.label_of(b), text = f.now, exists = f.exists })
      end
    end
  end
  if #sides == 0 then
    notify.warn(rel .. ": no branch has it as text")
    return
  end
  if #sides < #view.branches then
    table.insert(sides, 1, { name = "base", text = base or "", exists = true })
  end
  vim.cmd("tabnew")
  local ft = vim.filetype.match({ filename = rel })
  for i, side in ipairs(sides) do
    if i > 1 then
      vim.cmd("rightbelow vsplit")
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].bufhidden = "wipe"
    errors.try(vim.api.nvim_buf_set_name, buf, ("claudenova://compare/%s/%s"):format(side.name, rel))
    local text = side.text or ""
    local lines = vim.split(text, "\n", { plain = true })
    if lines[#lines] == "" then
      table.remove(lines)
    end
    draw.lines(buf, nil, lines)
    if ft then
      vim.bo[buf].filetype = ft
    end
    vim.api.nvim_win_set_buf(0, buf)
    labels.set(buf, ("%s · %s"):format(side.name, rel))
    vim.wo.winbar = ("%%#ClaudeNovaWinbar#%s · %s%s"):format(
      side.name,
      rel:gsub("%%", "%%%%"),
      side.exists == false and " (deleted)" or ""
    )
    vim.cmd("diffthis")
    vim.keymap.set("n", "q", "<Cmd>tabclose<CR>", { buffer = buf, desc = "claude-nova: Close the comparison" })
  end
end

--- Discard branch b (after asking, saying what goes: its session is
--- stopped first when it runs, then its worktree and its branch are removed
--- with what was not merged).
function M.discard(b)
  local n = #(b.files or {})
  local who = M.label_of(b)
  local runs = b.state ~= "exited"
  local names = {}
  for i, f in ipairs(b.files or {}) do
    if i > 3 then
      table.insert(names, ("%d more"):format(n - 3))
      break
    end
    table.insert(names, f.rel)
  end
  local work = ("its worktree and branch %s go, with %d file%s of work%s"):format(
    b.branch,
    n,
    n == 1 and "" or "s",
    n > 0 and (" (" .. table.concat(names, ", ") .. ")") or ""
  )
  local prompt = runs and ("Discard %s? Its session %d stops, then %s."):format(who, b.session, work)
    or ("Discard %s? %s."):format(who, (work:gsub("^i", "I")))
  local remove = runs and ("Remove %s: stop session %d, delete its worktree and branch"):format(who, b.session)
    or ("Remove %s: delete its worktree and branch"):format(who)
  vim.ui.select({ "Keep it", remove }, { prompt = prompt }, function(choice)
    if choice ~= remove then
      return
    end
    -- The files the question named may go; one written since is kept
    -- (the host reads the worktree again and names it).
    local named = {}
    for _, f in ipairs(b.files or {}) do
      table.insert(named, f.rel)
    end
    merged.remove(b.session, true, named)
  end)
end

-- Whether branch b is gone since the view was drawn (its worktree removed,
-- its session cleared).
local function removed(b)
  local s = state.sessions[b.session]
  return not s or (type(s.worktree) == "table" and s.worktree.gone == true)
end

-- Draw view in buf (the cursor kept on the row it was on, when still there).
local function draw_view(buf, view)
  local o = M.open_views[buf]
  local wins = vim.fn.win_findbuf(buf)
  local width = #wins > 0 and vim.api.nvim_win_get_width(wins[1]) or vim.o.columns
  local keep
  if o and o.rows and #wins > 0 then
    local r = o.rows[vim.api.nvim_win_get_cursor(wins[1])[1]]
    keep = r
      and (r.path or (r.branch and o.view.branches[r.branch] and ("session:" .. o.view.branches[r.branch].session)))
  end
  local lines, hls, rows = M.lines(view, width)
  draw.lines(buf, ns, lines, hls)
  o = o or {}
  o.view, o.rows = view, rows
  M.open_views[buf] = o
  for _, w in ipairs(wins) do
    local at = math.min(vim.api.nvim_win_get_cursor(w)[1], #lines)
    for lnum, r in pairs(rows) do
      if keep and (r.path == keep or (r.branch and ("session:" .. view.branches[r.branch].session) == keep)) then
        at = lnum
      end
    end
    errors.try(vim.api.nvim_win_set_cursor, w, { at, 0 })
  end
end

--- Ask the host again for the open comparisons (a branch was discarded or
--- merged): a removed branch's column goes, the count follows. Never inside
--- a call from the host: the asking is scheduled, the answer comes later.
function M.changed()
  if next(M.open_views) == nil then
    return
  end
  vim.schedule(function()
    for buf, o in pairs(M.open_views) do
      calls.request(
        "compare",
        { session = o.session or 0, cwd = o.cwd, refresh = true },
        vim.schedule_wrap(function(ok, res)
          if not (ok and vim.api.nvim_buf_is_valid(buf) and M.open_views[buf]) then
            return
          end
          draw_view(buf, res)
        end)
      )
    end
  end)
end

--- Open the comparison of the repository of the session in view (or of
--- Neovim's folder).
function M.open(session)
  local sid = session or actions.session_in_view() or 0
  local cwd = vim.fn.getcwd()
  local view = calls.request("compare", { session = sid, cwd = cwd })
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  errors.try(vim.api.nvim_buf_set_name, buf, "claudenova://compare")
  vim.cmd("tabnew")
  local placeholder = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, buf)
  if placeholder ~= buf then
    errors.try(vim.api.nvim_buf_delete, placeholder, { force = true })
  end
  labels.set(buf, "Compare")
  vim.b[buf].claudenova_surface = "compare"
  M.open_views[buf] = { session = sid, cwd = cwd }
  draw_view(buf, view)
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  local k = config.get().keymaps.compare
  -- The row under the cursor and the branch it stands for, as drawn now.
  local function row()
    local o = M.open_views[buf]
    local r = o and o.rows[vim.api.nvim_win_get_cursor(0)[1]]
    return r, r and r.branch and o.view.branches[r.branch], o and o.view
  end
  -- A branch removed since it was drawn is never acted on.
  local function live(b)
    if removed(b) then
      notify.info(M.label_of(b) .. " was removed")
      M.changed()
      return false
    end
    return true
  end
  local maps = {
    {
      k.open,
      function()
        local r, b, v = row()
        if r and r.path then
          M.file(v, r.path)
        elseif b and live(b) then
          if #(b.files or {}) == 0 then
            notify.info(M.label_of(b) .. " has changed nothing yet")
          else
            files.show(b)
          end
        end
      end,
      "Open the file's versions side by side, or the branch's files",
    },
    {
      k.merge,
      function()
        local _, b = row()
        if not b then
          notify.info("m on a branch's row merges it into your checkout")
          return
        end
        if not live(b) then
          return
        end
        local res = actions.merge(b.session)
        -- The comparison steps aside for the branch in one review: the
        -- merge's files view, as :ClaudeNova merge opens it.
        errors.try(vim.cmd, "tabclose")
        if not files.open_merge(res) then
          notify.info(res.message)
        end
      end,
      "Merge the branch under the cursor into your checkout (the comparison closes; the merge's files view opens)",
    },
    {
      k.discard,
      function()
        local _, b = row()
        if not b then
          notify.info("x on a branch's row discards it")
          return
        end
        if live(b) then
          M.discard(b)
        end
      end,
      "Discard the branch under the cursor: stop its session, remove its worktree and branch (asks first)",
    },
    {
      k.close,
      function()
        errors.try(vim.cmd, "tabclose")
      end,
      "Close the comparison",
    },
  }
  keytable.bind(buf, maps)
  keytable.map(buf, "compare")
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      M.open_views[buf] = nil
    end,
  })
  -- The keys first: a narrow screen cuts the end.
  notify.info(
    ("%s diff · %s merge · %s discard · %d branches, %d file%s"):format(
      textutil.key(k.open),
      textutil.key(k.merge),
      textutil.key(k.discard),
      #view.branches,
      #view.paths,
      #view.paths == 1 and "" or "s"
    )
  )
  return buf
end

return M
