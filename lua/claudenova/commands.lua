-- :ClaudeNova {sub}: one table drives dispatch, completion and help. Every
-- subcommand that acts on a request finds it with claudenova.frontend.target;
-- every error reaches the user through claudenova.errors.
local M = {}

local function nova()
  return require("claudenova")
end

local function ui()
  return require("claudenova.frontend")
end

local function say(msg)
  require("claudenova.setup.notify").info(msg)
end

-- Subcommands get their words and the raw text after the subcommand name, so
-- prompts keep their spacing.

-- The value of a --worktree[={name}] flag (true, or the name); nil when
-- flag is none.
local function worktree_flag(flag)
  if flag == "--worktree" then
    return true
  end
  if flag and flag:match("^%-%-worktree=") then
    local name = flag:sub(#"--worktree=" + 1)
    if name == "" then
      error("claude-nova: --worktree= needs a name (or use --worktree alone)", 0)
    end
    return name
  end
end

-- Each subcommand: usage (shown in :help), desc (one line, for :help and
-- completion), run(args, raw). The docs section "Commands" is generated
-- from this table (make docs).
---@type table<string, {usage?: string, desc: string, run: fun(args: string[], raw: string), complete?: fun(): string[]}>
M.subcommands = {
  new = {
    usage = "new [--plan] [--worktree[={name}] [--count={N}]] [{prompt}]",
    desc = "Start a session in the current directory (in plan mode with --plan; in a git worktree of its own with --worktree, named {name} or after the prompt) and show its transcript; send {prompt}, or open the prompt input when none is given. With --worktree --count={N} (2 to 8): N sessions on the same prompt, each in its own worktree (best of N; :ClaudeNova compare lays them side by side).",
    run = function(args, raw)
      local mode, worktree, count
      while true do
        local flag, rest = raw:match("^(%-%-%S+)%s*(.*)$")
        if flag == "--plan" then
          mode = "plan"
        elseif flag and flag:match("^%-%-count=") then
          count = tonumber(flag:sub(#"--count=" + 1))
          if not count then
            error("claude-nova: --count= needs a number (--count=2)", 0)
          end
        elseif worktree_flag(flag) ~= nil then
          worktree = worktree_flag(flag)
        else
          break
        end
        raw = rest
      end
      if count and vim.trim(raw) == "" then
        error("claude-nova: --count needs the prompt the sessions share", 0)
      end
      local info, all = nova().new({ prompt = raw, mode = mode, worktree = worktree, count = count })
      if all then
        local ids = {}
        for _, i in ipairs(all) do
          table.insert(ids, tostring(i.id))
        end
        say(
          ("%d sessions on one prompt, each in its own worktree: %s (:ClaudeNova compare when they are done)"):format(
            #all,
            table.concat(ids, ", ")
          )
        )
      end
      -- The transcript shows beside your work; the cursor stays yours.
      ui().open_transcript(info.id)
      if vim.trim(raw) == "" then
        ui().prompt(info.id)
      end
    end,
    complete = function()
      return { "--plan", "--worktree", "--worktree=", "--count=2" }
    end,
  },
  tui = {
    usage = "tui [--worktree[={name}]] [{prompt}]",
    desc = "Run claude's own terminal UI (its slash commands, its look) in a terminal window for the current directory, with {prompt} submitted when given; every permission it asks is decided here as for any session: a file change opens as an editable proposal, a command in the panel, all in the sidebar. Without {prompt} while one runs, go to its terminal. With --worktree, in a git worktree of its own as new --worktree (named {name} or after the prompt). The session starts in your permission_mode; :ClaudeNova stop ends it.",
    run = function(_, raw)
      local flag, rest = raw:match("^(%-%-%S+)%s*(.*)$")
      local worktree = worktree_flag(flag)
      if worktree ~= nil then
        raw = rest
      end
      local tui = require("claudenova.frontend.tui")
      local running = tui.latest()
      if vim.trim(raw) == "" and running and worktree == nil then
        tui.show(running, { focus = true })
      else
        nova().tui({ prompt = raw, worktree = worktree })
      end
      vim.cmd.startinsert()
    end,
    complete = function()
      return { "--worktree", "--worktree=" }
    end,
  },
  send = {
    usage = "[range]send [{prompt}]",
    desc = "Send {prompt} to the session in view (its transcript or request under the cursor, the sidebar row under the cursor, the transcript this tab shows), else the last one you acted on (starts one if there is none; it says where it sent when that transcript is not in view); with a range, the lines go after it as an @path#L reference and their text. Without {prompt}, open the prompt input (with the lines in it).",
    run = function(args, raw, opts)
      local sel
      if opts and opts.range and opts.range > 0 then
        sel = { buf = vim.api.nvim_get_current_buf(), from = opts.line1, to = opts.line2 }
      end
      if #args == 0 then
        local lines
        if sel then
          lines = require("claudenova.services.context").selection(sel.buf, sel.from, sel.to)
        end
        ui().prompt(ui().sendable(ui().session_in_view()), { context = lines })
        return
      end
      local tui = require("claudenova.frontend.tui")
      local term = tui.running(ui().session_in_view())
      if term then
        -- claude's terminal UI: typed into its input, then Enter.
        local prefix = ""
        if sel then
          local ctx = require("claudenova.services.context")
          prefix = ctx.ref(ctx.relative(vim.api.nvim_buf_get_name(sel.buf), ctx.cwd(term)), sel.from, sel.to) .. " "
        end
        tui.type(term, prefix .. raw, true)
        return
      end
      local to = ui().sendable(ui().session_in_view())
      local info = nova().send(raw, { selection = sel, session = to })
      ui().said_where(info and info.id)
    end,
  },
  prompt = {
    desc = "Open the prompt input of the session in view (else the current one); a draft closed unsent comes back.",
    run = function()
      ui().prompt(ui().sendable(ui().session_in_view()))
    end,
  },
  focus = {
    desc = "Open the surface that waits for you to pause (the oldest, or the one of the sidebar row under the cursor) now.",
    run = function()
      ui().focus_waiting()
    end,
  },
  diff = {
    desc = "Compare the current buffer with its file on disk, side by side in diff mode (after Claude changed a file you have unsaved edits in).",
    run = function()
      require("claudenova.services.disk").diff()
    end,
  },
  steer = {
    usage = "steer {prompt}",
    desc = "Interrupt the turn of the session in view and send {prompt} at once (a plain send when no turn runs).",
    run = function(args, raw)
      if vim.trim(raw) == "" then
        error("claude-nova: steer needs a prompt (:ClaudeNova steer {prompt})", 0)
      end
      say(nova().steer(raw, ui().session_in_view()).message)
    end,
  },
  withdraw = {
    desc = "Withdraw the last prompt of the session in view that claude has not taken yet (sent while a turn ran).",
    run = function()
      require("claudenova.frontend").withdraw_queued(ui().session_in_view())
    end,
  },
  add = {
    usage = "[range]add [{path}]",
    desc = "Queue a file reference (default: the current buffer's file) for the next prompt; the prompt input shows it (delete its line to drop it). A buffer with unsaved changes is sent as its text in the editor. When the session in view is claude's terminal UI, the @path reference (with #L{from}-{to} for a range) is typed into its input instead.",
    run = function(args, raw, opts)
      local tui = require("claudenova.frontend.tui")
      local to = tui.running(ui().session_in_view())
      if to then
        local path = vim.trim(raw) ~= "" and vim.fn.expand(vim.trim(raw)) or vim.api.nvim_buf_get_name(0)
        if path == "" then
          error("claude-nova: this buffer has no file to add (:ClaudeNova add {path})", 0)
        end
        local ranged = opts and opts.range and opts.range > 0 and vim.trim(raw) == ""
        local ref = tui.mention(to, path, ranged and opts.line1 or nil, ranged and opts.line2 or nil)
        say(("typed %s into claude's terminal UI (session %d)"):format(ref, to))
        return
      end
      local rel = nova().add(vim.trim(raw) ~= "" and vim.trim(raw) or nil)
      local ctx = require("claudenova.services.context")
      local n = #ctx.queue
      local images = require("claudenova.setup.images")
      if images.kind(rel) then
        say(("added %s for the next prompt, sent as an image (%d queued)"):format(images.describe(ctx.queue[n]), n))
        return
      end
      say(("added @%s for the next prompt (%d queued)"):format(rel, n))
    end,
    complete = function()
      return vim.fn.getcompletion("", "file")
    end,
  },
  ["paste-image"] = {
    desc = "Add the clipboard's image to the next prompt (saved under storage/images; with wl-paste, xclip or pngpaste). Without one (Neovim on a server, in a container) the terminal's clipboard is read through OSC 52: it carries text, so the path of an image file on Neovim's machine (or a data:image URL) works; else a message says what to do.",
    run = function()
      local images = require("claudenova.setup.images")
      images.paste_async(
        require("claudenova.setup.config").get().storage .. "/images",
        require("claudenova.core.errors").guard(function(path, why)
          if not path then
            error("claude-nova: " .. why, 0)
          end
          nova().add(path)
          say(("added %s for the next prompt, sent as an image"):format(images.describe(path)))
        end)
      )
    end,
  },
  rename = {
    usage = "rename {name}",
    desc = "Name the session in view (a transcript, a sidebar row) or the current one; claude's own session list shows the name too.",
    run = function(args, raw)
      say(nova().rename(raw, ui().session_in_view()).message)
    end,
  },
  sessions = {
    desc = "Pick a session (vim.ui.select) and open its transcript.",
    run = function()
      ui().pick_session()
    end,
  },
  transcript = {
    desc = "Open the current session's transcript.",
    run = function()
      ui().open_transcript(nil, { focus = true })
    end,
  },
  stop = {
    desc = "Stop the session in view (its transcript, proposal, panel or sidebar row under the cursor; else the current one); its pending requests are withdrawn. While its background tasks run it asks first (vim.ui.select): they would go with it.",
    run = function()
      local sid = ui().session_in_view()
      require("claudenova.services.world").confirm_stop(
        sid or require("claudenova.store.state").current or 0,
        function()
          say(nova().stop(sid).message)
        end
      )
    end,
  },
  interrupt = {
    desc = "End the current turn of the session in view (says so when there is nothing to interrupt). Background tasks (subagents, commands in the background) run on: X on a task's sidebar row stops one.",
    run = function()
      say(nova().interrupt(ui().session_in_view()).message)
    end,
  },
  resume = {
    usage = "resume [{id}]",
    desc = "Continue a session by claude's session id; without {id}, pick one of this folder's earlier sessions (time, name, first prompt). Its transcript shows the earlier conversation.",
    run = function(args)
      if args[1] then
        local info = nova().resume(args[1])
        ui().open_transcript(info.id)
      else
        ui().pick_resume()
      end
    end,
  },
  rewind = {
    desc = "Restore the files Claude changed (Write, Edit, and its commands) to their state before one of your prompts: pick the prompt (its time, and what claude's dry run would restore), confirm. Open buffers are reloaded (unsaved edits are kept in storage first); Claude is told; a file a command changed whose content before was not kept is named, not restored.",
    run = function()
      require("claudenova.surfaces.rewind").pick()
    end,
  },
  changes = {
    usage = "changes [{N}|round|branch]",
    desc = "Review what prompt {N} of the session (default: the last that changed a file) changed, file by file, as a diff from before the turn to now; undo a hunk (its old lines go back on disk, Claude is told) or keep it. With round: everything Claude changed since the review baseline (the last review sent, or the session's start): applied proposals, accepted edits, and commands' changes to files a round tracks; comment on its lines for the next review. With branch: the branch of the session in view (started with new --worktree) like a pull request, every file it changed since it started. round and branch list their files in the files view: +/− lines, viewed (<localleader>v), comments; <CR> opens a file's diff, ]f and [f go through them.",
    complete = function()
      return { "round", "branch" }
    end,
    run = function(args)
      if args[1] == "round" then
        require("claudenova.surfaces.round").open()
        return
      end
      if args[1] == "branch" then
        require("claudenova.surfaces.round").branch()
        return
      end
      local n = args[1] and tonumber(args[1])
      if args[1] and not n then
        error(
          'claude-nova: changes takes a prompt number (shown as "checkpoint N" in the transcript), round or branch, got '
            .. args[1],
          0
        )
      end
      require("claudenova.surfaces.changes").open(nil, n)
    end,
  },
  compare = {
    desc = "Lay the worktree sessions of this repository side by side (best of N: new --worktree --count=N): each branch with its session, state and +/−, then every file any of them changed with each branch's +/−. <CR> on a file shows its versions side by side in diff mode, <CR> on a branch its files view, m on a branch merges it into your checkout (the files view of :ClaudeNova merge opens: apply all clean files, or each proposal), x discards one (asks first: its session stops, its worktree and branch go). Each attempt of a best of N goes by its label (fix-login #1, #2) here, in the sidebar and in :ClaudeNova sessions; the comparison follows a branch merged or removed.",
    run = function()
      require("claudenova.surfaces.compare").open()
    end,
  },
  merge = {
    usage = "merge [{branch}] [remove[!]]",
    desc = "Bring the branch of the session in view (one started with new --worktree) into your checkout: every file it changed since it started, committed or not, becomes a proposal, listed first in the files view (its +/−, conflicts marked, viewed marks; <CR> opens a file's proposal, <localleader>a applies every file without a conflict at once, each as :w of its proposal would, and lists what it applied and left); :w applies a proposal with your edits, closing it skips the file. Where your file changed meanwhile the proposal is a three-way merge (conflicts between markers; :w is refused while one is left); a file the branch deleted is a proposal to delete it (:w of it empty). Buffers of those files with unsaved edits are merged as you see them. merge remove then removes the worktree and its branch (the session must have stopped) only when nothing exists there alone: it reads the worktree again (late work, ignored files, modes) and names every file it would lose; merge remove! removes them all the same once they were named.",
    complete = function()
      return { "remove", "remove!" }
    end,
    run = function(args)
      local sid = ui().session_in_view() or 0
      local target = sid
      if args[1] and args[1] ~= "remove" and args[1] ~= "remove!" then
        target = table.remove(args, 1) -- a worktree's branch, session or not
      end
      if args[1] == "remove" or args[1] == "remove!" then
        say(nova().merge_remove(target, args[1] == "remove!"))
        return
      end
      if args[1] then
        error("claude-nova: merge takes a branch, remove or remove!, got " .. args[1], 0)
      end
      local sum = nova().merge(target)
      -- The branch in one review: its files first, each proposal from there.
      if not require("claudenova.surfaces.files").open_merge(sum) then
        say(sum.message)
      end
    end,
  },
  pr = {
    usage = "pr [{session}|{branch}]",
    desc = "Take a worktree session's branch (the session in view, session {session}, or a worktree's {branch}) to a pull request: a commit message drafted from the session's prompts opens in a buffer to edit (with what :w will do: the uncommitted files, the remote, the base). :w commits the worktree's uncommitted files with it, pushes the branch to your remote (the checkout branch's, else the only one, else origin) and opens the pull request with gh when gh is installed and logged in; else it prints where to open it and the gh command to run. Closing the buffer without :w cancels: nothing is ever committed or pushed before your :w. The authorship notes go along only with provenance.push.",
    run = function(args)
      if args[2] then
        error("claude-nova: pr takes one session or branch, got " .. table.concat(args, " "), 0)
      end
      require("claudenova.surfaces.pr").open(nova().pr_draft(args[1]))
    end,
  },
  worktrees = {
    desc = "List the worktrees the plugin made for this repository, also those whose session is gone (after a restart): each with its branch, what it changed, its session and whether it was merged. Choosing one offers to merge it (no session needed), resume its session, or remove it (the same rules as merge remove: nothing that exists only there goes unnamed).",
    run = function()
      require("claudenova.surfaces.merged").pick_worktrees()
    end,
  },
  comment = {
    usage = "[range]comment [{text}]",
    desc = "Comment on the line under the cursor (with a range: those lines) for the next review, in a file's buffer or the changes view; without {text}, vim.ui.input asks. The comment shows as virtual lines under its line and follows your edits; the host keeps it per session folder until it is sent. A line Claude did not change may be commented on (the review says so); a file outside the session's folder may not.",
    run = function(args, raw, opts)
      local l1 = vim.api.nvim_win_get_cursor(0)[1]
      local l2 = l1
      if opts and opts.range and opts.range > 0 then
        l1, l2 = opts.line1, opts.line2
      end
      require("claudenova.surfaces.comments").add({ text = raw, line1 = l1, line2 = l2 })
    end,
  },
  comments = {
    usage = "comments [send]",
    desc = "List the comments of the open round (<CR> opens one, e edits it, dd deletes it). With send: send them to the session in view as one message (for each: the file, the lines, the code quoted with a few lines around it, then the comment; unsaved buffers are quoted as they are); the round closes and the next begins now. While a turn runs it is queued like any prompt.",
    run = function(args)
      if args[1] == "send" then
        require("claudenova.surfaces.comments").send()
      elseif args[1] then
        error("claude-nova: comments takes nothing or send, got " .. args[1], 0)
      else
        require("claudenova.surfaces.comments").open_list()
      end
    end,
    complete = function()
      return { "send" }
    end,
  },
  blame = {
    desc = "Toggle, in the current buffer, a sign per line saying who wrote it: Claude (▌), Claude amended by you in the proposal (▚), or you (┆); <CR> on a line shows the session, the prompt and its time. Kept per session folder; follows Claude's changes as they land, and lines you edit by hand become yours.",
    run = function()
      require("claudenova.surfaces.blame").toggle()
    end,
  },
  provenance = {
    usage = "provenance [{rev}|push [{remote}]]",
    desc = "Show the authorship note of a commit (default HEAD) of the current file's repository as a person reads it: per file the lines Claude wrote (session, prompt, model) and the lines you amended in its proposals, then the prompts. Notes are written when you commit (option provenance) under refs/notes/ai in the Git AI standard, which other tools read. With push: push refs/notes/ai to the branch's remote (or {remote}); never done by itself.",
    complete = function()
      return { "push", "HEAD", "HEAD~1" }
    end,
    run = function(args)
      if args[1] == "push" then
        say(nova().provenance_push(args[2]).message)
        return
      end
      if args[2] then
        error("claude-nova: provenance takes one revision, or push [remote]", 0)
      end
      require("claudenova.surfaces.provenance").open(args[1])
    end,
  },
  mode = {
    usage = "mode {mode}",
    desc = "Switch the permission mode of the session in view: default, acceptEdits, plan, auto, bypassPermissions, dontAsk (claude may refuse auto; its reason is shown).",
    run = function(args)
      if not args[1] then
        error("claude-nova: mode needs one of " .. table.concat(require("claudenova.setup.config").modes, ", "), 0)
      end
      say(nova().set_mode(args[1], ui().session_in_view()).message)
    end,
    complete = function()
      return require("claudenova.setup.config").modes
    end,
  },
  model = {
    usage = "model [{name}]",
    desc = "Switch the model of the session in view (completion and the picker list the models its claude offers, with their descriptions); claude checks the model first. Without {name}, pick one.",
    run = function(args, raw)
      local sid = ui().session_in_view()
      if vim.trim(raw) ~= "" then
        say(nova().set_model(vim.trim(raw), sid).message)
        return
      end
      local list = nova().models(sid)
      if #list == 0 then
        error("claude-nova: claude has not listed its models yet; :ClaudeNova model {name} works with a name or id", 0)
      end
      vim.ui.select(list, {
        prompt = "Model for "
          .. require("claudenova.store.state").label(sid or require("claudenova.store.state").current or 0),
        kind = "claudenova.model",
        format_item = function(m)
          return ("%s — %s"):format(m.name ~= "" and m.name or m.value, m.description)
        end,
      }, function(m)
        if m then
          require("claudenova.core.errors").guard(function()
            say(nova().set_model(m.value, sid).message)
          end)()
        end
      end)
    end,
    complete = function()
      local ok, list = pcall(function()
        return nova().models(ui().session_in_view())
      end)
      local names = {}
      for _, m in ipairs(ok and list or {}) do
        table.insert(names, m.value)
      end
      return #names > 0 and names or { "default", "opus", "sonnet", "haiku" }
    end,
  },
  effort = {
    usage = "effort [{level}]",
    desc = "Set how much effort the model of the session in view puts into its next replies: one of the levels the model supports (low, medium, high, xhigh, max). Without {level}, pick one.",
    run = function(args)
      local sid = ui().session_in_view()
      if args[1] then
        say(nova().set_effort(args[1], sid).message)
        return
      end
      vim.ui.select(M.effort_levels(), { prompt = "Effort", kind = "claudenova.effort" }, function(level)
        if level then
          require("claudenova.core.errors").guard(function()
            say(nova().set_effort(level, sid).message)
          end)()
        end
      end)
    end,
    complete = function()
      return M.effort_levels()
    end,
  },
  usage = {
    desc = "Show the usage of the session in view as claude reports it: cost, time, lines changed, tokens per model, and your plan's rate limits when claude knows them.",
    run = function()
      require("claudenova.surfaces.usage").open(ui().session_in_view())
    end,
  },
  allow = {
    desc = "Allow the request in view (see below). On a proposal: apply it with your edits, as :w does.",
    run = function()
      ui().decide_target("allow")
    end,
  },
  ["allow-session"] = {
    desc = "Allow the request in view, and for the rest of the session what the CLI suggests (a rule such as Bash(npm test *), or accepting all edits): the panel shows which.",
    run = function()
      ui().decide_target("allow_session")
    end,
  },
  review = {
    desc = "Show the request in view whole: the panel's full input and diff, or its surface.",
    run = function()
      ui().review_target()
    end,
  },
  always = {
    desc = "Always…: allow or deny the request in view from now on, with a rule you can edit and where to save it (this session, the project just for you, the project shared, all your projects).",
    run = function()
      ui().always_target()
    end,
  },
  rules = {
    desc = "List the permission rules in effect for the current session's folder, by source; dd removes a rule from its settings file.",
    run = function()
      require("claudenova.surfaces.rules").open()
    end,
  },
  deny = {
    usage = "deny [{message}]",
    desc = "Deny the request in view; {message} is shown to Claude.",
    run = function(args, raw)
      ui().decide_target("deny", #args > 0 and raw or nil)
    end,
  },
  ["deny-stop"] = {
    desc = "Deny the request in view and end the turn, so Claude does not retry a firm no (claude tells it to stop and wait for you; no message is sent).",
    run = function()
      require("claudenova.frontend.gestures").deny_stop_target()
    end,
  },
  mcp = {
    desc = "Show the MCP servers of the session in view as its claude reports them: name, scope, transport, status, the CLI's error when one failed, its tools; r reconnects one (after its command was fixed), t disables or enables it.",
    run = function()
      require("claudenova.surfaces.mcp").open(ui().session_in_view())
    end,
  },
  tasks = {
    usage = "tasks [stop]",
    desc = "Pick a background task (a subagent, a command Claude runs in the background; running ones first) and open its output, which follows while it is shown. With stop: pick a running one and stop it.",
    run = function(args)
      if args[1] and args[1] ~= "stop" then
        error("claude-nova: tasks takes nothing or stop, got " .. args[1], 0)
      end
      require("claudenova.surfaces.tasks").pick(args[1])
    end,
    complete = function()
      return { "stop" }
    end,
  },
  sidebar = {
    desc = "Toggle the sidebar.",
    run = function()
      ui().toggle_sidebar()
    end,
  },
  log = {
    desc = "Open the host log.",
    run = function()
      vim.cmd.split(vim.fn.fnameescape(require("claudenova.channel.host").log_path()))
    end,
  },
  build = {
    usage = "build [download|go]",
    desc = "Install the host binary (in the background), as the first command after an install or an update does by itself and lazy.nvim's build does: the release asset for your platform, downloaded and checked against the SHA-256 in the checkout's release manifest (option download), else a build with go. With download or go: only that way.",
    run = function(args)
      local via = args[1]
      if via and via ~= "download" and via ~= "go" then
        error("claude-nova: build takes nothing, download or go, got " .. via, 0)
      end
      require("claudenova.setup.install").obtain({ why = ":ClaudeNova build", via = via })
    end,
    complete = function()
      return { "download", "go" }
    end,
  },
}

-- The order of the subcommands in the docs.
M.order = {
  "new",
  "tui",
  "send",
  "prompt",
  "steer",
  "withdraw",
  "add",
  "paste-image",
  "rename",
  "sessions",
  "transcript",
  "stop",
  "interrupt",
  "resume",
  "rewind",
  "changes",
  "merge",
  "pr",
  "worktrees",
  "compare",
  "comment",
  "comments",
  "blame",
  "provenance",
  "mode",
  "model",
  "effort",
  "usage",
  "allow",
  "allow-session",
  "always",
  "review",
  "deny",
  "deny-stop",
  "focus",
  "rules",
  "tasks",
  "mcp",
  "diff",
  "sidebar",
  "log",
  "build",
}

-- The prose around the generated list in :help.
M.doc = {
  intro = 'One command, :ClaudeNova, with subcommands (completion lists them). Errors read "claude-nova: …" on one line. A command never holds the editor: one that waits for the host (or for claude) goes on in the background while you type, and the commands you give meanwhile run after it, in order. A script that needs what a command did uses the Lua API (|claudenova-api|), which returns it.',
  bare = "Toggle the sidebar.",
  outro = {
    "The request in view: allow, allow-session, always, review and deny act on the surface under the cursor (a proposal or its original side, the action panel, a plan), else on the sidebar row under the cursor, else on the only pending request; with several pending and none in view they ask which one (vim.ui.select), never silently the oldest.",
    "On a plan or question, allow and deny open its surface instead of answering: a plan needs a mode, a question needs answers.",
  },
}

--- <Plug>(ClaudeNovaSendSelection): the visual selection's lines into the
--- prompt input.
function M.send_selection()
  require("claudenova.core.errors").guard(function()
    local a, b = vim.fn.line("v"), vim.fn.line(".")
    vim.cmd("normal! \27")
    local tui = require("claudenova.frontend.tui")
    local term = tui.running(ui().session_in_view())
    if term and vim.api.nvim_buf_get_name(0) ~= "" then
      -- claude's terminal UI: the reference typed into its input, the
      -- cursor there to write the rest.
      tui.mention(term, vim.api.nvim_buf_get_name(0), math.min(a, b), math.max(a, b))
      tui.show(term, { focus = true })
      vim.cmd.startinsert()
      return
    end
    local lines =
      require("claudenova.services.context").selection(vim.api.nvim_get_current_buf(), math.min(a, b), math.max(a, b))
    ui().prompt(nil, { context = lines })
  end)()
end

--- The effort levels of the model of the session in view (all levels when
--- claude did not say).
function M.effort_levels()
  local ok, list = pcall(function()
    return nova().models(ui().session_in_view())
  end)
  local s = require("claudenova.store.state").sessions[ui().session_in_view() or 0]
  local cur = s and s.model or ""
  for _, m in ipairs(ok and list or {}) do
    if (m.value == cur or (cur == "" and m.value == "default")) and #m.effort_levels > 0 then
      return m.effort_levels
    end
  end
  return { "low", "medium", "high", "xhigh", "max" }
end

function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

-- Subcommands that work without the host binary.
local no_host = { build = true, log = true, sidebar = true }

-- Commands run one after another, each as a gesture (core.gesture): one
-- that waits for the host yields instead of holding the editor, and the
-- commands typed meanwhile wait their turn, so `:ClaudeNova new` then
-- `:ClaudeNova send` still sends to the new session.
local queue, draining = {}, false

local function drain()
  draining = true
  while #queue > 0 do
    table.remove(queue, 1)()
  end
  draining = false
end

--- Run job (a guarded function) after the commands before it.
local function enqueue(job)
  table.insert(queue, job)
  if not draining then
    require("claudenova.core.gesture").run(drain)
  end
end

--- Whether a command is running or waiting its turn.
function M.busy()
  return draining or #queue > 0
end

function M.run(opts)
  local args = vim.deepcopy(opts.fargs)
  local sub = table.remove(args, 1)
  local raw = (opts.args or ""):gsub("^%s*%S+%s?", "", 1)
  local guard = require("claudenova.core.errors").guard
  if not sub then
    guard(function()
      ui().toggle_sidebar()
    end)()
    return
  end
  -- Requests that arrive while you are away are signaled (notify_away),
  -- also where setup() was never called.
  require("claudenova.setup.away").setup()
  local cmd = M.subcommands[sub]
  if not cmd then
    -- What to do first: the list is long and may be cut (:messages has it whole).
    require("claudenova.setup.notify").error(
      (":ClaudeNova <Tab> lists the subcommands (%q is not one: %s)"):format(sub, table.concat(M.names(), ", "))
    )
    return
  end
  local function job()
    guard(cmd.run)(args, raw, opts)
  end
  if no_host[sub] then
    enqueue(job)
    return
  end
  -- The first command after an install (vim.pack has no build step) or an
  -- update builds the host first, in the background, then runs.
  require("claudenova.channel.host").ready(function()
    enqueue(job)
  end)
end

function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+", { trimempty = false })
  if #words <= 2 then
    return vim.tbl_filter(function(n)
      return vim.startswith(n, arglead)
    end, M.names())
  end
  local cmd = M.subcommands[words[2]]
  if cmd and cmd.complete and #words == 3 then
    return vim.tbl_filter(function(n)
      return vim.startswith(n, arglead)
    end, cmd.complete())
  end
  return {}
end

return M
