-- What the user sees of a recorded session, surface by surface, at the
-- widths people use (references in tests/lua/screens/surfaces), and the
-- rules that decide when a surface may take the window.
local function scheduler()
  return require("claudenova.services.scheduler")
end

-- The request of the edit recording (its id and the file's path).
local function edit_request(t)
  for _, batch in ipairs(t:recording("edit")) do
    for _, ev in ipairs(batch) do
      if ev.event == "request_added" then
        return ev.data
      end
    end
  end
  error("the edit recording has no request")
end

-- The bash recording up to its panel: the request it presents, and the
-- panel's buffer (in front).
local function bash_panel(t)
  local first
  for _, ev in ipairs(t:replay("bash", 7)[7]) do
    if ev.event == "present" then
      first = ev.data
    end
  end
  local buf = vim.api.nvim_get_current_buf()
  t:eq(vim.b[buf].claudenova_surface, "panel", "the panel in front")
  return first, buf
end

-- The scratch buffers (what a proposal's original side is made in).
local function scratches()
  return vim.tbl_filter(function(b)
    return vim.bo[b].buftype == "nofile" and vim.api.nvim_buf_is_loaded(b)
  end, vim.api.nvim_list_bufs())
end

-- The edit recording's files: greet.py as it was, and the staged proposal
-- (where the recorded request says it is). Returns the staged path.
local function edit_files(t, recording)
  t:write("greet.py", 'def greet(name):\n    return "hello " + name\n')
  for _, batch in ipairs(t:recording(recording or "edit")) do
    for _, ev in ipairs(batch) do
      if ev.event == "request_added" and ev.data.staged then
        return t:write(ev.data.staged, 'def greet(name):\n    return f"hello {name}"\n')
      end
    end
  end
  error("the edit recording stages no file")
end

-- A file of a branch's or a round's view as the host sends it (rel under
-- the project; extra overrides a field).
local function changed_file(t, rel, before, now, hunks, extra)
  return vim.tbl_extend("force", {
    path = t.project .. "/" .. rel,
    rel = rel,
    before = before,
    now = now,
    existed = true,
    exists = true,
    hunks = hunks,
    authors = {},
    others = {},
  }, extra or {})
end

return {
  ["the panel of a Bash call"] = {
    widths = { 60, 100, 200 },
    run = function(t)
      t:replay("bash", 7)
      t:eq(#t:floats(), 1, "floating windows")
      t:screen("panel")
    end,
  },
  ["each panel maps the keys of the request it shows, and leaves the user's own"] = {
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    run = function(t)
      local first, buf = bash_panel(t)
      -- The panel buffer's own normal-mode map of lhs.
      local function map_of(lhs)
        lhs = vim.api.nvim_replace_termcodes(lhs, true, true, true)
        for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, "n")) do
          if vim.api.nvim_replace_termcodes(m.lhs, true, true, true) == lhs then
            return m
          end
        end
        return {}
      end
      -- The next request in the panel, the one before it decided.
      local function next_request(before, id, deliberate)
        local r = vim.deepcopy(first)
        r.id = id
        r.hints = { deliberate = deliberate, no_rules = false, human_only = false }
        r.session_choice = "Bash(touch " .. id:sub(3) .. ".txt) this session"
        t:deliver({ { event = "request_removed", data = { id = before.id, session = 1, outcome = "allow" } } })
        t:deliver({ { event = "request_added", data = r }, { event = "present", data = vim.deepcopy(r) } })
        t:settle()
        return r
      end
      t:eq(map_of("<CR>").lhs, nil, "<CR> for a plain request")
      -- The user maps a key of their own in the panel (a FileType autocmd
      -- would): the next panels keep it.
      vim.keymap.set("n", "<leader>x", "<Nop>", { buffer = buf, desc = "the user's own" })
      local second = next_request(first, "1:second", true)
      t:eq(vim.api.nvim_get_current_buf(), buf, "the same buffer")
      t:eq(vim.b[buf].claudenova_request, second.id, "the request it shows")
      t:ok(map_of("<CR>").lhs ~= nil, "<CR> takes a deliberate answer")
      t:eq(map_of("<leader>x").desc, "the user's own", "the user's key")
      local third = next_request(second, "1:third", false)
      t:eq(vim.b[buf].claudenova_request, third.id, "the request it shows")
      t:eq(map_of("<CR>").lhs, nil, "<CR> gone with the deliberate request")
      t:eq(map_of("<leader>x").desc, "the user's own", "the user's key")
      t:type("a")
      t:eq(t:calls_of("decide")[1].id, third.id, "a allows the request shown")
      -- A deliberate one again: its allow keys ask to be pressed twice, in
      -- its own words. (A key typed here leaves this test's editor "in a
      -- command", which the editor's loop clears: it is opened by hand.)
      local fourth = vim.deepcopy(first)
      fourth.id, fourth.hints = "1:fourth", { deliberate = true }
      fourth.session_choice = "Bash(touch fourth.txt) this session"
      require("claudenova.surfaces.panel").open(fourth)
      local said, orig = {}, vim.notify
      vim.notify = function(msg)
        table.insert(said, msg)
      end
      t:type("s")
      vim.notify = orig
      t:eq(#t:calls_of("decide"), 1, "decisions after one s")
      t:ok(
        (said[1] or ""):find("press s again to allow bash(touch fourth.txt)", 1, true),
        "s says: " .. tostring(said[1])
      )
      t:type("s")
      t:eq(#t:calls_of("decide"), 2, "decisions after s again")
      t:eq(t:calls_of("decide")[2].id, fourth.id, "the request s allowed")
      -- The keymaps config changes: the next panel has the new keys only,
      -- and no <CR> of the deliberate one before it.
      require("claudenova.setup.config").set(vim.tbl_deep_extend("force", require("claudenova.setup.config").get(), {
        keymaps = { panel = { allow = "y" } },
      }))
      local fifth = vim.deepcopy(first)
      fifth.id = "1:fifth"
      require("claudenova.surfaces.panel").open(fifth)
      t:ok(map_of("y").lhs ~= nil, "y allows now")
      t:eq(map_of("a").lhs, nil, "a after the change")
      t:eq(map_of("<CR>").lhs, nil, "<CR> after the change")
      t:eq(map_of("<leader>x").desc, "the user's own", "the user's key")
    end,
  },
  ["Always… cancelled goes back to the panel it came from"] = {
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash", 7)
      local id = vim.b.claudenova_request
      t:eq(vim.b.claudenova_surface, "panel", "the panel in front")
      t:type("A")
      t:settle()
      t:eq(vim.b.claudenova_surface, "always", "the form in front")
      t:eq(#t:floats(), 1, "floating windows (the panel hides)")
      t:screen("always")
      t:type("q")
      t:settle()
      t:eq(vim.b.claudenova_surface, "panel", "the panel back")
      t:eq(vim.b.claudenova_request, id, "the request it shows")
      t:eq(#t:calls_of("decide"), 0, "decisions")
    end,
  },
  ["Always… confirmed from the panel leaves focus in a window of the user's, not the hidden panel"] = {
    -- One window (no previous one to go back to): the form closes into
    -- the window Neovim picks, which must not be the panel's hidden one.
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    run = function(t)
      t:replay("bash", 7)
      t:eq(vim.b.claudenova_surface, "panel", "the panel in front")
      t:type("A")
      t:settle()
      t:eq(vim.b.claudenova_surface, "always", "the form in front")
      t:type("1")
      t:type("<CR>")
      t:settle()
      t:eq(#t:calls_of("decide"), 1, "decisions")
      local c = vim.api.nvim_win_get_config(0)
      t:eq({ c.relative, c.hide or false }, { "", false }, "the window focus is in (relative, hidden)")
      t:eq(vim.b.claudenova_surface, nil, "the surface focus is in")
    end,
  },
  ["a panel hidden keeps its window for the next: focus goes back, <C-w>p does not enter it"] = {
    -- The panel's window is hidden rather than closed between panels (a
    -- window opened anew was most of a Bash panel's time on 0.10). Hidden,
    -- it must stay out of the user's way: not on screen, not where focus
    -- goes back, not the window <C-w>p enters (0.10's <C-w>p enters a
    -- hidden float), and on another tab a panel opens there.
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    run = function(t)
      vim.cmd("vsplit")
      local first = bash_panel(t)
      local panel = require("claudenova.surfaces.panel")
      local win = vim.api.nvim_get_current_win()
      local back = vim.fn.win_getid(vim.fn.winnr("#"))
      t:eq(vim.api.nvim_win_get_config(back).relative, "", "the panel opened from a window of the user's")
      t:type("q")
      t:settle()
      t:eq(vim.api.nvim_get_current_win(), back, "focus after the panel hid")
      t:eq(#t:floats(), 0, "floating windows on screen")
      vim.cmd("wincmd p")
      t:eq(vim.api.nvim_win_get_config(0).relative, "", "<C-w>p enters a window of the user's")
      t:eq(vim.api.nvim_get_current_win() ~= back, true, "<C-w>p moved")
      vim.cmd("wincmd p")
      t:eq(vim.api.nvim_get_current_win(), back, "<C-w>p back")
      -- The next panel shows in the same window, from its first line.
      panel.open(first)
      t:eq(vim.api.nvim_get_current_win(), win, "the next panel's window")
      t:eq(vim.b.claudenova_surface, "panel", "the panel in front")
      t:eq(vim.api.nvim_win_get_cursor(0), { 1, 0 }, "the cursor")
      t:eq(#t:floats(), 1, "floating windows on screen")
      -- On another tab the panel opens there.
      vim.cmd("tabnew")
      local tab = vim.api.nvim_get_current_win()
      panel.open(first)
      t:eq(vim.api.nvim_win_get_tabpage(0), vim.api.nvim_get_current_tabpage(), "the panel's tab")
      t:eq(vim.b.claudenova_surface, "panel", "the panel in front on the new tab")
      t:eq(#t:floats(), 1, "floating windows on the new tab")
      t:type("q")
      t:settle()
      t:eq(vim.api.nvim_get_current_win(), tab, "focus after the panel hid on the new tab")
      vim.cmd("tabclose")
      -- A panel hidden while the user is elsewhere (they left it: its
      -- WinLeave hides it) is not where <C-w>p goes either.
      panel.open(first)
      vim.cmd("wincmd p")
      t:settle()
      t:eq(#t:floats(), 0, "floating windows once the user left the panel")
      vim.cmd("wincmd p")
      t:eq(vim.api.nvim_win_get_config(0).relative, "", "<C-w>p after leaving the panel")
      t:eq(#t:calls_of("decide"), 0, "decisions")
    end,
  },
  ["an Edit is a proposal beside the file, Claude's words above it"] = {
    widths = { 60, 100, 200 },
    run = function(t)
      local staged = edit_files(t)
      t:replay("edit", 10)
      local buf = vim.api.nvim_get_current_buf()
      t:eq(vim.api.nvim_buf_get_name(buf), staged, "the buffer in front")
      t:eq(
        vim.api.nvim_buf_get_lines(buf, 0, -1, false),
        { "def greet(name):", '    return f"hello {name}"' },
        "the proposal"
      )
      t:screen("proposal")
      -- The user amends the proposal and saves it: the host hears of it,
      -- and the staged file holds the user's text.
      vim.api.nvim_buf_set_lines(buf, 1, 2, false, { '    return f"hello, {name}!"' })
      vim.cmd("write")
      t:eq(#vim.tbl_filter(function(n)
        return n.method == "proposal_saved"
      end, t.notes), 1, "proposal_saved sent")
      t:eq(vim.fn.readfile(staged), { "def greet(name):", '    return f"hello, {name}!"' }, "the staged file")
    end,
  },
  ["a large file's original, read while the host stages, is the original side unless the file changed"] = {
    run = function(t)
      local proposal = require("claudenova.surfaces.proposal")
      edit_files(t)
      local req = edit_request(t)
      local function original_side()
        for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
          local b = vim.api.nvim_win_get_buf(w)
          if vim.b[b].claudenova_surface == "proposal" and vim.bo[b].buftype == "nofile" then
            return b
          end
        end
      end
      -- Read ahead, and the file unchanged: that buffer is the original side.
      t:eq(#scratches(), 0, "no scratch buffer before")
      proposal.prepare(req.id, req.path)
      t:eq(#scratches(), 1, "one buffer read ahead")
      local ahead = scratches()[1]
      t:replay("edit", 10)
      t:eq(original_side(), ahead, "the original side is the buffer read ahead")
      t:eq(
        vim.api.nvim_buf_get_lines(ahead, 0, -1, false),
        { "def greet(name):", '    return "hello " + name' },
        "its text"
      )
      t:eq(vim.bo[ahead].filetype, "python", "its filetype")
      t:ok(vim.api.nvim_buf_get_name(ahead):find("Original", 1, true), "its name")
      -- Decided: it goes with the proposal.
      proposal.withdraw(req.id, "denied")
      t:eq(vim.api.nvim_buf_is_valid(ahead), false, "wiped with the proposal")
    end,
  },
  ["an original read before claude asked is the original side of the request that names it"] = {
    run = function(t)
      local proposal = require("claudenova.surfaces.proposal")
      edit_files(t)
      local req = edit_request(t)
      local function named(batches)
        for _, batch in ipairs(batches) do
          for _, ev in ipairs(batch) do
            if ev.event == "request_added" or ev.event == "present" then
              ev.data.prepared = "ahead:1:toolu_1"
            end
          end
        end
      end
      -- Read when claude named the edit, before it asked.
      proposal.prepare("ahead:1:toolu_1", req.path)
      t:eq(#scratches(), 1, "one buffer read ahead")
      local ahead = scratches()[1]
      t:replay("edit", 10, named)
      local side
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        local b = vim.api.nvim_win_get_buf(w)
        if vim.b[b].claudenova_surface == "proposal" and vim.bo[b].buftype == "nofile" then
          side = b
        end
      end
      t:eq(side, ahead, "the original side is the buffer read before the request came")
      proposal.withdraw(req.id, "denied")
      t:eq(vim.api.nvim_buf_is_valid(ahead), false, "wiped with the proposal")
      -- One read for a call claude never asked for is dropped when the host
      -- says so.
      local before = #scratches()
      local inbox = require("claudenova.frontend.inbox")
      inbox.apply(vim.json.encode({
        { seq = t.seq + 1, event = "proposal_prepare", data = { id = "ahead:1:toolu_2", path = req.path } },
      }))
      t:eq(#scratches(), before + 1, "read ahead")
      inbox.apply(
        vim.json.encode({ { seq = t.seq + 2, event = "proposal_unprepare", data = { id = "ahead:1:toolu_2" } } })
      )
      t.seq = t.seq + 2
      t:eq(#scratches(), before, "dropped")
      -- One read for a request removed before its proposal opened goes
      -- with the request.
      proposal.prepare("ahead:1:toolu_3", req.path)
      t:eq(#scratches(), before + 1, "read ahead again")
      local other = vim.tbl_extend("force", req, { id = "1:other", prepared = "ahead:1:toolu_3" })
      inbox.apply(vim.json.encode({
        { seq = t.seq + 1, event = "request_added", data = other },
        { seq = t.seq + 2, event = "request_removed", data = { id = "1:other", session = 1, outcome = "cancelled" } },
      }))
      t.seq = t.seq + 2
      t:eq(#scratches(), before, "dropped with its request")
    end,
  },
  ["an original read ahead is read again when the file changed before the proposal opens"] = {
    run = function(t)
      local proposal = require("claudenova.surfaces.proposal")
      edit_files(t)
      local req = edit_request(t)
      proposal.prepare(req.id, req.path)
      local ahead = scratches()[1]
      t:write("greet.py", 'def greet(name):\n    return "hi " + name  # changed meanwhile\n')
      t:replay("edit", 10)
      t:eq(vim.api.nvim_buf_is_valid(ahead), false, "the stale read is wiped")
      local found
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        local b = vim.api.nvim_win_get_buf(w)
        if vim.bo[b].buftype == "nofile" and vim.b[b].claudenova_surface == "proposal" then
          found = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        end
      end
      t:eq(
        found,
        { "def greet(name):", '    return "hi " + name  # changed meanwhile' },
        "the original side is the file now"
      )
    end,
  },
  ["a file written as its proposal opens is told as changed on disk"] = {
    run = function(t)
      edit_files(t)
      local said = {}
      local own = vim.notify
      vim.notify = function(msg)
        table.insert(said, msg)
      end
      -- Written once the original side is read, before the proposal
      -- watches the file: only the read that follows can tell.
      vim.api.nvim_create_autocmd("FileType", {
        callback = function(ev)
          if vim.bo[ev.buf].buftype == "nofile" and vim.b[ev.buf].claudenova_surface == "proposal" then
            t:write("greet.py", 'def greet(name):\n    return "hi " + name  # changed meanwhile\n')
            return true
          end
        end,
      })
      local function warned()
        for _, msg in ipairs(said) do
          if msg:match("greet%.py changed on disk after this proposal opened") then
            return true
          end
        end
        return false
      end
      local ok, err = pcall(function()
        t:replay("edit", 10)
        t:wait(warned, "the warning")
      end)
      vim.notify = own
      assert(ok, err)
    end,
  },
  ["a request withdrawn before its proposal opened leaves no buffer read ahead"] = {
    run = function(t)
      local proposal = require("claudenova.surfaces.proposal")
      t:write("big.txt", "x\n")
      proposal.prepare("1:gone", vim.fn.getcwd() .. "/big.txt")
      t:eq(#scratches(), 1, "read ahead")
      proposal.withdraw("1:gone", "cancelled")
      t:eq(#scratches(), 0, "and wiped")
      -- At most a few are kept.
      for i = 1, 6 do
        proposal.prepare("1:r" .. i, vim.fn.getcwd() .. "/big.txt")
      end
      t:eq(#scratches(), 4, "four kept")
      for i = 1, 6 do
        proposal.withdraw("1:r" .. i, "cancelled")
      end
      t:eq(#scratches(), 0, "none left")
    end,
  },
  ["after an applied edit: what the prompt changed, the rules, the MCP servers"] = {
    widths = { 60, 100 },
    run = function(t)
      edit_files(t, "views")
      t:replay("views")
      vim.cmd("ClaudeNova changes")
      t:settle()
      t:eq(vim.b.claudenova_surface, "changes", "the changes view in front")
      t:screen("changes")
      vim.cmd("tabclose")
      vim.cmd("ClaudeNova rules")
      t:settle()
      t:eq(vim.bo.filetype, "claudenova-rules", "the rules view in front")
      t:screen("rules")
      vim.cmd("close")
      vim.cmd("ClaudeNova mcp")
      t:settle()
      t:eq(vim.bo.filetype, "claudenova-mcp", "the MCP view in front")
      t:screen("mcp")
      vim.cmd("close")
      -- greet.py as the edit left it: who wrote each line, a comment.
      t:write("greet.py", 'def greet(name):\n    return f"hello {name}"\n')
      vim.cmd("edit greet.py")
      -- Its buffer was named by its full path (the proposal opened it):
      -- :cd shortens it, as a user's status line shows it.
      vim.cmd.cd(vim.fn.getcwd())
      vim.cmd("ClaudeNova blame")
      t:settle()
      t:screen("blame")
      vim.cmd("2")
      vim.cmd("ClaudeNova comment say hello with a comma")
      t:settle()
      vim.cmd("ClaudeNova comments")
      t:settle()
      t:eq(vim.b.claudenova_surface, "comments", "the comments list in front")
      t:screen("comments")
    end,
  },
  ["work under way: the checklist and a task in the sidebar, the task's output"] = {
    widths = { 60, 100 },
    run = function(t)
      -- Up to the task's end; its output view asks for the output, which
      -- the host sends after that.
      local asked
      for i, batch in ipairs(t:recording("work")) do
        for _, ev in ipairs(batch) do
          if ev.event == "mark" and ev.data.method == "task_output" then
            asked = asked or i
          end
        end
      end
      t:replay("work", asked - 1)
      local tasks = require("claudenova").tasks(1)
      t:eq(#tasks, 1, "tasks")
      require("claudenova.surfaces.tasks").open(tasks[1].id)
      t:replay_from("work", asked)
      t:settle()
      t:ok(
        table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n"):find("tick 3", 1, true),
        "the task's output in front"
      )
      t:screen("tasks")
      vim.cmd("ClaudeNova sidebar")
      t:settle()
      t:eq(vim.b.claudenova_surface, "sidebar", "the sidebar in front")
      t:screen("sidebar-work")
    end,
  },
  ["a branch as a pull request: the files view"] = {
    widths = { 60, 100 },
    run = function(t)
      local function file(...)
        return changed_file(t, ...)
      end
      local login_sum = "sum-1"
      t.replies.branch_changes = function()
        return {
          session = 1,
          branch = "worktree-fix-login",
          base = "3ba0ed2c1f00000000000000000000000000beef",
          files = {
            file("src/login.py", "a\nb\n", "a\nB\nc\n", { { a = 2, del = 1, b = 2, ins = 2 } }, { sum = login_sum }),
            file("src/new_helper.py", "", "x\ny\n", { { a = 0, del = 0, b = 1, ins = 2 } }, { existed = false }),
            file("logo.png", "", "", {}, { error = "a binary file: no text to show" }),
          },
        }
      end
      t.replies.comments = function()
        return { cwd = t.project, comments = {}, files = {} }
      end
      vim.cmd("ClaudeNova changes branch")
      t:settle()
      t:eq(vim.b.claudenova_surface, "files", "the files view in front")
      vim.cmd("normal \\v")
      t:settle()
      t:screen("files")
      t:eq(vim.api.nvim_buf_get_lines(0, 2, 3, false)[1], "✓ src/login.py  +2 −1", "viewed")
      -- Kept in storage: a new Neovim (its marks read again) still has it.
      local files = require("claudenova.surfaces.files")
      files.viewed = nil
      vim.cmd("ClaudeNova changes branch")
      t:settle()
      t:eq(vim.api.nvim_buf_get_lines(0, 2, 3, false)[1], "✓ src/login.py  +2 −1", "viewed after a restart")
      -- The file changed since: no longer viewed.
      login_sum = "sum-2"
      vim.cmd("ClaudeNova changes branch")
      t:settle()
      t:eq(vim.api.nvim_buf_get_lines(0, 2, 3, false)[1], "· src/login.py  +2 −1", "viewed once it changed")
    end,
  },
  ["a merge's files first: every clean file applied in one step"] = {
    widths = { 60, 100 },
    run = function(t)
      local asked
      t.replies.merge = function()
        return {
          session = 1,
          branch = "worktree-fix-login",
          proposed = 3,
          conflicts = 1,
          message = "worktree-fix-login: 3 to review, 1 with conflicts",
          files = {
            { id = "1:m-1", rel = "src/login.py", path = t.project .. "/src/login.py", added = 2, removed = 1 },
            {
              id = "1:m-2",
              rel = "src/new_helper.py",
              path = t.project .. "/src/new_helper.py",
              added = 2,
              removed = 0,
              new = true,
            },
            {
              id = "1:m-3",
              rel = "src/session.py",
              path = t.project .. "/src/session.py",
              added = 7,
              removed = 1,
              conflicts = true,
            },
          },
        }
      end
      t.replies.merge_apply = function(args)
        asked = args
        return {
          applied = { "src/login.py", "src/new_helper.py" },
          proposals = { "src/session.py" },
          skipped = {},
          message = "worktree-fix-login: applied src/login.py, src/new_helper.py; still a proposal: src/session.py (conflicts)",
        }
      end
      vim.cmd("ClaudeNova merge")
      t:settle()
      t:eq(vim.b.claudenova_surface, "files", "the merge's files view in front")
      t:eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), {
        "⎇ worktree-fix-login → your checkout · 3 files · 1 with conflicts · 0 viewed",
        "",
        "· src/login.py  +2 −1",
        "· src/new_helper.py  +2 −0  new",
        "· src/session.py  +7 −1  conflicts",
      }, "every file, conflicts marked")
      vim.cmd("normal \\a")
      t:settle()
      t:eq(asked and asked.session, 1, "the session's merge")
      t:eq(vim.api.nvim_buf_get_lines(0, 2, -1, false), {
        "· src/login.py  +2 −1  applied",
        "· src/new_helper.py  +2 −0  applied",
        "· src/session.py  +7 −1  conflicts",
      }, "applied, the conflict left")
      t:screen("files-merge")
    end,
  },
  ["best of two: the branches side by side, each attempt by its label"] = {
    widths = { 60, 100, 200 },
    run = function(t)
      local function branch(session, name, text, extra)
        return vim.tbl_extend("force", {
          session = session,
          branch = name,
          label = "fix-login #" .. session,
          base = "3ba0ed2c1f00000000000000000000000000beef",
          name = "fix the login check",
          state = "idle",
          added = 2,
          removed = 1,
          files = {
            {
              path = t.project .. "/.claude/worktrees/x/login.py",
              rel = "login.py",
              before = "a\nb\n",
              now = text,
              existed = true,
              exists = true,
              hunks = { { a = 2, del = 1, b = 2, ins = 2 } },
            },
          },
        }, extra or {})
      end
      local second = branch(2, "worktree-fix-the-login-check-2", "a\nB\nc\n", { added = 4, removed = 1 })
      table.insert(second.files, {
        path = t.project .. "/.claude/worktrees/y/test_login.py",
        rel = "test_login.py",
        before = "",
        now = "x\ny\n",
        existed = false,
        exists = true,
        hunks = { { a = 0, del = 0, b = 1, ins = 2 } },
      })
      local first = branch(1, "worktree-fix-the-login-check", "a\nB\nb2\n")
      local branches = { first, second }
      t.replies.compare = function()
        local paths = {}
        for _, b in ipairs(branches) do
          for _, f in ipairs(b.files) do
            if not vim.tbl_contains(paths, f.rel) then
              table.insert(paths, f.rel)
            end
          end
        end
        table.sort(paths)
        return { root = t.project, branches = branches, paths = paths }
      end
      -- The sessions as the host tells them: each attempt by its label,
      -- whole, before its state.
      for i, b in ipairs({ first, second }) do
        t:deliver({
          {
            event = "session",
            data = {
              id = i,
              name = "fix the login check",
              label = b.label,
              state = "idle",
              cwd = t.project .. "/.claude/worktrees/" .. b.branch:gsub("^worktree%-", ""),
              folder = "x",
              mode = "default",
              tasks = 0,
              worktree = {
                path = t.project .. "/.claude/worktrees/x",
                branch = b.branch,
                root = t.project,
                files = #b.files,
              },
            },
          },
        })
      end
      vim.cmd("ClaudeNova sidebar")
      t:settle()
      t:screen("sidebar-attempts")
      vim.cmd("wincmd p")
      vim.cmd("ClaudeNova compare")
      t:settle()
      t:eq(vim.b.claudenova_surface, "compare", "the comparison in front")
      t:screen("compare")
      -- x: the question says the session stops.
      local asked
      local select = vim.ui.select
      vim.ui.select = function(items, opts, cb)
        asked = { prompt = opts.prompt, items = items }
        cb(nil)
      end
      vim.api.nvim_win_set_cursor(0, { 4, 0 })
      t:type("x")
      vim.ui.select = select
      t:eq(
        asked and asked.prompt,
        "Discard fix-login #2? Its session 2 stops, then its worktree and branch worktree-fix-the-login-check-2 go, with 2 files of work (login.py, test_login.py).",
        "the discard question: it names what goes"
      )
      t:eq(asked.items[2], "Remove fix-login #2: stop session 2, delete its worktree and branch", "the choice")
      -- Removed: the comparison asks again, and its column goes.
      branches = { first }
      t:deliver({ { event = "merge_done", data = { session = 2, branch = second.branch, removed = true } } })
      t:wait(function()
        return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]:find("^Compare 1 branch of project") ~= nil
      end, "the comparison without the removed branch")
      t:eq(#t:calls_of("compare"), 2, "asked again once")
      t:eq(t:calls_of("compare")[2].refresh, true, "as a refresh")
      t:eq(
        #require("claudenova.surfaces.compare").open_views[vim.api.nvim_get_current_buf()].view.branches,
        1,
        "branches"
      )
    end,
  },
  ["a commit's authorship note, as a person reads it"] = {
    widths = { 60, 100 },
    run = function(t)
      -- The host's words for a note (rooms/provenance wording, tested in
      -- Go): the view shows them with the files, Claude's and your lines
      -- and the prompts told apart.
      local asked -- checked below: an error inside a reply is the channel's
      t.replies.provenance = function(args)
        asked = args
        return {
          commit = "e79f7724a3022226d7064ecdd127ac639ed5a854",
          found = true,
          lines = {
            "Commit  e79f772 louder",
            "Note    authorship/3.0.0 in refs/notes/ai, written by claude-nova.nvim",
            "",
            "greet.py",
            "  Claude  lines 2, 4-6  (4 lines; prompt 1 of “make it louder”)",
            "  amended by you  lines 3  (1 line; in Claude's proposal, Ada <ada@example.com>)",
            "",
            "Prompts",
            "  prompt 1 of “make it louder” · claude session 7f3a1b2c · model claude-opus · 4 written, 1 amended by you",
            "    > make it louder",
          },
        }
      end
      vim.cmd("ClaudeNova provenance")
      t:settle()
      t:eq(asked and asked.rev, "", "HEAD by default")
      t:eq(vim.b.claudenova_surface, "provenance", "the note in front")
      t:screen("provenance")
      vim.cmd("normal q")
      t:eq(vim.b.claudenova_surface, nil, "q closed it")
    end,
  },
  ["a pull request's message: drafted, :w commits and pushes, closing cancels"] = {
    widths = { 60, 100 },
    run = function(t)
      -- The host's draft (rooms/pr, tested in Go): the message from the
      -- session's prompts; the buffer says what :w does.
      local draft = {
        id = "d1",
        session = 1,
        branch = "worktree-fix-login",
        base = "main",
        remote = "origin",
        notes = false,
        commits = 0,
        dirty = { "a.txt", "new.txt" },
        message = "fix the login page\n\nPrompts:\n- fix the login page\n\nFiles:\n- a.txt\n- new.txt\n",
      }
      local drafted, committed
      t.replies.pr_draft = function(args)
        drafted = args
        return draft
      end
      t.replies.pr_commit = function(args)
        committed = args
        return { done = true, message = "committing and pushing worktree-fix-login…" }
      end
      vim.cmd("ClaudeNova pr 1")
      t:settle()
      t:eq(drafted and drafted.session, 1, "session 1 drafted")
      t:eq(vim.b.claudenova_surface, "pr", "the draft in front")
      t:screen("pr")
      t:eq(committed, nil, "nothing committed before :w")
      vim.api.nvim_buf_set_lines(0, 0, 1, false, { "Fix the login page's redirect" })
      vim.cmd("write")
      t:settle()
      t:eq(committed and committed.id, "d1", ":w sent the draft")
      t:eq(vim.split(committed.message, "\n")[1], "Fix the login page's redirect", "with the user's edit")
      t:eq(vim.b.claudenova_surface, nil, "the buffer went once sent")
      -- Drafted again and closed without :w: nothing is sent.
      committed = nil
      vim.cmd("ClaudeNova pr 1")
      t:settle()
      vim.cmd("bwipeout!")
      t:settle()
      t:eq(committed, nil, "closing sent nothing")
    end,
  },
  ["the usage float: cost, models, what fills the context, plan limits"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash")
      require("claudenova.store.state").current = 1
      -- The host's reply (rooms/controls: get_usage with get_context_usage's
      -- categories), answered in the stream as the host does.
      t.replies.usage = function()
        return {
          session = {
            total_cost_usd = 0.0123,
            total_api_duration_ms = 4200,
            total_duration_ms = 9100,
            total_lines_added = 12,
            total_lines_removed = 3,
            model_usage = {
              ["claude-opus"] = {
                inputTokens = 12000,
                outputTokens = 800,
                cacheReadInputTokens = 3000,
                cacheCreationInputTokens = 0,
                costUSD = 0.0123,
              },
            },
          },
          context = {
            tokens = 15800,
            max = 200000,
            percent = 7.9,
            categories = {
              { name = "System prompt", tokens = 1982, kind = "used" },
              { name = "Messages", tokens = 13818, kind = "used" },
              { name = "Free space", tokens = 184200, kind = "free" },
            },
          },
          rate_limits_available = true,
          rate_limits = { five_hour = { utilization = 12.4, resets_at = "16:00" }, seven_day = { utilization = 3 } },
        }
      end
      vim.cmd("ClaudeNova usage")
      t:settle()
      t:eq(vim.b.claudenova_surface, "usage", "the float in front")
      t:screen("usage")
      t:type("q")
      t:eq(vim.b.claudenova_surface == "usage", false, "q closed it")
    end,
  },
  ["a question in the float picker"] = {
    opts = { setup = { questions = { ui = "float" }, surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    widths = { 60, 100 },
    run = function(t)
      t:replay("question")
      t:settle()
      t:eq(#t:floats(), 1, "floating windows")
      t:screen("question")
    end,
  },
  ["a merge is over: the offer to remove the worktree, and its answer"] = {
    opts = { setup = { questions = { ui = "float" }, surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash")
      local asked -- checked below: an error inside a reply is the channel's, not the test's
      t.replies.merge_remove = function(args)
        asked = args
        return "removed worktree-fix-login and its worktree"
      end
      t:deliver({
        {
          event = "merge_done",
          data = { session = 1, branch = "worktree-fix-login", kept = { "logo.png" }, running = true },
        },
      })
      t:settle()
      t:eq(#t:floats(), 1, "floating windows")
      t:screen("merged")
      t:type("1")
      t:settle()
      t:eq(#t:calls_of("merge_remove"), 1, "the worktree removed")
      t:eq(
        asked,
        { session = 1, force = true, stop = true, named = { "logo.png" } },
        "what the choice asks: the files it named"
      )
      -- A withdrawn offer opens no more.
      t:deliver({
        { event = "merge_done", data = { session = 1, branch = "worktree-fix-login", kept = {}, running = false } },
      })
      t:deliver({ { event = "merge_done", data = { session = 1, branch = "worktree-fix-login", removed = true } } })
      t:settle()
      t:eq(#t:floats(), 0, "floating windows after the offer was withdrawn")
    end,
  },
  ["an MCP server's form, asked in the user's picker"] = {
    widths = { 60, 100 },
    run = function(t)
      -- A picker plugin's list stands in for the user's (the built-in one
      -- waits for keys in the command line): the float picker has its
      -- signature. The form arrives as the question does, with its present.
      vim.ui.select = require("claudenova.core.picker").select
      local batches = t:replay("question", 6)
      local r = vim.deepcopy(batches[7][1].data)
      r.id, r.surface, r.tool, r.target = "1:form", "elicit", "MCP form", "docs"
      r.title = "MCP server docs asks · 1 · parse the dates"
      r.input = nil
      r.fields =
        { { label = "MCP server", value = "docs" }, { label = "Message", value = "Where should the docs go?" } }
      r.no_always, r.own_refusal = "a form needs its own answer, not a rule", "a form needs its own answer"
      r.form = {
        server = "docs",
        message = "Where should the docs go?",
        mode = "form",
        fields = {
          { name = "folder", title = "Folder", type = "string", required = true },
          { name = "format", title = "Format", type = "string", choices = { "md", "html" }, required = false },
        },
      }
      t:deliver({ { event = "request_added", data = r }, { event = "present", data = vim.deepcopy(r) } })
      t:settle()
      t:wait(function()
        return vim.b.claudenova_surface == "picker"
      end, "the form's picker")
      t:eq(#t:floats(), 1, "floating windows")
      t:screen("elicit")
      -- Fill in asks the first field; nothing is answered yet.
      t:type("<CR>")
      t:eq(#t:calls_of("elicit"), 0, "answers before the form is filled")
    end,
  },
  ["rewind: a prompt of the session to put the files back to"] = {
    widths = { 60, 100 },
    run = function(t)
      vim.ui.select = require("claudenova.core.picker").select -- as above: the user's picker
      t:replay("bash")
      local at = 1796302529 -- 13:35 UTC
      t.replies.checkpoints = function()
        return {
          {
            id = "cp-1",
            session = 1,
            n = 1,
            time = at,
            prompt = "make the greeting louder",
            files = { t.project .. "/greet.py" },
            insertions = 1,
            deletions = 1,
          },
          {
            id = "cp-2",
            session = 1,
            n = 2,
            time = at + 300,
            prompt = "and add a farewell, in the same file",
            files = { t.project .. "/greet.py", t.project .. "/bye.py" },
            insertions = 6,
            deletions = 2,
            others = { { path = t.project .. "/greet.py", session = 2 } },
          },
          { id = "cp-3", session = 1, n = 3, time = at + 600, prompt = "explain the tests", files = {} },
        }
      end
      require("claudenova.surfaces.rewind").pick(1)
      t:settle()
      t:wait(function()
        return vim.b.claudenova_surface == "picker"
      end, "the rewind picker")
      t:screen("rewind")
      t:eq(#t:calls_of("rewind"), 0, "rewinds before a choice")
    end,
  },
  ["the review round: every file Claude changed since the last review"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash")
      local function file(...)
        return changed_file(t, ...)
      end
      t.replies.review_round = function()
        return {
          session = 1,
          round = 2,
          since = 1796302529,
          files = {
            file("greet.py", "a\nb\n", "a\nB\nc\n", { { a = 2, del = 1, b = 2, ins = 2 } }),
            file("bye.py", "", "x\ny\n", { { a = 0, del = 0, b = 1, ins = 2 } }, { existed = false }),
          },
        }
      end
      t.replies.comments = function()
        return { cwd = t.project, comments = {}, files = {} }
      end
      vim.cmd("ClaudeNova changes round")
      t:settle()
      t:eq(vim.b.claudenova_surface, "files", "the round's files in front")
      t:screen("round")
    end,
  },
  ["a proposal's hunk with a note for Claude, then put back to the original"] = {
    widths = { 60, 100 },
    run = function(t)
      edit_files(t)
      t:replay("edit", 10)
      local buf = vim.api.nvim_get_current_buf()
      t:eq(vim.b[buf].claudenova_surface, "proposal", "the proposal in front")
      local p = require("claudenova.surfaces.proposal").open_[vim.b[buf].claudenova_request]
      local hunks = require("claudenova.surfaces.hunks")
      t:eq(#p.hunks, 1, "hunks")
      vim.api.nvim_win_set_cursor(0, { 2, 0 })
      local input = vim.ui.input
      vim.ui.input = function(_, cb)
        cb("the plus reads better here")
      end
      hunks.note(p)
      vim.ui.input = input
      t:settle()
      t:eq(hunks.tally(p), { hunks = 1, rejected = 0, notes = 1 }, "the tally")
      t:screen("hunks")
      -- Put back to the original: both sides the same, the note kept.
      hunks.reject(p)
      t:eq(hunks.tally(p), { hunks = 1, rejected = 1, notes = 1 }, "the tally after the original came back")
      t:eq(vim.api.nvim_buf_get_lines(buf, 1, 2, false), { '    return "hello " + name' }, "the hunk's lines")
    end,
  },
  ["@ in the prompt input offers the session folder's files"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash")
      require("claudenova.frontend").prompt(1)
      local complete = require("claudenova.surfaces.complete")
      local shown, asked
      -- The menu opens in insert mode: the host's answer comes while the
      -- typed keys wait there, the screen is read, and <Esc> ends it.
      local function answer()
        asked = complete.waiting and vim.deepcopy(complete.waiting)
        if asked then
          t:deliver({
            {
              event = "completion",
              data = {
                token = asked.token,
                kind = "@",
                query = asked.query,
                total = 3,
                items = {
                  { word = "@greet.py", abbr = "greet.py", menu = "file" },
                  { word = "@tests/test_greet.py", abbr = "tests/test_greet.py", menu = "file" },
                  { word = "@docs/greeting.md", abbr = "docs/greeting.md", menu = "file" },
                },
              },
            },
          })
          shown = vim.fn.pumvisible() == 1
          if shown then
            t:screen("complete")
          end
        end
        vim.api.nvim_feedkeys(vim.keycode("<Esc>"), "n", false)
      end
      local waited = vim.uv.new_timer()
      waited:start(
        20,
        20,
        vim.schedule_wrap(function()
          if complete.waiting or vim.fn.mode() ~= "i" then
            waited:stop()
            waited:close()
            answer()
          end
        end)
      )
      vim.api.nvim_feedkeys(vim.keycode("Agreet @gr"), "x!", false)
      t:ok(asked, "the host was asked")
      t:eq({ asked.kind, asked.query }, { "@", "gr" }, "what it was asked")
      t:ok(shown, "the menu shown")
      t:eq(#t:calls_of("send"), 0, "prompts sent")
    end,
  },
  ["a plan opens in a tab of its own, to read and to edit"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("plan")
      t:eq(vim.b.claudenova_surface, "plan", "the surface in front")
      t:screen("plan")
    end,
  },
  ["a plan's line comments show under their lines and go with the answer"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("plan")
      local buf = vim.api.nvim_get_current_buf()
      t:eq(vim.b[buf].claudenova_surface, "plan", "the surface in front")
      local plan = require("claudenova.surfaces.plan")
      local asked = {}
      local input = vim.ui.input
      vim.ui.input = function(opts, cb)
        table.insert(asked, opts.prompt)
        cb(#asked == 1 and "why beta and not gamma?" or "add a step for the tests")
      end
      vim.api.nvim_win_set_cursor(0, { 3, 0 })
      t:type("\\c")
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      t:type("Vj\\c")
      vim.ui.input = input
      t:eq(asked, { "Comment on the plan's line 3: ", "Comment on the plan's lines 1-2: " }, "what was asked")
      t:settle()
      t:screen("plan-comments")
      -- A line added above: the comments follow their lines.
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "0. read the code first" })
      t.replies.plan = function()
        return {}
      end
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      t:type("\\y")
      local call = t:calls_of("plan")[1]
      t:ok(call, "the plan answered")
      t:eq(call.comments, {
        { from = 2, to = 3, text = "add a step for the tests" },
        { from = 4, to = 4, text = "why beta and not gamma?" },
      }, "the comments where their lines are now")
      t:eq(call.plan, "0. read the code first\n# The plan\n\n1. change alpha to beta", "the plan they name lines of")
    end,
  },
  ["the sidebar lists every session and what waits"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("two")
      t:eq(vim.b.claudenova_surface, "panel", "the surface that took the window")
      t:type("q") -- the panel closes; the request waits in the sidebar
      vim.cmd("ClaudeNova sidebar")
      t:eq(vim.b.claudenova_surface, "sidebar", "the surface in front")
      t:screen("sidebar")
    end,
  },
  ["the transcript of a finished turn"] = {
    widths = { 60, 100 },
    run = function(t)
      -- The transcript opens with the session (as :ClaudeNova new does) and
      -- follows the turn.
      t:replay("bash", 1)
      require("claudenova.frontend").open_transcript(1, { focus = true })
      t:replay_from("bash", 2)
      t:ok(vim.api.nvim_buf_get_name(0):match("claudenova://session/1$"), "the transcript in front")
      t:screen("transcript")
    end,
  },
  ["the prompt input opens where you are and goes back there"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash")
      local origin = vim.api.nvim_get_current_win()
      require("claudenova.frontend").prompt(1)
      t:ok(vim.api.nvim_get_current_win() ~= origin, "the input has the cursor")
      t:screen("prompt")
      t:type("<Esc>")
      t:type(":q<CR>")
      t:wait(function()
        return vim.api.nvim_get_current_win() == origin
      end, "the cursor back in its window")
      t:eq(#t:calls_of("send"), 0, "prompts sent")
    end,
  },
  ["a surface waits while you type and opens when you pause"] = {
    opts = { setup = { surfaces = { quiet_ms = 1000, grace_ms = 0 } } },
    run = function(t)
      local now = 5000000
      scheduler().now = function()
        return now
      end
      scheduler().last_key = now - 200 -- a key 200 ms ago
      t:replay("bash", 7)
      t:eq(#t:floats(), 0, "surfaces open while typing")
      t:eq(scheduler().busy(), "typing", "why it waits")
      now = now + 1000
      scheduler().flush()
      t:eq(#t:floats(), 1, "surfaces open after the pause")
    end,
  },
  ["a surface opens while you read a terminal (claude's TUI), not while you type into it"] = {
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 0 } } },
    run = function(t)
      vim.cmd("botright split | enew")
      local job = vim.fn.has("nvim-0.11") == 1 and vim.fn.jobstart({ "cat" }, { term = true })
        or vim.fn.termopen({ "cat" })
      t:eq(vim.api.nvim_get_mode().mode, "nt", "the cursor in a terminal, in normal mode")
      t:eq(scheduler().busy(), nil, "why it would wait")
      vim.fn.jobstop(job)
    end,
  },
  ["a panel in its grace period is drawn without a warning, and stays read-only"] = {
    -- 0.10 cannot drop keys: a grace period makes its buffer read-only
    -- and not modifiable, and gives it back as it found it. The panel
    -- started it before drawing its fresh buffer: drawing then said "W10:
    -- Warning: Changing a readonly file", and Neovim waited a second for
    -- it to be read; once the grace period ended the panel was left
    -- modifiable. (0.11 drops the keys and changes nothing.)
    opts = { setup = { notify = false, surfaces = { quiet_ms = 0, grace_ms = 100 } } },
    run = function(t)
      vim.cmd("messages clear")
      local first, buf = bash_panel(t)
      -- The next request while the first one's grace period lasts.
      local second = vim.deepcopy(first)
      second.id = "1:second"
      t:deliver({ { event = "request_removed", data = { id = first.id, session = 1, outcome = "deny" } } })
      t:deliver({ { event = "request_added", data = second }, { event = "present", data = vim.deepcopy(second) } })
      t:eq(require("claudenova.surfaces.panel").current.id, "1:second", "the second panel")
      t:wait(function()
        return next(scheduler().grace) == nil
      end, "the grace periods to end")
      t:settle()
      t:eq(vim.bo[buf].readonly, false, "the panel's buffer read-only once the grace periods ended")
      t:eq(vim.bo[buf].modifiable, false, "the panel's buffer modifiable once the grace periods ended")
      t:eq(vim.trim(vim.fn.execute("messages")), "", "messages as the panels were drawn")
    end,
  },
  ["a key typed as a surface takes the window is dropped"] = {
    opts = { setup = { surfaces = { quiet_ms = 0, grace_ms = 700 } } },
    run = function(t)
      if vim.fn.has("nvim-0.11") == 0 then
        return -- 0.10 cannot drop keys; the e2e typing tests cover it there
      end
      local now = 5000000
      scheduler().now = function()
        return now
      end
      t:replay("bash", 7)
      t:eq(#t:floats(), 1, "the panel")
      t:type("a")
      t:eq(#t:calls_of("decide"), 0, "decisions during the grace period")
      now = now + 701
      t:type("a")
      t:eq(#t:calls_of("decide"), 1, "decisions after it")
    end,
  },
}
