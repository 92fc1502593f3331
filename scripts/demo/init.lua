-- make demo: the plugin from this checkout, a real claude CLI, our scripted
-- model server. Nothing here touches your own config.
local root = assert(os.getenv("CLAUDENOVA_DEMO_ROOT"))
vim.opt.rtp:prepend(root)
vim.o.swapfile = false
-- No language providers: the demo needs none, and python's ftplugin asks
-- for python3's on the first .py file (finding it runs the interpreter:
-- seconds when python3 is a version manager's shim).
for _, p in ipairs({ "python3", "node", "perl", "ruby" }) do
  vim.g["loaded_" .. p .. "_provider"] = 0
end
vim.o.linebreak = true -- README.demo.md is one line per paragraph: it wraps at words at any width
-- ... at spaces only: by default 'linebreak' also breaks after . : - / and
-- the like ("greet." / "py"); 'breakat' is global, so a plugin cannot set it
-- for its own windows (your config may, as this one does).
vim.o.breakat = " \t"
vim.o.breakindent = true
vim.g.maplocalleader = ","

require("claudenova").setup({
  cmd = os.getenv("CLAUDE_BIN"),
  env = {
    ANTHROPIC_BASE_URL = os.getenv("CLAUDENOVA_DEMO_MODEL"),
    ANTHROPIC_API_KEY = "demo",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1",
    DISABLE_AUTOUPDATER = "1",
    HOME = os.getenv("CLAUDENOVA_DEMO_HOME"),
  },
})

-- A tiny linter for the demo's Python, so that the tour's editor-tool step
-- (mcp__nvim__diagnostics) has diagnostics to read without a language server.
local lint_ns = vim.api.nvim_create_namespace("claudenova_demo_lint")
local function lint(buf)
  local diags = {}
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:match("^%s*def ") and not (lines[i + 1] or ""):match('^%s*"""') then
      table.insert(diags, {
        lnum = i - 1,
        col = 0,
        severity = vim.diagnostic.severity.WARN,
        source = "demo-lint",
        message = "a function without a docstring",
      })
    end
    local at = l:find('" %+ ', 1) or l:find("' %+ ", 1)
    if at then
      table.insert(diags, {
        lnum = i - 1,
        col = at,
        severity = vim.diagnostic.severity.HINT,
        source = "demo-lint",
        message = "an f-string reads better than +",
      })
    end
  end
  vim.diagnostic.set(lint_ns, buf, diags)
end
vim.api.nvim_create_autocmd({ "BufReadPost", "BufWritePost", "TextChanged", "InsertLeave" }, {
  pattern = "*.py",
  desc = "claude-nova demo: a small Python linter (diagnostics for the editor tools)",
  callback = function(ev)
    lint(ev.buf)
  end,
})

local guide = dofile(root .. "/scripts/demo/guide.lua")

-- The demo's files as the tour expects them: greet.py as shipped, and
-- nothing a tour made (a second tour starts from the same place).
local function reset_files()
  local src = root .. "/scripts/demo/greet.py"
  vim.fn.writefile(vim.fn.readfile(src, "b"), "greet.py", "b")
  for _, f in ipairs({ "listing.txt", "count.txt" }) do
    os.remove(f)
  end
  vim.fn.delete("notes", "rf")
  -- Buffers of those files follow the disk (claude-nova reloads them).
  vim.cmd("silent! checktime")
end

local tours = 0
local function tour()
  tours = tours + 1
  if tours > 1 then
    reset_files()
  end
  -- The tour (scripts/demo/script.json), its transcript below. The Lua
  -- API, not :ClaudeNova new: a command runs in the background, and the
  -- lines below need the session it starts.
  local sid = require("claudenova").new({ prompt = "DEMO" }).id
  require("claudenova.frontend").open_transcript(sid)
  require("claudenova").rename(tours == 1 and "the tour" or ("the tour, again (" .. tours .. ")"), sid)
  guide.text = { "The tour is starting: its first step comes in a moment." }
  guide.follow(sid)
  guide.draw()
end

vim.api.nvim_create_user_command(
  "DemoTour",
  tour,
  { desc = "claude-nova demo: the guided tour (again, from the shipped greet.py), in a session of its own" }
)

-- claude's own terminal UI (scripts/demo/tui.json), its permissions in
-- the editor. The demo's HOME is claude's: the TUI's first-run dialogs
-- (onboarding, the API key, trusting this folder) are answered there first.
local function tui()
  local home = os.getenv("CLAUDENOVA_DEMO_HOME")
  local path = home .. "/.claude.json"
  local ok, cfg = pcall(function()
    return vim.json.decode(table.concat(vim.fn.readfile(path), "\n"))
  end)
  cfg = (ok and type(cfg) == "table") and cfg or {}
  cfg.hasCompletedOnboarding = true
  cfg.theme = cfg.theme or "dark"
  cfg.customApiKeyResponses = { approved = { "demo" }, rejected = {} }
  cfg.projects = type(cfg.projects) == "table" and cfg.projects or {}
  for _, dir in ipairs({ vim.fn.getcwd(), vim.fn.resolve(vim.fn.getcwd()) }) do
    cfg.projects[dir] = vim.tbl_extend(
      "force",
      cfg.projects[dir] or {},
      { hasTrustDialogAccepted = true, hasCompletedProjectOnboarding = true }
    )
  end
  vim.fn.writefile({ vim.json.encode(cfg) }, path)
  local steps = vim.json.decode(table.concat(vim.fn.readfile(root .. "/scripts/demo/tui.json"), "\n"))
  local sid = require("claudenova").tui({ prompt = "SEQ " .. vim.json.encode(steps) })
  -- Named for a person: its prompt is the scripted model's steps.
  require("claudenova").rename("the TUI tour", sid)
  guide.session = nil
  guide.text = {
    "claude's own terminal UI, its permissions asked here: its new file is a proposal (:w writes it), its command is in the panel (a allows it).",
    "A key typed in its dialog answers first. :ClaudeNova stop in its terminal ends it.",
  }
  guide.draw()
end

vim.api.nvim_create_user_command(
  "DemoTUI",
  tui,
  { desc = "claude-nova demo: claude's own terminal UI in a terminal window, its permissions asked in the editor" }
)

-- The tour's second part: two attempts on one prompt, each in a worktree of
-- its own (scripts/demo/branches.json), compared, one merged into the
-- checkout while greet.py is open, then a commit and its authorship note.
local BRANCHES = "add a welcome()"

local function git(args)
  local out = vim.fn.system(vim.list_extend({ "git", "-c", "user.name=demo", "-c", "user.email=demo@localhost" }, args))
  return vim.v.shell_error == 0, vim.trim(out)
end

local function branches()
  -- Both attempts start from the last commit: what the tour changed is
  -- committed first, so that the merge meets only your own later edits.
  local _, status = git({ "status", "--porcelain" })
  if status ~= "" then
    git({ "add", "-A" })
    git({ "commit", "-qm", "what the tour changed" })
  end
  vim.cmd("tabnext 1")
  vim.cmd("wincmd t")
  vim.cmd("edit greet.py")
  local first = require("claudenova").new({ prompt = BRANCHES, worktree = true, count = 2, mode = "acceptEdits" })
  guide.session = nil
  guide.text = {
    "Part 2 · Branches: two attempts on one prompt, each in its own worktree and branch (edits accepted; your checkout untouched).",
    "1. Both idle: :ClaudeNova compare (<CR> on a file: both).",
    "2. m on the one you prefer: its files; ,a applies them (greet.py follows); q, then keep or remove the worktree.",
    "3. :DemoCommit  4. :ClaudeNova provenance",
  }
  guide.draw()
  return first
end

vim.api.nvim_create_user_command("DemoCommit", function(o)
  local ok, out = git({ "commit", "-qam", o.args ~= "" and o.args or "a welcome" })
  local _, head = git({ "log", "-1", "--format=%h" })
  -- Said once the command is over, on a redrawn screen, and short: a
  -- message wider than the screen less 'showcmd' (49 columns at 60) is a
  -- hit-enter prompt.
  vim.schedule(function()
    vim.cmd("redraw")
    if ok then
      vim.notify("committed " .. head .. " · now :ClaudeNova provenance")
    else
      local why = vim.split(out ~= "" and out or "nothing to commit", "\n")[1]
      vim.notify(("git commit: " .. why):sub(1, 48), vim.log.levels.WARN)
    end
  end)
end, { nargs = "?", desc = "claude-nova demo: commit what you merged (git commit -a)" })

vim.api.nvim_create_user_command(
  "DemoBranches",
  branches,
  { desc = "claude-nova demo: two attempts on one prompt in worktrees, compare, merge, commit, provenance" }
)

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.cmd("edit README.demo.md")
    vim.keymap.set("n", "<CR>", function()
      if tours == 0 then
        tour()
      else
        vim.api.nvim_feedkeys(vim.keycode("<CR>"), "n", false)
      end
    end, { buffer = 0, desc = "claude-nova demo: start the guided tour" })
    vim.cmd("ClaudeNova") -- the sidebar
    vim.cmd("wincmd p")
    guide.setup()
  end,
})
