-- Text helpers of the front end's base layer.
local function text()
  return require("claudenova.core.text")
end

-- The buffer's lines and highlights as draw.lines left them: { row, start,
-- end, group } each, sorted.
local function drawn(buf, ns)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    table.insert(out, { m[2], m[3], m[4].end_col, m[4].hl_group })
  end
  table.sort(out, function(a, b)
    return table.concat(a, " ") < table.concat(b, " ")
  end)
  return { lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), marks = out }
end

return {
  ["a redraw of only what changed leaves the lines and highlights a full one would"] = {
    run = function(t)
      local draw = require("claudenova.core.render")
      local ns = vim.api.nvim_create_namespace("render_spec")
      local full_ns = vim.api.nvim_create_namespace("render_spec_full")
      local buf, full = vim.api.nvim_create_buf(false, true), vim.api.nvim_create_buf(false, true)
      -- A sidebar's life: rows added between others, removed, a state's
      -- word or only its colour changed, the same again, all gone.
      local words = { "alpha", "bravo", "charlie", "delta", "echo" }
      local seed = 7
      local function rnd(n)
        seed = (seed * 1103515245 + 12345) % 2147483648
        return seed % n + 1
      end
      local rows = {}
      for step = 1, 400 do
        local op = rnd(6)
        if op == 1 or #rows < 2 then
          table.insert(rows, rnd(#rows + 1), { text = words[rnd(5)] .. " " .. step, hl = rnd(3) })
        elseif op == 2 then
          table.remove(rows, rnd(#rows))
        elseif op == 3 then
          rows[rnd(#rows)].hl = rnd(3) -- the same text, another colour
        elseif op == 4 then
          rows[rnd(#rows)].text = words[rnd(5)]
        elseif op == 5 then
          -- A request's arrival: the title's count changes, a row goes
          -- in lower down, another row's colour changes.
          rows[1].text = words[rnd(5)] .. " " .. step
          table.insert(rows, rnd(#rows + 1), { text = words[rnd(5)] .. " " .. step, hl = rnd(3) })
          rows[rnd(#rows)].hl = rnd(3)
        end
        if step % 97 == 0 then
          rows = {}
        end
        local lines, hls = {}, {}
        for i, r in ipairs(rows) do
          lines[i] = r.text
          table.insert(hls, { i - 1, 0, 3, "Group" .. r.hl })
          table.insert(hls, { i - 1, 2, -1, "Tail" .. r.hl })
        end
        draw.lines(buf, ns, lines, hls, { changed_only = true })
        draw.lines(full, full_ns, lines, hls)
        t:eq(drawn(buf, ns), drawn(full, full_ns), "step " .. step)
      end
    end,
  },
  ["a buffer render forgets is drawn whole again"] = {
    -- (What was drawn in a buffer is forgotten when it is wiped: the
    -- panel's, made anew on 0.10, the files views'.)
    run = function(t)
      local draw = require("claudenova.core.render")
      local ns = vim.api.nvim_create_namespace("render_forget_spec")
      local buf = vim.api.nvim_create_buf(false, true)
      local lines, hls = { "alpha", "bravo" }, { { 0, 0, -1, "Title" }, { 1, 0, -1, "Tail" } }
      draw.lines(buf, ns, lines, hls, { changed_only = true })
      vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1) -- behind render's back
      draw.lines(buf, ns, lines, hls, { changed_only = true })
      t:eq(#drawn(buf, ns).marks, 0, "marks after a redraw of what render remembers as drawn")
      draw.forget(buf)
      draw.lines(buf, ns, lines, hls, { changed_only = true })
      t:eq(#drawn(buf, ns).marks, 2, "marks after a redraw once forgotten")
      t:eq(
        #vim.api.nvim_get_autocmds({ group = "ClaudeNovaRender", event = "BufWipeout" }),
        1,
        "autocommands that forget a wiped buffer"
      )
      vim.api.nvim_buf_delete(buf, { force = true })
    end,
  },
  ["wrap breaks at spaces only, never at a dot or a colon"] = {
    run = function(t)
      local lines =
        text().wrap("Claude: Step 1/9 · An edit is a proposal: greet.py as it would be, beside the original", 30)
      t:eq(lines, {
        "Claude: Step 1/9 · An edit is",
        "a proposal: greet.py as it",
        "would be, beside the original",
      }, "wrapped at 30")
      for _, l in ipairs(lines) do
        t:eq(vim.fn.strdisplaywidth(l) <= 30, true, "a line fits: " .. l)
      end
      t:eq(
        text().wrap("see (:ClaudeNova comment) there", 14),
        { "see", "(:ClaudeNova", "comment) there" },
        "a word stays whole"
      )
      t:eq(
        text().wrap("abcdefghijklmnopqrstuvwxyz", 10),
        { "abcdefghij", "klmnopqrst", "uvwxyz" },
        "a word wider than the line is cut"
      )
      t:eq(text().wrap("a b", 20, "  "), { "a b" }, "short")
      t:eq(text().wrap("one two three four", 9, "  "), { "one two", "  three", "  four" }, "indent after the first")
      t:eq(text().wrap("", 9), { "" }, "empty")
    end,
  },
  ["the sidebar groups a repository's sessions, worktrees with their checkout"] = {
    run = function(t)
      local sb = require("claudenova.surfaces.sidebar")
      local state = require("claudenova.store.state")
      local saved = state.sessions
      state.sessions = {
        [1] = { id = 1, cwd = "/src/app" },
        [2] = { id = 2, cwd = "/src/lib" },
        [3] = {
          id = 3,
          cwd = "/src/app/.claude/worktrees/fix",
          worktree = { root = "/src/app", branch = "worktree-fix" },
        },
      }
      local g = sb.groups()
      t:eq(g.order, { 1, 3, 2 }, "the app's worktree session beside the app's")
      t:eq(g.heading, { [1] = "/src/app", [2] = "/src/lib" }, "a heading per repository")
      state.sessions = { [1] = { id = 1, cwd = "/src/app" }, [2] = { id = 2, cwd = "/src/app" } }
      t:eq(sb.groups().heading, {}, "one repository: no heading")
      state.sessions = saved
    end,
  },
  ["a session's line says its worktree's branch and what it changed"] = {
    run = function(t)
      local sb = require("claudenova.surfaces.sidebar")
      local wt = { path = "/p/.claude/worktrees/fix", branch = "worktree-fix", shown = ".claude/worktrees/fix" }
      t:eq(sb.session_more({ cwd = wt.path, worktree = wt }), "⎇ worktree-fix", "nothing changed yet")
      wt.files, wt.added, wt.removed = 3, 40, 12
      t:eq(
        sb.session_more({ mode = "acceptEdits", cwd = wt.path, worktree = wt }),
        "acceptEdits · ⎇ worktree-fix · 3 files +40 −12",
        "with its changes and the mode"
      )
      wt.files = 1
      t:eq(sb.worktree_line(wt), "⎇ worktree-fix · 1 file +40 −12", "one file")
      t:eq(sb.worktree_line(wt, true), "⎇ worktree-fix +40 −12", "short: the counts without the files")
      wt.gone = true
      t:eq(sb.worktree_line(wt), "⎇ worktree-fix · its folder is gone", "deleted by hand")
      t:eq(
        sb.session_more({ cwd = "/elsewhere", worktree = { path = "/elsewhere" } }),
        "⎇ /elsewhere",
        "no branch: the path"
      )
    end,
  },
  ["rewind names the first files it cannot restore and counts the rest"] = {
    run = function(t)
      local rewind = require("claudenova.surfaces.rewind")
      local files = {}
      for i = 1, 100 do
        files[i] = ("/p/g%03d.txt"):format(i)
      end
      t:eq(
        rewind.unkept({ unkept = files, unkept_more = 99900 }, "/p"),
        "g001.txt, g002.txt, g003.txt, g004.txt, g005.txt, g006.txt, g007.txt, g008.txt and 99992 more",
        "100,000 files"
      )
      t:eq(rewind.unkept({ unkept = { "/p/x.log" } }, "/p"), "x.log", "one")
    end,
  },
}
