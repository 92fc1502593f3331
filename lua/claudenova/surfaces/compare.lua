-- :ClaudeNova compare: the worktree sessions of a repository side by side
-- (best of N: :ClaudeNova new --worktree --count=N {prompt}). One row per
-- branch (its session, state and +/−), then one row per file any of them
-- changed with each branch's +/−. <CR> on a file lays its versions side by
-- side in diff mode (one window per branch that changed it, the base where
-- none did); <CR> on a branch opens its files view; m merges that branch
-- into your checkout (:ClaudeNova merge); x discards one (asks first).
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local draw = require("claudenova.core.render")
local files = require("claudenova.surfaces.files")
local host = require("claudenova.channel.host")
local merged = require("claudenova.surfaces.merged")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local textutil = require("claudenova.core.text")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_compare")

-- buf -> { view, rows = { [lnum] = { branch = i } | { path = rel } } }
M.open_views = {}

local function pad(s, width)
  return s .. string.rep(" ", math.max(0, width - vim.fn.strdisplaywidth(s)))
end

local function short(branch)
  return (branch:gsub("^worktree%-", ""))
end

local function stat_of(b, rel)
  for _, f in ipairs(b.files or {}) do
    if f.rel == rel then
      return f, files.stat(f)
    end
  end
end

--- The view's lines, highlights and what each row stands for, the table
--- fitted to width columns.
function M.lines(view, width)
  width = width or 80
  local lines = { ("Compare %d branches of %s"):format(#view.branches, vim.fn.fnamemodify(view.root, ":t")), "" }
  local hls = { { 0, 0, -1, "Title" } }
  local rows = {}
  for i, b in ipairs(view.branches) do
    local n = #(b.files or {})
    table.insert(
      lines,
      ("⎇ %s · session %d %s · %d file%s +%d −%d · “%s”"):format(
        b.branch,
        b.session,
        b.state or "",
        n,
        n == 1 and "" or "s",
        b.added or 0,
        b.removed or 0,
        b.name or ""
      )
    )
    rows[#lines] = { branch = i }
    table.insert(hls, { #lines - 1, 0, #("⎇ " .. b.branch), "Directory" })
  end
  table.insert(lines, "")
  -- Each branch's column as wide as its name, or its share of the room
  -- left beside the paths (at least a "+12 −3").
  local fw = 4
  for _, p in ipairs(view.paths) do
    fw = math.max(fw, vim.fn.strdisplaywidth(p))
  end
  fw = math.min(fw, math.max(12, math.floor(width / 3)))
  local share = math.max(10, math.floor((width - 1 - fw) / math.max(1, #view.branches)) - 2)
  local cols = {}
  local head = pad("File", fw)
  for i, b in ipairs(view.branches) do
    cols[i] = math.min(share, math.max(10, vim.fn.strdisplaywidth(short(b.branch))))
    head = head .. "  " .. pad(textutil.cut(short(b.branch), cols[i]), cols[i])
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
        table.insert(sides, { name = short(b.branch), text = f.now, exists = f.exists })
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
    pcall(vim.api.nvim_buf_set_name, buf, ("claudenova://compare/%s/%s"):format(side.name, rel))
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

--- Discard branch b (after asking): its session is stopped, then its
--- worktree and its branch are removed with what was not merged.
function M.discard(b)
  local n = #(b.files or {})
  local remove = ("Remove %s and its worktree (%d file%s of work)"):format(b.branch, n, n == 1 and "" or "s")
  vim.ui.select({ "Keep it", remove }, { prompt = ("Discard %s?"):format(b.branch) }, function(choice)
    if choice ~= remove then
      return
    end
    merged.remove(b.session, true)
  end)
end

--- Open the comparison of the repository of the session in view (or of
--- Neovim's folder).
function M.open(session)
  local view = host.request("compare", { session = session or actions.session_in_view() or 0, cwd = vim.fn.getcwd() })
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, "claudenova://compare")
  vim.cmd("tabnew")
  local placeholder = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, buf)
  if placeholder ~= buf then
    pcall(vim.api.nvim_buf_delete, placeholder, { force = true })
  end
  labels.set(buf, "Compare")
  vim.b[buf].claudenova_surface = "compare"
  local lines, hls, rows = M.lines(view, vim.api.nvim_win_get_width(0))
  draw.lines(buf, ns, lines, hls)
  M.open_views[buf] = { view = view, rows = rows }
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  local k = config.get().keymaps.compare
  local function row()
    return rows[vim.api.nvim_win_get_cursor(0)[1]]
  end
  local maps = {
    {
      k.open,
      function()
        local r = row()
        if r and r.path then
          M.file(view, r.path)
        elseif r and r.branch then
          local b = view.branches[r.branch]
          if #(b.files or {}) == 0 then
            notify.info(b.branch .. " has changed nothing yet")
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
        local r = row()
        if not (r and r.branch) then
          notify.info("m on a branch's row merges it into your checkout")
          return
        end
        local res = actions.merge(view.branches[r.branch].session)
        -- The merge's proposals open in your windows: the comparison
        -- steps aside.
        pcall(vim.cmd, "tabclose")
        notify.info(res.message)
      end,
      "Merge the branch under the cursor into your checkout (the comparison closes; its proposals open)",
    },
    {
      k.discard,
      function()
        local r = row()
        if not (r and r.branch) then
          notify.info("x on a branch's row discards it")
          return
        end
        M.discard(view.branches[r.branch])
      end,
      "Discard the branch under the cursor: stop its session, remove its worktree and branch (asks first)",
    },
    {
      k.close,
      function()
        pcall(vim.cmd, "tabclose")
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
    ("%s versions · %s merge · %s discard · %d branches, %d file%s"):format(
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
