-- Text helpers of the front end's base layer.
local function text()
  return require("claudenova.core.text")
end

return {
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
