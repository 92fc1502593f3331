-- The one table of every surface's keys. g? in a surface lists them (what
-- the user set, else the default), and `make docs` writes the same list
-- into :help (|claudenova-keys|). A key the user can change is named by its
-- option (keymaps.<surface>.<name>: its description is the schema's); a
-- key of Neovim's own that a surface gives a meaning (:w, :q, ]c) is listed
-- with its text here.
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local gesture = require("claudenova.core.gesture")
local render = require("claudenova.core.render")
local text = require("claudenova.core.text")

local M = {}

---@class claudenova.KeyEntry
---@field key? string option name under keymaps.<surface>
---@field lhs? string a fixed key (Neovim's own command)
---@field desc? string for a fixed key

---@type {name: string, title: string, tag: string, keys: claudenova.KeyEntry[], note?: string}[]
M.surfaces = {
  {
    name = "sidebar",
    title = "Sidebar",
    tag = "claudenova-sidebar",
    keys = {
      { key = "present" },
      { key = "allow" },
      { key = "allow_session" },
      { key = "review" },
      { key = "deny" },
      { key = "deny_stop" },
      { key = "always" },
      { key = "fold" },
      { key = "transcript" },
      { key = "stop" },
      { key = "clear" },
      { key = "close" },
    },
    note = "On a visual selection of rows, allow, allow_session and deny decide every selected request (plans, questions and forms are skipped, and a batch never allows what claude asks you to answer yourself: a safety check, your own ask rule).",
  },
  {
    name = "panel",
    title = "Action panel",
    tag = "claudenova-panel",
    keys = {
      { key = "allow" },
      { key = "allow_session" },
      { key = "allow_tool" },
      { key = "allow_dir" },
      { key = "always" },
      { key = "review" },
      { key = "deny" },
      { key = "deny_stop" },
      { key = "close" },
      { lhs = "<Esc>", desc = "Hide the panel (the request stays pending)." },
      { lhs = "<CR>", desc = "Where claude asks for a deliberate answer: take the choice on the cursor's line." },
    },
  },
  {
    name = "proposal",
    title = "Proposal",
    tag = "claudenova-proposals",
    keys = {
      { lhs = ":w", desc = "Apply the proposal, with your edits (Claude is told what you changed)." },
      { lhs = ":q", desc = "Reject it (on its last window; :q! once you changed it)." },
      { key = "allow" },
      { key = "deny" },
      { key = "deny_stop" },
      { key = "reject_hunk" },
      { key = "restore_hunk" },
      { key = "note" },
      { lhs = "]c [c", desc = "Next / previous hunk; do and dp take or give a hunk as in any diff." },
    },
  },
  {
    name = "plan",
    title = "Plan",
    tag = "claudenova-questions",
    keys = {
      { key = "accept_edits" },
      { key = "approve" },
      { key = "keep_planning" },
      { key = "comment" },
      { key = "deny_stop" },
      { lhs = ":q", desc = "Close the plan; it stays pending (<CR> on its row opens it again)." },
    },
    note = "Edit the plan before approving it: Claude is told to follow your version. Your line comments go with it, each quoted with its lines, whether you approve or keep planning.",
  },
  {
    name = "transcript",
    title = "Transcript",
    tag = "claudenova-transcript",
    keys = {
      { key = "prompt" },
      { key = "details" },
      { key = "interrupt" },
      { key = "withdraw" },
      { key = "open_full" },
      { lhs = "zo zc", desc = "Open or close a fold (a tool call's details, a subagent's work)." },
    },
  },
  {
    name = "prompt",
    title = "Prompt input",
    tag = "claudenova-transcript",
    keys = {
      { key = "send" },
      { lhs = ":w", desc = "Send the prompt." },
      { key = "steer" },
      { key = "withdraw" },
      { key = "close" },
      { lhs = "@ /", desc = "Complete the folder's files and claude's slash commands (<C-x><C-o>, or as you type)." },
    },
  },
  {
    name = "rules",
    title = "Rules",
    tag = "claudenova-rules",
    keys = { { key = "remove" }, { key = "refresh" }, { key = "close" } },
  },
  {
    name = "changes",
    title = "Changes",
    tag = "claudenova-changes",
    keys = {
      { key = "undo_hunk" },
      { key = "keep_hunk" },
      { key = "comment" },
      { key = "close" },
      { lhs = "]c [c", desc = "Next / previous hunk." },
    },
  },
  {
    name = "files",
    title = "Files view",
    tag = "claudenova-files",
    keys = {
      { key = "open" },
      { key = "viewed" },
      { key = "next_file" },
      { key = "prev_file" },
      { key = "apply_clean" },
      { key = "close" },
      { lhs = "<localleader>s", desc = "Send the comments as one review (:ClaudeNova comments send)." },
    },
    note = "In a file's diff opened from the list, next_file, prev_file and viewed are mapped too, beside the changes view's keys.",
  },
  {
    name = "compare",
    title = "Compare",
    tag = "claudenova-compare",
    keys = { { key = "open" }, { key = "merge" }, { key = "discard" }, { key = "close" } },
  },
  {
    name = "review",
    title = "Changed files",
    tag = "claudenova-review",
    keys = { { key = "comment" }, { key = "blame_info" } },
    note = "The comment key is mapped in the buffers of files Claude changed in the open round; blame_info while :ClaudeNova blame is on.",
  },
  {
    name = "comments",
    title = "Comments",
    tag = "claudenova-review",
    keys = { { key = "jump" }, { key = "edit" }, { key = "delete" }, { key = "send" }, { key = "close" } },
  },
  {
    name = "task_output",
    title = "Task output",
    tag = "claudenova-tasks",
    keys = { { key = "stop" }, { key = "close" } },
  },
  {
    name = "usage",
    title = "Usage",
    tag = "claudenova-commands",
    keys = { { lhs = "q <Esc>", desc = "Close the usage." } },
  },
  {
    name = "provenance",
    title = "Provenance",
    tag = "claudenova-provenance",
    keys = { { lhs = "q", desc = "Close the note." } },
  },
  {
    name = "pr",
    title = "Pull request",
    tag = "claudenova-commands",
    keys = {
      { lhs = ":w", desc = "Commit the uncommitted files with this message, push the branch, open the pull request." },
      { lhs = ":q :bwipeout", desc = "Cancel: nothing is committed, nothing pushed." },
    },
  },
  {
    name = "mcp",
    title = "MCP servers",
    tag = "claudenova-mcp",
    keys = { { key = "reconnect" }, { key = "toggle" }, { key = "refresh" }, { key = "close" } },
  },
}

local function find(surface)
  for _, s in ipairs(M.surfaces) do
    if s.name == surface then
      return s
    end
  end
end

local function spec(surface, name)
  local fields = config.schema.keymaps.fields
  local tbl = fields[surface]
  return tbl and tbl.fields and tbl.fields[name]
end

--- The keys of a surface: { {lhs, desc}, … } with the keys the user set
--- (or, with defaults, the schema's defaults). A key set to false is left
--- out.
---@param surface string
---@param defaults boolean|nil
---@return {[1]: string, [2]: string}[]
function M.list(surface, defaults)
  local s = assert(find(surface), "no surface " .. tostring(surface))
  local cfg = not defaults and config.get().keymaps or nil
  local out = {}
  for _, k in ipairs(s.keys) do
    if k.key then
      local sp = assert(spec(surface, k.key), ("keymaps.%s.%s is not an option"):format(surface, k.key))
      local lhs
      if defaults then
        lhs = sp.default
      else
        lhs = cfg[surface] and cfg[surface][k.key]
      end
      if lhs then
        table.insert(out, { lhs, sp.desc })
      end
    else
      table.insert(out, { k.lhs, k.desc })
    end
  end
  local help = defaults and config.schema.keymaps.fields.help.default or (cfg and cfg.help)
  if help then
    table.insert(out, { help, "Show these keys." })
  end
  return out
end

--- The surface's title and note.
function M.info(surface)
  return find(surface)
end

-- A key as it is typed (the leaders spelled out) when shown in the editor.
local function shown(lhs)
  return text.key(lhs)
end

--- g?: the keys of a surface in a float over the current window (q, <Esc>
--- or g? closes it).
function M.help(surface)
  local s = find(surface)
  local list = M.list(surface)
  local wide = 0
  for _, k in ipairs(list) do
    wide = math.max(wide, vim.fn.strdisplaywidth(shown(k[1])))
  end
  local lines = {}
  for _, k in ipairs(list) do
    local lhs = shown(k[1])
    table.insert(lines, lhs .. string.rep(" ", wide - vim.fn.strdisplaywidth(lhs) + 2) .. k[2])
  end
  if s.note then
    table.insert(lines, "")
    table.insert(lines, s.note)
  end
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.max(20, math.min(width, vim.o.columns - 4))
  local buf = vim.api.nvim_create_buf(false, true)
  render.lines(buf, nil, lines)
  vim.bo[buf].bufhidden = "wipe"
  vim.b[buf].claudenova_surface = "help"
  local maxh = math.max(3, vim.o.lines - vim.o.cmdheight - 4)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    row = math.max(0, math.floor((vim.o.lines - math.min(#lines, maxh)) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = math.min(#lines, maxh),
    title = (" claude-nova: %s keys "):format(s.title:lower()),
    title_pos = "center",
    footer = " q closes ",
    footer_pos = "center",
  })
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  vim.wo[win].breakindentopt = "shift:" .. (wide + 2)
  -- Wrapped lines take more rows than lines: fit the height to them.
  local ok, th = pcall(vim.api.nvim_win_text_height, win, {})
  if ok and th and th.all then
    vim.api.nvim_win_set_config(win, { height = math.min(th.all, maxh) })
  end
  local close = function()
    errors.try(vim.api.nvim_win_close, win, true)
  end
  for _, lhs in ipairs({ "q", "<Esc>", "g?" }) do
    vim.keymap.set("n", lhs, close, { buffer = buf, nowait = true, desc = "claude-nova: Close the key list" })
  end
  vim.api.nvim_create_autocmd("WinLeave", {
    buffer = buf,
    once = true,
    callback = function()
      vim.schedule(close)
    end,
  })
  return buf, win
end

--- Map maps ({ lhs, fn, what }; an lhs the user turned off is nil) in buf,
--- each one's description "claude-nova: <what>".
function M.bind(buf, maps)
  for _, m in ipairs(maps) do
    if m[1] then
      vim.keymap.set("n", m[1], gesture.wrap(m[2]), { buffer = buf, nowait = true, desc = "claude-nova: " .. m[3] })
    end
  end
end

--- Map the help key (keymaps.help) in buf to show the surface's keys.
function M.map(buf, surface)
  local lhs = config.get().keymaps.help
  if lhs then
    vim.keymap.set("n", lhs, function()
      M.help(surface)
    end, {
      buffer = buf,
      nowait = true,
      desc = "claude-nova: Show the keys of this " .. find(surface).title:lower(),
    })
  end
end

--- The keys for :help, wrapped to width: one block per surface.
function M.doc(wrap, width)
  local lines = {}
  for _, s in ipairs(M.surfaces) do
    table.insert(lines, ("%s (|%s|) ~"):format(s.title, s.tag))
    local list = M.list(s.name, true)
    for _, k in ipairs(list) do
      local lhs = k[1]
      local body = wrap(k[2], string.rep(" ", 18), width)
      if vim.fn.strdisplaywidth(lhs) < 15 then
        body[1] = "  " .. lhs .. body[1]:sub(vim.fn.strdisplaywidth(lhs) + 3)
      else
        table.insert(lines, "  " .. lhs)
      end
      vim.list_extend(lines, body)
    end
    if s.note then
      vim.list_extend(lines, wrap(s.note, "  ", width))
    end
    table.insert(lines, "")
  end
  return lines
end

return M
