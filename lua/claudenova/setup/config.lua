-- One schema is the single source of truth for defaults, validation and the
-- configuration reference in the docs.
local notify = require("claudenova.setup.notify")

local M = {}

local function default_storage()
  return vim.fn.stdpath("state") .. "/claudenova"
end

local modes = { "default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk" }
M.modes = modes

-- The editor's tools for Claude (the host's rplugin/editortools has the same
-- list; a test checks they agree).
local EDITOR_TOOLS = {
  "open_buffers",
  "buffer_text",
  "selection",
  "diagnostics",
  "lsp_definition",
  "lsp_references",
  "lsp_hover",
  "document_symbols",
  "workspace_symbols",
}
M.editor_tools = EDITOR_TOOLS

--- Schema: each key has a type (or enum), a default and a description.
M.schema = {
  cmd = {
    type = "string",
    default = "claude",
    desc = 'Command that runs Claude Code, split like a shell would (no shell is used), e.g. "npx @anthropic-ai/claude-code".',
  },
  args = { type = "list", default = {}, desc = "Extra arguments passed to claude after ours." },
  env = { type = "map", default = {}, desc = "Extra environment variables for claude." },
  model = { type = "string", default = "", desc = "Model passed with --model (empty: claude's default)." },
  permission_mode = {
    type = "string",
    default = "",
    check = function(v)
      if v ~= "" and not vim.tbl_contains(modes, v) then
        return "must be empty or one of " .. table.concat(modes, ", ")
      end
    end,
    desc = "The permission mode every session starts in. Empty: permissions.defaultMode from the settings claude reads for the session's folder, else \"default\". Always passed to claude explicitly, never left to the CLI's own default; a mode claude reports that you did not choose is set back (:help claudenova-mode).",
  },
  review_edits = {
    enum = { "proposal", "panel" },
    default = "proposal",
    desc = '"proposal": file changes open as editable files (:w applies, closing denies). "panel": they go to the action panel like other tools.',
  },
  storage = {
    type = "string",
    default = default_storage,
    default_doc = "stdpath('state') .. \"/claudenova\"",
    check = function(v)
      if not v:match("^/") then
        return "must be an absolute path"
      end
    end,
    desc = "Folder for staged proposals and rescued edits; an absolute path (default: stdpath('state')/claudenova).",
  },
  log_level = {
    enum = { "debug", "info", "warn", "error", "off" },
    default = "info",
    desc = "Host log level; the log is stdpath('log')/claudenova.log.",
  },
  notify = { type = "boolean", default = true, desc = "Announce each new request with vim.notify." },
  tabline = {
    type = "boolean",
    default = true,
    desc = "While 'tabline' is empty (Neovim's own tab line), draw the same tab line with claude-nova's windows named as a person reads them (\"Proposal · greet.py\", \"Transcript · 1 · the tour\") instead of a storage path. Your own 'tabline' is never touched.",
  },
  checkpoints = {
    type = "boolean",
    default = true,
    desc = "Run claude with file checkpoints, so :ClaudeNova rewind can restore the files Claude changed (Write, Edit) to their state before any of your prompts. Applies to sessions started afterwards.",
  },
  provenance = {
    desc = "When you commit (anywhere: a shell, fugitive, lazygit) in a repository a session ran in, write a Git AI authorship note (refs/notes/ai, schema authorship/3.0.0) on the commit naming the lines Claude wrote, per session and prompt, and the lines you amended in its proposals; :ClaudeNova blame reads them back after a restart or on another machine. Notes stay local until :ClaudeNova provenance push. false: write none (same as enabled = false; blame still reads notes that exist).",
    off = { enabled = false },
    was_boolean = true, -- `provenance = true` (a boolean until it had fields) still means on
    fields = {
      enabled = { type = "boolean", default = true, desc = "Write the notes." },
      prompts = {
        enum = { "ref", "text" },
        default = "ref",
        desc = '"ref": a note names each prompt by reference only (the Claude session\'s id and the prompt\'s number in it); its text stays on this machine (prompts can hold secrets, and :ClaudeNova provenance push publishes the notes). "text": the prompt\'s text (cut to 500 characters) goes into the note too.',
      },
      push = {
        type = "boolean",
        default = false,
        desc = "When :ClaudeNova pr pushes a worktree's branch, push the authorship notes (refs/notes/ai) to the same remote with it. Off: they stay on this machine until :ClaudeNova provenance push.",
      },
    },
  },
  worktree = {
    desc = "How a session's new worktree (:ClaudeNova new --worktree, --count) is set up before its first prompt, as your checkout is: the files in copy are copied in from the checkout, then setup runs in it. The work shows as the session's task (:ClaudeNova tasks: its output, stop); the prompt waits for it; a failure, a timeout or a stop ends the session with the reason.",
    fields = {
      copy = {
        type = "list",
        default = {},
        check = function(v)
          for _, p in ipairs(v) do
            if
              p == ""
              or p:sub(1, 1) == "/"
              or p == ".."
              or p:match("^%.%./")
              or p:match("/%.%./")
              or p:match("/%.%.$")
            then
              return "must list patterns relative to the project's top folder, inside it"
            end
          end
        end,
        desc = 'Files of your checkout that git does not track to copy into a new worktree (it has only tracked files), as patterns relative to the top folder, e.g. { ".env.local", "config/*.yml" } (* matches any characters but /, dot files too). Never over a file the worktree has; symbolic links and folders are not copied. .env files are not copied unless you list them: a worktree copy is one more copy of your secrets, in a folder Claude works in and reads, left on disk while the worktree stays.',
      },
      setup = {
        type = "commands",
        default = {},
        desc = 'Run in a new worktree after copy, before the first prompt: a list of commands, each run by sh -c in the worktree in order (e.g. { "npm ci" }), or a string: the path of a script of the project, relative to its top folder, run as is (it must be executable). They read $CLAUDENOVA_ROOT (your checkout), $CLAUDENOVA_WORKTREE and $CLAUDENOVA_BRANCH; stdin is empty. The first that fails ends the setup.',
      },
      setup_timeout = {
        type = "number",
        default = 600,
        check = function(v)
          if v <= 0 then
            return "must be more than 0"
          end
        end,
        desc = "Seconds the whole setup may take; then it is ended (its commands' process groups with it) and the session stops.",
      },
    },
  },
  download = {
    desc = "Where the host binary comes from when it is missing or outdated (a fresh install, an update): the release asset for your platform, downloaded (curl, else wget) and checked against the SHA-256 that the checkout's lua/claudenova/core/release.lua names before it is made executable and run; without it (no asset, no network, no curl or wget), a build with go. false: never download (same as enabled = false).",
    off = { enabled = false },
    fields = {
      enabled = { type = "boolean", default = true, desc = "Download the release asset (else build with go)." },
      url = {
        type = "string",
        default = "https://github.com/claude-nova/claude-nova.nvim/releases/download/v{version}/{asset}",
        check = function(v)
          if vim.trim(v) == "" then
            return "must not be empty"
          end
        end,
        desc = "Where the release assets are: {version} is the release's version (from the manifest), {asset} the file name (claudenova-linux-amd64, …; appended after a / when the URL has no {asset}). An absolute folder path or a file:// URL works too (copied; no curl or wget needed), e.g. a mirror inside a container.",
      },
    },
  },
  notify_away = {
    desc = "A signal when a request waits while you are away: Neovim has no focus (FocusLost: another window, another tmux pane, your terminal in the background) or no UI is attached (a detached --remote-ui, a headless server). Once per request; nothing while you are looking. false: no signal (same as terminal = false, bell = false).",
    off = { terminal = false, bell = false },
    fields = {
      terminal = {
        type = "boolean",
        default = true,
        desc = "A terminal notification: OSC 777 and OSC 9 (shown by foot, kitty, WezTerm, Ghostty, iTerm2, Windows Terminal, …), wrapped for tmux (which needs `set -g allow-passthrough on`). It reaches the terminal of the UI attached (also a --remote-ui client on Neovim 0.12).",
      },
      bell = { type = "boolean", default = true, desc = "Ring the terminal's bell (whatever 'belloff' says)." },
      command = {
        type = "list",
        default = nil,
        default_doc = "nil",
        check = function(v)
          if #v == 0 then
            return "must name a command"
          end
        end,
        desc = 'A command run with the message as its last argument, e.g. { "notify-send", "claude-nova" } (no shell). It runs on the machine Neovim runs on, also when no UI is attached.',
      },
    },
  },
  surfaces = {
    desc = "When a request's surface (panel, proposal, plan, question) may take the cursor on its own.",
    fields = {
      quiet_ms = {
        type = "number",
        default = 1000,
        check = function(v)
          if v < 0 then
            return "must be 0 or more"
          end
        end,
        desc = "A surface that arrives on its own takes the cursor only after you have typed nothing for this long (and are in normal mode, not halfway through a command). Until then it waits in the sidebar; :ClaudeNova focus opens it at once.",
      },
      grace_ms = {
        type = "number",
        default = 400,
        check = function(v)
          if v < 0 then
            return "must be 0 or more"
          end
        end,
        desc = "For this long after a surface took the cursor on its own, its deciding keys do nothing and keys typed in it are dropped (its border or winbar says so). A surface you open yourself has no grace period.",
      },
    },
  },
  sidebar = {
    desc = "Sidebar of sessions and pending requests.",
    fields = {
      position = { enum = { "left", "right" }, default = "right", desc = "Side of the sidebar split." },
      width = {
        type = "number",
        default = 0.3,
        check = function(v)
          if v <= 0 then
            return "must be more than 0"
          end
        end,
        desc = "Width of the sidebar: below 1 a fraction of the screen's columns (kept between min_width and max_width, and followed when the screen is resized), else a number of columns.",
      },
      min_width = { type = "number", default = 28, desc = "The narrowest the sidebar gets when width is a fraction." },
      max_width = { type = "number", default = 56, desc = "The widest the sidebar gets when width is a fraction." },
    },
  },
  proposal = {
    desc = "Editable proposals.",
    fields = {
      layout = {
        enum = { "tab", "vsplit", "split" },
        default = "tab",
        desc = "Where a proposal opens: a new tab, or a split of the current tab (both with the original beside it in diff mode).",
      },
    },
  },
  transcript = {
    desc = "Session transcripts.",
    fields = {
      memory_lines = {
        type = "number",
        default = 5000,
        desc = "Lines of each transcript the host keeps in memory; older ones go to a file in storage (the buffer keeps them all).",
      },
      filetype = {
        enum = { "claudenova", "markdown" },
        default = "claudenova",
        desc = '"claudenova": our own highlighting, computed by the host as lines arrive (never a re-parse of the buffer). "markdown": filetype markdown, for render-markdown.nvim or markview.nvim; it is set when a transcript is first shown, so its ftplugin and FileType autocommands never run for a session nobody reads.',
      },
      highlight = {
        enum = { "host", "filetype" },
        default = "host",
        desc = '"host": the host\'s highlighting (headings, emphasis, code, tool lines), computed as lines arrive and never a re-parse of the buffer, with either filetype; with "markdown", Neovim\'s own markdown highlighting (tree-sitter on 0.12, regex syntax on 0.10) is off in transcripts, while render-markdown.nvim and markview.nvim still attach. "filetype": the filetype\'s own highlighting instead, which re-parses a transcript as it grows (on long streaming replies the editor pauses up to 10–20 ms at a time).',
      },
    },
  },
  context = {
    desc = "What :ClaudeNova send and add put in a prompt.",
    fields = {
      diagnostics = {
        type = "boolean",
        default = false,
        desc = "Append the diagnostics (vim.diagnostic) of the sent lines to a selection sent with :'<,'>ClaudeNova send.",
      },
    },
  },
  editor_tools = {
    desc = "The editor as Claude's tool: an MCP server \"nvim\" the host serves itself (no process, no port) that lets Claude read the live editor: listed buffers, a buffer's text with unsaved changes, the visual selection, diagnostics, and your language servers (definition, references, hover, symbols). Claude calls them as mcp__nvim__<tool>; each call is a line in the transcript. Applies to sessions started afterwards.",
    fields = {
      enabled = { type = "boolean", default = true, desc = "Offer the editor's tools to Claude." },
      ask = {
        type = "boolean",
        default = false,
        desc = "Ask before each call, like any other tool. By default these read-only tools run without a prompt (your own editor's state); an ask rule of yours for one of them is obeyed either way.",
      },
      tools = {
        type = "list",
        default = EDITOR_TOOLS,
        default_doc = vim.inspect(EDITOR_TOOLS),
        check = function(v)
          for _, n in ipairs(v) do
            if not vim.tbl_contains(EDITOR_TOOLS, n) then
              return ("names an unknown tool %q (known: %s)"):format(n, table.concat(EDITOR_TOOLS, ", "))
            end
          end
        end,
        desc = "The tools offered (a subset of the default list).",
      },
    },
  },
  feedback = {
    desc = "What Claude is told about its own changes.",
    fields = {
      diagnostics = {
        type = "boolean",
        default = true,
        desc = "After a change Claude made reaches the disk (an applied proposal, an accepted edit, a rewind), reload the file (load it if needed), wait for its language servers and tell Claude the new errors and warnings it introduced, with the tool's result (before its next request). The transcript shows what was sent.",
      },
      diagnostics_wait = {
        type = "number",
        default = 2000,
        check = function(v)
          if v < 0 or v > 60000 then
            return "must be between 0 and 60000 (milliseconds)"
          end
        end,
        desc = "How long to wait for a changed file's diagnostics, in milliseconds (the wait ends sooner once its language servers went quiet; a buffer that was not loaded gets a little longer for its server to attach).",
      },
    },
  },
  agents = {
    desc = "Every Claude session on this machine: while the sidebar is shown, the host runs `claude agents --json` (in the background) and the sidebar lists the sessions this editor does not run, interactive and background, with their folder, name and state; one that waits for a person is marked. <CR> on a background one opens `claude attach <id>` in a terminal split.",
    fields = {
      list = { type = "boolean", default = true, desc = "List the other Claude sessions in the sidebar." },
      refresh_ms = {
        type = "number",
        default = 5000,
        check = function(v)
          if v < 1000 then
            return "must be 1000 or more"
          end
        end,
        desc = "How often the list is read again while the sidebar is shown, in milliseconds.",
      },
    },
  },
  review = {
    desc = "Review rounds, comments and who wrote each line (:ClaudeNova changes round, comment, comments, blame).",
    fields = {
      hover = {
        type = "boolean",
        default = true,
        desc = "While :ClaudeNova blame is on, show who wrote the cursor's line at its end once the cursor rests ('updatetime').",
      },
    },
  },
  questions = {
    desc = "AskUserQuestion prompts.",
    fields = {
      ui = {
        enum = { "select", "float" },
        default = "select",
        desc = '"select": vim.ui.select (pickers take over); "float": our own floating list.',
      },
    },
  },
  keymaps = {
    desc = "Buffer-local keymaps. Set a key to false to disable it. g? in any surface lists its keys (|claudenova-keys|).",
    fields = {
      help = {
        type = "key",
        default = "g?",
        desc = "In every claude-nova surface (sidebar, panel, proposal, plan, transcript, prompt input, rules, changes, task output, usage, MCP servers): show its keys.",
      },
      sidebar = {
        desc = "Keys in the sidebar. On a visual selection of rows, allow, allow_session and deny decide every selected request (plans, questions and forms are skipped, and a batch never allows what claude asks you to answer yourself: a safety check, your own ask rule).",
        fields = {
          present = {
            type = "key",
            default = "<CR>",
            desc = "On a request: open its surface again. On a task: open its output. On a session: fold or unfold its requests and tasks. On an MCP server that failed: :ClaudeNova mcp. On another Claude session: open it (claude attach) in a terminal split.",
          },
          fold = { type = "key", default = "za", desc = "Fold or unfold the requests of the session under the cursor." },
          transcript = {
            type = "key",
            default = "o",
            desc = "Open the transcript of the session under the cursor (or of the request's session).",
          },
          clear = {
            type = "key",
            default = "x",
            desc = "Clear the exited session under the cursor from the list; elsewhere, every exited session.",
          },
          allow = {
            type = "key",
            default = "a",
            desc = "Allow the request (where claude asks for a deliberate answer, its panel opens instead).",
          },
          allow_session = {
            type = "key",
            default = "s",
            desc = "Allow for the session what the CLI suggests for it, or exactly this request (the panel shows the rule).",
          },
          review = { type = "key", default = "r", desc = "Review the full request." },
          deny = { type = "key", default = "d", desc = "Deny, with an optional message for Claude." },
          deny_stop = {
            type = "key",
            default = "D",
            desc = "Deny and stop: deny, and end the turn (Claude does not try again; claude tells it to wait for you).",
          },
          always = {
            type = "key",
            default = "A",
            desc = "Always…: allow or deny from now on, with a rule you can edit and a scope.",
          },
          stop = {
            type = "key",
            default = "X",
            desc = "Stop what is under the cursor: a background task (that one only), or a session (it asks first while a turn or a background task runs; its pending requests are withdrawn).",
          },
          close = { type = "key", default = "q", desc = "Close the sidebar." },
        },
      },
      mcp = {
        desc = "Keys in the MCP servers view (:ClaudeNova mcp).",
        fields = {
          reconnect = {
            type = "key",
            default = "r",
            desc = "Reconnect the MCP server under the cursor (after its command was fixed, it comes up); claude's error says why when it does not.",
          },
          toggle = {
            type = "key",
            default = "t",
            desc = "Disable the MCP server under the cursor, or enable it again (claude keeps the choice for the project).",
          },
          refresh = { type = "key", default = "R", desc = "Ask claude for its MCP servers again." },
          close = { type = "key", default = "q", desc = "Close the MCP servers view." },
        },
      },
      task_output = {
        desc = "Keys in a task's output buffer (:ClaudeNova tasks).",
        fields = {
          stop = { type = "key", default = "X", desc = "Stop the task." },
          close = { type = "key", default = "q", desc = "Close the output window." },
        },
      },
      panel = {
        desc = "Keys in the action panel.",
        fields = {
          allow = {
            type = "key",
            default = "a",
            desc = "Allow once. Where claude asks for a deliberate answer (default_to_no) the panel opens on Deny and takes the key twice (or <CR> on the Allow line).",
          },
          allow_session = {
            type = "key",
            default = "s",
            desc = "Allow for the session what the CLI suggests (e.g. Bash(npm test *)), exactly this request when it suggests nothing, or accept all edits where it suggests that; the panel says which. Not offered where claude asks that no rule be made (a safety check).",
          },
          allow_tool = {
            type = "key",
            default = "t",
            desc = "Allow every call of the tool for the session (e.g. every Bash command). Not offered where claude asks that no rule be made.",
          },
          always = {
            type = "key",
            default = "A",
            desc = "Always…: allow or deny from now on, with a rule you can edit (<S-Tab>: the whole tool, or an MCP tool's whole server) and a scope. Not offered where claude asks that no rule be made.",
          },
          review = { type = "key", default = "r", desc = "Show the full input (and diff)." },
          deny = { type = "key", default = "d", desc = "Deny with an optional message." },
          deny_stop = {
            type = "key",
            default = "D",
            desc = "Deny and stop: deny, and end the turn, so Claude does not retry a firm no (claude tells it to wait for you; a message is not sent).",
          },
          allow_dir = {
            type = "key",
            default = "f",
            desc = "Allow this folder: allow once, and the folder claude suggests (a write outside the session's folders) for the rest of the session. Offered only where claude suggests a folder.",
          },
          close = { type = "key", default = "q", desc = "Hide the panel (the request stays pending)." },
        },
      },
      proposal = {
        desc = "Keys in a proposal buffer.",
        fields = {
          allow = { type = "key", default = "<localleader>a", desc = "Save and apply the proposal." },
          deny = { type = "key", default = "<localleader>d", desc = "Reject the proposal." },
          deny_stop = {
            type = "key",
            default = "<localleader>D",
            desc = "Reject the proposal and end the turn (Claude does not try again).",
          },
          reject_hunk = {
            type = "key",
            default = "<localleader>r",
            desc = "Put the original's lines back for the hunk under the cursor.",
          },
          restore_hunk = {
            type = "key",
            default = "<localleader>R",
            desc = "Put Claude's lines back for the hunk under the cursor (after a reject or your own edits).",
          },
          note = {
            type = "key",
            default = "<localleader>c",
            desc = "Attach a note for Claude to the hunk under the cursor (again: edit it; empty: remove it).",
          },
        },
      },
      plan = {
        desc = "Keys in the plan buffer.",
        fields = {
          accept_edits = {
            type = "key",
            default = "<localleader>a",
            desc = "Approve, then accept edits automatically.",
          },
          approve = { type = "key", default = "<localleader>y", desc = "Approve, keep asking for each edit." },
          keep_planning = {
            type = "key",
            default = "<localleader>n",
            desc = "Keep planning: send feedback (with your edits and comments).",
          },
          comment = {
            type = "key",
            default = "<localleader>c",
            desc = "Comment on the plan's line (in visual mode: lines) under the cursor; sent, quoted with its lines, when you approve or keep planning. On a commented line: edit it (empty removes it).",
          },
          deny_stop = {
            type = "key",
            default = "<localleader>D",
            desc = "Reject the plan and end the turn (Claude stops and waits for you).",
          },
        },
      },
      rules = {
        desc = "Keys in the rules buffer (:ClaudeNova rules).",
        fields = {
          remove = {
            type = "key",
            default = "dd",
            desc = "Take back the rule under the cursor: a session rule ends at once, a rule from a settings file is removed from that file.",
          },
          refresh = { type = "key", default = "R", desc = "Read the rules again." },
          close = { type = "key", default = "q", desc = "Close the rules buffer." },
        },
      },
      transcript = {
        desc = "Keys in a transcript buffer.",
        fields = {
          prompt = {
            type = "key",
            default = "i",
            desc = "Open the prompt input (:ClaudeNova prompt does too; nothing else does).",
          },
          details = {
            type = "key",
            default = "<CR>",
            desc = "On a tool call or a subagent's Task line: open or close its details (elsewhere it only says that i writes a prompt).",
          },
          interrupt = { type = "key", default = "<C-c>", desc = "Interrupt the current turn." },
          withdraw = {
            type = "key",
            default = "<localleader>w",
            desc = "Withdraw the last prompt claude has not taken yet (sent while a turn ran; marked queued).",
          },
          open_full = {
            type = "key",
            default = "gf",
            desc = "Open the whole result of the tool call under the cursor (the transcript shows its first lines); on a subagent's or background command's call, the output of its task.",
          },
        },
      },
      changes = {
        desc = "Keys in the changes view (:ClaudeNova changes).",
        fields = {
          undo_hunk = {
            type = "key",
            default = "<localleader>u",
            desc = "Undo the hunk under the cursor: its lines as they were before the turn go back on disk (Claude is told).",
          },
          keep_hunk = {
            type = "key",
            default = "<localleader>k",
            desc = "Keep the hunk under the cursor (marks it reviewed) and go to the next.",
          },
          comment = {
            type = "key",
            default = "<localleader>c",
            desc = "Comment on the line (in visual mode: the lines) under the cursor for the next review (:ClaudeNova comment).",
          },
          close = { type = "key", default = "q", desc = "Close the changes view." },
        },
      },
      files = {
        desc = "Keys in the files view (:ClaudeNova changes branch, changes round, merge) and in the diff of a file opened from it.",
        fields = {
          open = {
            type = "key",
            default = "<CR>",
            desc = "Open the file under the cursor in a diff (its content at the base ↔ now); in a merge's files view, its proposal.",
          },
          viewed = {
            type = "key",
            default = "<localleader>v",
            desc = "Mark the file viewed (or not); in a file's diff, mark it viewed and open the next.",
          },
          next_file = { type = "key", default = "]f", desc = "The next file (in a file's diff: open it)." },
          prev_file = { type = "key", default = "[f", desc = "The previous file (in a file's diff: open it)." },
          apply_clean = {
            type = "key",
            default = "<localleader>a",
            desc = "In a merge's files view (:ClaudeNova merge): apply every file without a conflict, each as :w of its proposal would; conflicted files stay proposals.",
          },
          close = { type = "key", default = "q", desc = "Close the files view." },
        },
      },
      compare = {
        desc = "Keys in the comparison of worktree branches (:ClaudeNova compare).",
        fields = {
          open = {
            type = "key",
            default = "<CR>",
            desc = "On a file: its versions side by side in diff mode; on a branch: its files view.",
          },
          merge = {
            type = "key",
            default = "m",
            desc = "Merge the branch under the cursor into your checkout: the merge's files view opens, as :ClaudeNova merge's does.",
          },
          discard = {
            type = "key",
            default = "x",
            desc = "Discard the branch under the cursor: after you confirm, its session stops and its worktree and branch are removed, with the work not merged.",
          },
          close = { type = "key", default = "q", desc = "Close the comparison." },
        },
      },
      review = {
        desc = "Keys in the buffers of files Claude changed in the open round (and of files with comments), and while blame is on. A buffer-local mapping of yours on the same key wins.",
        fields = {
          comment = {
            type = "key",
            default = "<localleader>c",
            desc = "Comment on the line (in visual mode: the lines) under the cursor for the next review.",
          },
          blame_info = {
            type = "key",
            default = "<CR>",
            desc = "While :ClaudeNova blame is on: show who wrote the cursor's line, the session, the prompt and its time.",
          },
        },
      },
      comments = {
        desc = "Keys in the comments list (:ClaudeNova comments).",
        fields = {
          jump = { type = "key", default = "<CR>", desc = "Open the comment's file at its line." },
          edit = { type = "key", default = "e", desc = "Edit the comment under the cursor (vim.ui.input)." },
          delete = { type = "key", default = "dd", desc = "Delete the comment under the cursor." },
          send = {
            type = "key",
            default = "<localleader>s",
            desc = "Send the review: every comment, as one message to the session (:ClaudeNova comments send).",
          },
          close = { type = "key", default = "q", desc = "Close the list." },
        },
      },
      prompt = {
        desc = "Keys in the prompt input.",
        fields = {
          send = {
            type = "key",
            default = "<C-s>",
            desc = "Send the prompt (also :w); while a turn runs it is queued until claude takes it.",
          },
          steer = { type = "key", default = "<C-CR>", desc = "Interrupt the running turn and send the prompt at once." },
          withdraw = {
            type = "key",
            default = "<localleader>w",
            desc = "Withdraw the session's last queued prompt (normal mode).",
          },
          close = {
            type = "key",
            default = "q",
            desc = "Close the input (normal mode): what you wrote and the queued files are kept as a draft (:ClaudeNova prompt opens it again).",
          },
        },
      },
    },
  },
}

-- The first paragraph of the docs' configuration section, which is
-- generated from the schema (make docs).
M.doc_intro =
  "Pass these to require(\"claudenova\").setup() (with lazy.nvim: `opts`). Every option is checked where it is set: a wrong type or value is an error naming the option (e.g. 'keymaps.sidebar.allow'), an unknown one a warning. Set a key to false to disable it."

local function check_type(path, spec, v)
  if spec.enum then
    if not vim.tbl_contains(spec.enum, v) then
      return ("claude-nova: option '%s' must be one of %s, got %s"):format(
        path,
        table.concat(
          vim.tbl_map(function(e)
            return ("%q"):format(e)
          end, spec.enum),
          ", "
        ),
        vim.inspect(v)
      )
    end
    return nil
  end
  local t = spec.type
  local ok
  if t == "list" then
    ok = type(v) == "table" and vim.islist(v)
    if ok then
      for i, x in ipairs(v) do
        if type(x) ~= "string" then
          return ("claude-nova: option '%s[%d]' must be a string, got %s"):format(path, i, type(x))
        end
      end
    end
  elseif t == "map" then
    ok = type(v) == "table"
    if ok then
      for k, x in pairs(v) do
        if type(k) ~= "string" or type(x) ~= "string" then
          return ("claude-nova: option '%s' must map strings to strings (bad entry %s)"):format(path, vim.inspect(k))
        end
      end
    end
  elseif t == "key" then
    ok = v == false or type(v) == "string"
    t = "string or false"
  elseif t == "commands" then
    if type(v) == "table" then
      return check_type(path, { type = "list" }, v)
    end
    ok = type(v) == "string" and vim.trim(v) ~= ""
    t = "list of commands or a script's path"
  else
    ok = type(v) == t
  end
  if not ok then
    return ("claude-nova: option '%s' must be a %s, got %s (%s)"):format(path, t, type(v), vim.inspect(v))
  end
  return nil
end

local function defaults(schema)
  local out = {}
  for k, spec in pairs(schema) do
    if spec.fields then
      out[k] = defaults(spec.fields)
    elseif type(spec.default) == "function" then
      out[k] = spec.default()
    else
      out[k] = vim.deepcopy(spec.default)
    end
  end
  return out
end

local function merge(schema, opts, prefix, out, errors, warnings)
  for k, v in pairs(opts) do
    local path = prefix .. k
    local spec = schema[k]
    if type(k) ~= "string" or not spec then
      local known = vim.tbl_keys(schema)
      table.sort(known)
      table.insert(
        warnings,
        ("claude-nova: unknown option '%s' (known here: %s)"):format(path, table.concat(known, ", "))
      )
    elseif spec.fields then
      if v == false and spec.off then
        for fk, fv in pairs(spec.off) do
          out[k][fk] = fv
        end
      elseif v == true and spec.was_boolean then
        -- on, with the defaults: what `key = true` meant before the option had fields
      elseif type(v) ~= "table" then
        table.insert(
          errors,
          ("claude-nova: option '%s' must be a table%s, got %s"):format(path, spec.off and " or false" or "", type(v))
        )
      else
        merge(spec.fields, v, path .. ".", out[k], errors, warnings)
      end
    else
      local err = check_type(path, spec, v)
      if not err and spec.check then
        local why = spec.check(v)
        if why then
          err = ("claude-nova: option '%s' %s, got %s"):format(path, why, vim.inspect(v))
        end
      end
      if err then
        table.insert(errors, err)
      else
        out[k] = v
      end
    end
  end
end

--- Validate opts against the schema and merge them over the defaults.
--- Returns the config, or nil and an error message naming every bad option.
---@return table|nil, string|nil, string[]
function M.validate(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    return nil, "claude-nova: setup() takes a table, got " .. type(opts), {}
  end
  local out = defaults(M.schema)
  local errors, warnings = {}, {}
  merge(M.schema, opts, "", out, errors, warnings)
  if #errors > 0 then
    return nil, table.concat(errors, "\n"), warnings
  end
  return out, nil, warnings
end

local current

--- The active configuration (defaults until setup() is called).
function M.get()
  if not current then
    current = M.validate({})
  end
  return current
end

--- Validate and apply; raises a clear error on bad options.
function M.set(opts)
  local cfg, err, warnings = M.validate(opts)
  for _, w in ipairs(warnings) do
    notify.warn(w)
  end
  if not cfg then
    error(err, 0)
  end
  current = cfg
  return cfg
end

--- The part of the configuration the Go host needs.
function M.host_options()
  local c = M.get()
  return {
    cmd = c.cmd,
    args = #c.args > 0 and c.args or nil,
    env = next(c.env) and c.env or vim.empty_dict(),
    review_edits = c.review_edits,
    storage = c.storage,
    model = c.model,
    permission_mode = c.permission_mode,
    transcript_lines = c.transcript.memory_lines,
    checkpoints = c.checkpoints,
    provenance = c.provenance.enabled,
    provenance_prompts = c.provenance.prompts,
    provenance_push = c.provenance.push,
    editor_tools = { enabled = c.editor_tools.enabled, ask = c.editor_tools.ask, tools = c.editor_tools.tools },
    feedback = { diagnostics = c.feedback.diagnostics, diagnostics_wait = c.feedback.diagnostics_wait },
    worktree = {
      copy = #c.worktree.copy > 0 and c.worktree.copy or nil,
      setup = type(c.worktree.setup) == "table" and #c.worktree.setup > 0 and c.worktree.setup or nil,
      script = type(c.worktree.setup) == "string" and c.worktree.setup or nil,
      timeout = c.worktree.setup_timeout,
    },
  }
end

return M
