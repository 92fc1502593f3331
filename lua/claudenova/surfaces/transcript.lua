-- One buffer per session (claudenova://session/N). Go sends the operations
-- (replace lines [index, index+count) with lines, plus their highlights);
-- this applies them and never takes focus.
--
-- Highlighting never re-parses the buffer: the host computes highlight
-- spans for the lines it sends (headings, emphasis, code, tool lines) and
-- they become extmarks; a finished fenced code block is highlighted once
-- with its language's tree-sitter parser, when the editor is idle. With
-- transcript.filetype = "markdown" the buffer gets that filetype (for
-- render-markdown.nvim, markview.nvim) and Neovim's own markdown
-- highlighting is turned off in it; transcript.highlight = "filetype" keeps
-- that highlighting instead of ours (it re-parses as the transcript grows).
--
-- Tool calls take one line each; their input and result are folded beneath
-- (fold level from the line itself: "  │ " lines fold, "  ┃ " lines show).
-- A subagent's work is nested under its Task line, one "  │ " deeper per
-- level, so it folds with the call (and its own calls fold within).
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local images = require("claudenova.setup.images")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")
local working = require("claudenova.services.working")
local tasks = require("claudenova.surfaces.tasks")
local textutil = require("claudenova.core.text")

local M = {}

M.bufs = {} ---@type table<integer, integer>
M.count = {} ---@type table<integer, integer> lines applied per session
M.seq = {} ---@type table<integer, integer> the transcript version the buffer shows

local ns = vim.api.nvim_create_namespace("claudenova_transcript")
local code_ns = vim.api.nvim_create_namespace("claudenova_transcript_code")

local FOLDED = "  │ "
local TOOL = "▸ "

local function cfg()
  return config.get()
end

-- Whether the host's highlights are the transcript's (see the top).
local function ours()
  return cfg().transcript.filetype == "claudenova" or cfg().transcript.highlight == "host"
end

-- Run fn with the Syntax event ignored: no regex syntax file is sourced
-- meanwhile. 'eventignore' is put back as it was, whatever fn does.
local function no_syntax(fn)
  local saved = vim.o.eventignore
  vim.o.eventignore = saved == "" and "Syntax" or (saved .. ",Syntax")
  local ok, err = pcall(fn)
  vim.o.eventignore = saved
  if not ok then
    error(err, 0)
  end
end

-- How deep a line is nested: the "  │ " it starts with.
local function depth(l)
  local n, i = 0, 1
  while l:sub(i, i + #FOLDED - 1) == FOLDED do
    n, i = n + 1, i + #FOLDED
  end
  return n, l:sub(i)
end

-- The fold levels foldexpr read last: of the lines from+1 .. from+#levels
-- of buf as it was at changedtick tick. Neovim asks line after line (all
-- of a transcript each time it is shown in a window): one read of the
-- next FOLD_CHUNK lines serves the calls that follow, and of FOLD_BACK
-- before them a few steps back.
local fold_cache = { buf = -1, tick = -1, from = 0, levels = {} }
local FOLD_CHUNK, FOLD_BACK = 512, 32

--- foldexpr of transcript windows: the tool details fold, a nested
--- agent's calls within its Task's fold.
function M.foldexpr()
  local buf, lnum = vim.api.nvim_get_current_buf(), vim.v.lnum
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local c = fold_cache
  local i = lnum - c.from
  if c.buf ~= buf or c.tick ~= tick or i < 1 or i > #c.levels then
    local from = math.max(0, lnum - 1 - FOLD_BACK)
    local levels = {}
    for k, l in ipairs(vim.api.nvim_buf_get_lines(buf, from, lnum - 1 + FOLD_CHUNK, false)) do
      levels[k] = (depth(l))
    end
    c = { buf = buf, tick = tick, from = from, levels = levels }
    fold_cache, i = c, lnum - from
  end
  return c.levels[i] or 0
end

--- foldtext of transcript windows.
function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  return ("  ⋯ %d line%s (<CR> or zo)"):format(n, n == 1 and "" or "s")
end

--- The winbar of the transcript window being drawn, fitted to its width:
--- the session, its state, its mode, then how full its context is.
function M.winbar_of()
  local win, buf = textutil.drawn()
  local id = buf and vim.b[buf].claudenova_session
  local st = state
  local s = id and st.sessions[id]
  if not s then
    return ""
  end
  local parts = { st.label(id), s.state or "" }
  if s.activity and s.activity ~= "" then
    table.insert(parts, s.activity) -- retrying, compacting, writing a file
  end
  if (s.tasks or 0) > 0 then
    table.insert(parts, ("%d task%s"):format(s.tasks, s.tasks == 1 and "" or "s"))
  end
  table.insert(parts, s.mode or "")
  if s.model and s.model ~= "" then
    table.insert(parts, s.model .. ((s.effort and s.effort ~= "") and (" · effort " .. s.effort) or ""))
  end
  if s.context and s.context.max and s.context.max > 0 then
    table.insert(
      parts,
      ("context %d%% (%dk of %dk)"):format(
        math.floor(s.context.percent + 0.5),
        math.floor(s.context.tokens / 1000 + 0.5),
        math.floor(s.context.max / 1000 + 0.5)
      )
    )
  end
  return "%#ClaudeNovaWinbar#" .. textutil.fit(parts, vim.api.nvim_win_get_width(win))
end

local WINBAR = "%!v:lua.require'claudenova.core.text'.winbar('transcript')"

-- The look of a window showing a transcript.
-- A transcript window's own options. (A window that showed the transcript
-- before has them back with it: each one set again, even to its value,
-- would have its folds computed once more, a fold expression call per line.)
local WINDOW_OPTS = {
  { "wrap", true },
  { "linebreak", true },
  -- A tool's details that wrap go on under their text, past the │ gutter.
  { "breakindent", true },
  { "breakindentopt", "list:-1" },
  { "number", false },
  { "relativenumber", false },
  { "foldmethod", "expr" },
  { "foldexpr", "v:lua.require'claudenova.surfaces.transcript'.foldexpr()" },
  { "foldtext", "v:lua.require'claudenova.surfaces.transcript'.foldtext()" },
  { "foldlevel", 0 },
}

local function setup_window(win, id)
  -- :setlocal for the transcript's buffer in this window only (vim.wo[win][0]):
  -- a window split from it that shows another buffer (a proposal, a diff)
  -- does not inherit the transcript's folds, fold text or winbar.
  local wo = vim.wo[win][0]
  for _, o in ipairs(WINDOW_OPTS) do
    if wo[o[1]] ~= o[2] then
      wo[o[1]] = o[2]
    end
  end
  vim.bo[vim.api.nvim_win_get_buf(win)].formatlistpat = [[^\s*\%([│┃]\s\+\)\+]]
  wo.winbar = WINBAR
end

--- A session changed: refresh the winbars of its transcript windows.
function M.session_changed(id)
  local buf = M.bufs[id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    for _, w in ipairs(vim.fn.win_findbuf(buf)) do
      -- Set again: the window's bar is drawn anew with the new state.
      vim.wo[w][0].winbar = WINBAR
    end
  end
end

-- <CR> on a tool line or a note with details (a command's diff, what
-- Claude was told), or on the details, opens or closes them. Elsewhere it
-- only says how to write a prompt: an Enter pressed to dismiss a message
-- must not open the input and take the keys typed next.
local function toggle_details(id)
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local line = vim.api.nvim_get_current_line()
  local target
  local d, rest = depth(line)
  local nxt = vim.api.nvim_buf_get_lines(0, lnum, lnum + 1, false)[1] or ""
  local open = vim.fn.foldclosed(lnum) == -1
  if open and depth(nxt) > d then
    -- A call (nested or not) or a note: its own details.
    target = lnum + 1
  elseif not open or (d > 0 and rest:sub(1, #TOOL) ~= TOOL) then
    -- A closed fold, or a line of details (a nested call without any of
    -- its own is not one).
    target = lnum
  end
  if not target then
    local key = textutil.key
    local keys = cfg().keymaps.transcript
    notify.info(
      ("%s writes a prompt (%s here opens a tool call's details)"):format(
        keys.prompt and key(keys.prompt) or ":ClaudeNova prompt",
        key(keys.details)
      )
    )
    return
  end
  if vim.fn.foldclosed(target) ~= -1 then
    vim.cmd(target .. "foldopen")
  else
    vim.cmd(target .. "foldclose")
  end
end

-- gf: the whole result of the tool call under the cursor, in a scratch
-- buffer (the transcript shows its first lines).
local function open_full(id)
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local ok, path = pcall(calls.request, "tool_output", { session = id, line = lnum - 1 })
  if not ok then
    -- A task's call (an agent, a background shell): its output.
    local found, task = pcall(calls.request, "task_at", { session = id, line = lnum - 1 })
    if found and task then
      tasks.open(task)
      return
    end
    error(path, 0)
  end
  if images.kind(path) then
    -- An image of a tool result: the system's viewer shows it.
    local _, err = vim.ui.open(path)
    if err then
      error("claude-nova: could not open " .. path .. ": " .. err, 0)
    end
    notify.info("opened the image: " .. vim.fn.fnamemodify(path, ":~"))
    return
  end
  vim.cmd("split " .. vim.fn.fnameescape(path))
  vim.bo.readonly = true
  vim.bo.modifiable = false
  vim.bo.bufhidden = "wipe"
end

local function set_keymaps(buf, id)
  local keys = cfg().keymaps.transcript
  local guard = errors.guard
  local function prompt()
    actions.prompt(id) -- a new session's, when this one exited
  end
  if keys.prompt then
    vim.keymap.set("n", keys.prompt, prompt, { buffer = buf, desc = "claude-nova: Write a prompt" })
  end
  if keys.details then
    vim.keymap.set(
      "n",
      keys.details,
      guard(function()
        toggle_details(id)
      end),
      { buffer = buf, desc = "claude-nova: Open or close a tool call's details" }
    )
  end
  keytable.map(buf, "transcript")
  if keys.open_full then
    vim.keymap.set(
      "n",
      keys.open_full,
      guard(function()
        open_full(id)
      end),
      { buffer = buf, desc = "claude-nova: Open the whole result of the tool call under the cursor" }
    )
  end
  if keys.withdraw then
    vim.keymap.set(
      "n",
      keys.withdraw,
      guard(function()
        actions.withdraw_queued(id)
      end),
      { buffer = buf, desc = "claude-nova: Withdraw the last queued prompt" }
    )
  end
  if keys.interrupt then
    vim.keymap.set(
      "n",
      keys.interrupt,
      guard(function()
        local out = actions.interrupt(id)
        if out and out.message then
          notify.info(out.message)
        end
      end),
      { buffer = buf, desc = "claude-nova: Interrupt the turn" }
    )
  end
end

-- Highlight a finished fenced code block with its language, once, when
-- the editor is idle (nothing happens without a parser for it).
local function highlight_code(buf, first, count, lang)
  if lang == "" or count <= 0 then
    return
  end
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    local tslang = vim.treesitter.language.get_lang(lang) or lang
    if not errors.try(vim.treesitter.language.add, tslang) then
      return
    end
    local ok, query = pcall(vim.treesitter.query.get, tslang, "highlights")
    if not ok or not query then
      return
    end
    local lines = vim.api.nvim_buf_get_lines(buf, first, first + count, false)
    local text = table.concat(lines, "\n")
    local pok, parser = pcall(vim.treesitter.get_string_parser, text, tslang)
    if not pok then
      return
    end
    local tree = parser:parse()[1]
    if not tree then
      return
    end
    vim.api.nvim_buf_clear_namespace(buf, code_ns, first, first + count)
    for cid, node in query:iter_captures(tree:root(), text) do
      local name = query.captures[cid]
      local sr, sc, er, ec = node:range()
      if name ~= "spell" and not name:find("^_") then
        errors.try(vim.api.nvim_buf_set_extmark, buf, code_ns, first + sr, sc, {
          end_row = first + er,
          end_col = ec,
          hl_group = "@" .. name .. "." .. tslang,
          priority = 110,
        })
      end
    end
  end)
end

-- Marks (highlights) and code blocks of lines that start at first.
local function decorate(buf, first, nlines, marks, code)
  if not ours() then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, first, first + nlines)
  vim.api.nvim_buf_clear_namespace(buf, code_ns, first, first + nlines)
  for _, m in ipairs(marks or {}) do
    local row = first + m[1]
    local e = m[3]
    if e < 0 then
      local l = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
      e = #l
    end
    errors.try(vim.api.nvim_buf_set_extmark, buf, ns, row, m[2], { end_col = e, hl_group = m[4] })
  end
  for _, c in ipairs(code or {}) do
    highlight_code(buf, first + c.line, c.count, c.lang)
  end
end

-- Windows the cursor is not in follow the output (the newest is shown
-- wherever the user scrolled before); the current window follows when its
-- cursor was on the last line, in normal mode (not while the user reads,
-- selects or types there).
local function follow(buf, before)
  local cur = vim.api.nvim_get_current_win()
  local normal = vim.api.nvim_get_mode().mode == "n"
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    if w ~= cur or (normal and vim.api.nvim_win_get_cursor(w)[1] >= before) then
      errors.try(vim.api.nvim_win_set_cursor, w, { vim.api.nvim_buf_line_count(buf), 0 })
    end
  end
end

-- Fetch the whole transcript from the host. Always from a scheduled
-- callback: a synchronous host call from inside a UI event (which is itself a
-- call from the host) would break Neovim's nested-call ordering.
M.syncing = {} ---@type table<integer, boolean>
-- A resync that came while a fetch was under way: the host may have dropped
-- updates after the snapshot that fetch gets. It names the last op it
-- replaced (seq); a snapshot older than that is fetched again (true: a
-- resync that named none, fetched again in any case).
local again = {} ---@type table<integer, integer|true>
-- Ops that came while a fetch was under way, before its answer: the host
-- takes the snapshot, then may send ops made after it ahead of the reply.
-- They go in after the snapshot (those it holds are skipped by their seq).
local held = {} ---@type table<integer, table[]>

-- A snapshot being put into a transcript, a slice at a time: { buf,
-- lines, size (a slice's), next (the first line not put yet), snap, first,
-- before (the line count before it), at (the current window's cursor line
-- then, when it goes in slices), queued (the ops that came after the
-- snapshot, applied once it is all in) }.
M.putting = {} ---@type table<integer, table>

-- How many lines of a snapshot go into a shown transcript at a time. Each
-- line put where a window shows it has its fold level computed then (the
-- transcript's folds are an expression): 9,000 lines took 15–23 ms in one
-- go, a slice takes a few milliseconds, and the editor's loop turns
-- between slices.
M.SLICE = 2000

-- The end of a snapshot's putting: its decorations, the counts the ops
-- after it are checked against, and those ops.
local function snapshot_in(id, buf, job)
  local snap = job.snap
  if job.at and vim.api.nvim_get_current_buf() == buf then
    -- A first slice shorter than the text clamped the cursor: where
    -- it was decides whether the window follows, as in one go.
    errors.try(vim.api.nvim_win_set_cursor, 0, { math.min(job.at, vim.api.nvim_buf_line_count(buf)), 0 })
  end
  follow(buf, job.before)
  M.count[id] = #job.lines
  M.seq[id] = type(snap) == "table" and snap.seq or 0
  if type(snap) == "table" then
    decorate(buf, job.first, #(snap.lines or {}), snap.marks, snap.code)
  end
  M.putting[id] = nil
  M.syncing[id] = false
  for _, ops in ipairs(job.queued) do
    M.apply(id, ops)
  end
  local want = again[id]
  again[id] = nil
  if want == true or (want and (M.seq[id] or 0) < want) then
    M.resync(id)
  end
end

-- Put the next slice of job's lines; schedule the one after, or end.
local function put_slice(id, job)
  if M.putting[id] ~= job then
    return -- the host was lost, or the buffer made again, meanwhile
  end
  local buf = job.buf
  if not vim.api.nvim_buf_is_valid(buf) then
    -- Wiped meanwhile: a buffer made again fetches the transcript anew.
    M.putting[id], M.syncing[id], again[id], held[id] = nil, false, nil, nil
    return
  end
  local last = math.min(#job.lines, job.next + job.size - 1)
  local whole = job.next == 1 and last == #job.lines
  local slice = whole and job.lines or vim.list_slice(job.lines, job.next, last)
  vim.bo[buf].modifiable = true
  if job.next == 1 then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, #slice > 0 and slice or { "" })
  else
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, slice)
  end
  vim.bo[buf].modifiable = false
  job.next = last + 1
  if job.next > #job.lines then
    snapshot_in(id, buf, job)
  else
    vim.schedule(function()
      put_slice(id, job)
    end)
  end
end

-- Put a snapshot of the transcript into its buffer. It runs where the
-- reply stands in the host's stream (calls.request's on_reply). The host
-- took the snapshot a moment before: the ops held since the fetch began
-- (some of them made after it) and those that come after the reply (held
-- until it is all in, when it goes in slices) follow it, each skipped when
-- the snapshot has it already.
local function put_snapshot(id, snap)
  local buf = M.bufs[id]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    -- Wiped while its fetch was under way: the fetch is over all the same,
    -- or the buffer re-created for the next op would wait for it forever.
    M.syncing[id], again[id], held[id] = false, nil, nil
    return
  end
  local lines = {}
  local first = 0
  if type(snap) == "table" then
    -- Older lines live in a file of the host's (it keeps a bounded tail).
    first = snap.first or 0
    if first > 0 and snap.file then
      local rok, head = pcall(vim.fn.readfile, snap.file, "", first)
      lines = rok and head or {}
      for _ = #lines + 1, first do
        table.insert(lines, "…")
      end
    end
    vim.list_extend(lines, snap.lines or {})
  end
  local job =
    { buf = buf, lines = lines, size = M.SLICE, next = 1, snap = snap, first = first, queued = held[id] or {} }
  held[id] = nil
  job.before = vim.api.nvim_buf_line_count(buf)
  if #lines <= M.SLICE or #vim.fn.win_findbuf(buf) == 0 then
    job.size = math.max(#lines, 1) -- not shown (no fold levels to compute), or small: at once
  elseif vim.api.nvim_get_current_buf() == buf then
    job.at = vim.api.nvim_win_get_cursor(0)[1]
  end
  M.putting[id] = job
  put_slice(id, job)
end

local function fill(id)
  local buf = M.bufs[id]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    M.syncing[id], held[id] = false, nil
    return
  end
  local ok = errors.try(calls.request, "transcript", { session = id }, function(fine, snap)
    put_snapshot(id, fine and snap or nil)
  end)
  if not ok then
    put_snapshot(id, nil)
  end
end

local function resync(id, seq)
  if M.syncing[id] then
    local want = again[id]
    again[id] = (seq == nil or want == true) and true or math.max(want or 0, seq)
    return
  end
  M.syncing[id] = true
  vim.schedule(function()
    fill(id)
  end)
end

--- Fetch the whole transcript again (Go dropped updates it could not
--- deliver while Neovim was busy, up to op seq when it says).
---@param id integer
---@param seq integer|nil
function M.resync(id, seq)
  if M.bufs[id] and vim.api.nvim_buf_is_valid(M.bufs[id]) then
    resync(id, seq)
  end
end

--- The host died: its sessions are gone. Their buffers stay readable under
--- another name, and the next host's session 1 gets a fresh buffer.
function M.host_lost()
  for id, buf in pairs(M.bufs) do
    if vim.api.nvim_buf_is_valid(buf) then
      local epoch = calls.epoch()
      errors.try(vim.api.nvim_buf_set_name, buf, ("claudenova://ended/%d/session/%d"):format(epoch, id))
      labels.set(buf, ("Transcript · session %d (ended)"):format(id))
      vim.bo[buf].modifiable = true
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "> The host stopped: this session is gone." })
      vim.bo[buf].modifiable = false
      vim.b[buf].claudenova_session = nil
      errors.try(vim.api.nvim_clear_autocmds, { buffer = buf })
    end
  end
  M.bufs, M.count, M.syncing, M.seq, M.putting, again, held = {}, {}, {}, {}, {}, {}, {}
end

--- The transcript buffer of session id (created on demand).
function M.ensure(id)
  local buf = M.bufs[id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, "claudenova://session/" .. id)
  labels.set(buf, function()
    return "Transcript · " .. state.label(id)
  end)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1 -- append-only: undo history would only cost time and memory
  vim.bo[buf].modeline = false
  -- Another filetype than ours (markdown, for render-markdown.nvim or
  -- markview.nvim) is set when the transcript is first shown: its ftplugin
  -- and FileType autocommands (on 0.12 markdown's starts tree-sitter, 10 ms
  -- a buffer) are for a transcript someone reads, not for each session's
  -- in the background. Ours costs nothing and is set at once.
  local ft = cfg().transcript.filetype
  if ft == "claudenova" then
    vim.bo[buf].filetype = ft
  end
  vim.bo[buf].modifiable = false
  vim.b[buf].claudenova_session = id
  set_keymaps(buf, id)
  -- Tree-sitter (what markdown's ftplugin starts on 0.12) runs only while
  -- the transcript is shown. (Asked of the highlighter only when something
  -- loaded it: loading it registers a decoration provider that Neovim then
  -- calls on every redraw of every window.)
  -- Stop it; the language it highlighted in, when it ran.
  local function stop_ts()
    local highlighter = package.loaded["vim.treesitter.highlighter"]
    local active = highlighter and highlighter.active[buf]
    if active then
      local l = active.tree:lang()
      errors.try(vim.treesitter.stop, buf)
      return l
    end
  end
  local lang -- the language tree-sitter highlighted it in, once stopped
  local function ts(on)
    if not on then
      lang = stop_ts() or lang
    elseif lang then
      errors.try(vim.treesitter.start, buf, lang)
    end
  end
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = buf,
    desc = "claude-nova: transcript window look; highlight while shown",
    callback = function()
      if vim.bo[buf].filetype ~= ft then
        if ours() then
          -- The host highlights it: Neovim's own highlighting of the
          -- filetype (what its FileType autocommands started) would
          -- re-parse the transcript as it grows. Not restarted when shown.
          -- Its regex syntax is never loaded: the Syntax event is ignored
          -- while the filetype is set (markdown's syntax file sources
          -- html's, css's and more: 10 ms and up) and while tree-sitter is
          -- stopped (which sets the regex syntax back).
          no_syntax(function()
            vim.bo[buf].filetype = ft -- before the window's look: an ftplugin sets some of it
            stop_ts()
          end)
          vim.bo[buf].syntax = ""
        else
          vim.bo[buf].filetype = ft
        end
      else
        ts(true)
      end
      setup_window(vim.api.nvim_get_current_win(), id)
    end,
  })
  vim.api.nvim_create_autocmd("BufEnter", {
    buffer = buf,
    desc = "claude-nova: the transcript you go to is the current session",
    callback = function()
      if state.sessions[id] then
        state.current = id
      end
    end,
  })
  vim.api.nvim_create_autocmd("BufHidden", {
    buffer = buf,
    desc = "claude-nova: stop parsing a hidden transcript",
    callback = function()
      vim.schedule(function()
        if vim.fn.bufwinid(buf) == -1 then
          ts(false)
        end
      end)
    end,
  })
  M.bufs[id] = buf
  M.count[id] = 0
  M.seq[id] = 0
  if M.putting[id] then
    -- A snapshot was going into the buffer this one replaces: it is
    -- fetched anew for this one.
    M.putting[id], M.syncing[id], again[id], held[id] = nil, false, nil, nil
  end
  if calls.running() then
    resync(id) -- a re-created buffer catches up with what it missed
  end
  return buf
end

--- Apply Go's operations ({op="set", prev, seq, index, count, lines,
--- marks, code}). An op the buffer has already (a fetch of the whole
--- transcript raced with it) is skipped; a gap (updates dropped while
--- Neovim was busy) fetches the whole transcript again.
function M.apply(id, ops)
  local buf = M.ensure(id)
  if M.putting[id] then
    table.insert(M.putting[id].queued, ops) -- after the snapshot going in
    return
  end
  if M.syncing[id] then
    -- After the snapshot the pending fill brings (it may lack them).
    held[id] = held[id] or {}
    table.insert(held[id], ops)
    return
  end
  local before = vim.api.nvim_buf_line_count(buf)
  vim.bo[buf].modifiable = true
  for _, op in ipairs(ops) do
    local n = M.count[id] or 0
    local have = M.seq[id] or 0
    if op.seq <= have then
      goto continue
    end
    if op.prev ~= have or op.index > n or op.index + op.count > n then
      vim.bo[buf].modifiable = false
      resync(id) -- we missed something: fetch the whole transcript
      return
    end
    if n == 0 then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, op.lines)
    else
      vim.api.nvim_buf_set_lines(buf, op.index, op.index + op.count, false, op.lines)
    end
    M.count[id] = n + #op.lines - op.count
    M.seq[id] = op.seq
    decorate(buf, op.index, #op.lines, op.marks, op.code)
    ::continue::
  end
  vim.bo[buf].modifiable = false
  if #ops > 0 then
    working.changed(id)
  end
  follow(buf, before)
end

-- The line that says what Claude is doing while nothing new shows (see
-- ui/working.lua), a virtual line under the transcript's last one.
working.buffers = M.bufs
local working_ns = vim.api.nvim_create_namespace("claudenova_working")
local working_marks = {}
working.subscribe(function(sid)
  local buf = M.bufs[sid]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    working_marks[sid] = nil
    return
  end
  local line = working.line(sid)
  if not line then
    if working_marks[sid] then
      errors.try(vim.api.nvim_buf_del_extmark, buf, working_ns, working_marks[sid])
      working_marks[sid] = nil
    end
    return
  end
  local last = vim.api.nvim_buf_line_count(buf) - 1
  local at = working_marks[sid] and vim.api.nvim_buf_get_extmark_by_id(buf, working_ns, working_marks[sid], {})
  if at and at[1] and at[1] ~= last then
    errors.try(vim.api.nvim_buf_del_extmark, buf, working_ns, working_marks[sid])
    working_marks[sid] = nil
  end
  working_marks[sid] = vim.api.nvim_buf_set_extmark(buf, working_ns, last, 0, {
    id = working_marks[sid],
    virt_lines = { { { line, "ClaudeNovaWorking" } } },
  })
end)

local function is_transcript(buf)
  return vim.b[buf].claudenova_session ~= nil
end

-- A tab that holds a proposal, a plan or a changes view is that surface's own: a transcript
-- never opens there.
local function surface_tab(tab)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
    local kind = vim.b[vim.api.nvim_win_get_buf(w)].claudenova_surface
    if kind == "proposal" or kind == "plan" or kind == "changes" then
      return true
    end
  end
  return false
end

--- An exited session the user cleared: its buffer goes (a window showing
--- it shows another buffer).
function M.forget(id)
  local buf = M.bufs[id]
  M.bufs[id], M.count[id], M.seq[id], M.syncing[id], M.putting[id], again[id], held[id] =
    nil, nil, nil, nil, nil, nil, nil
  if buf and vim.api.nvim_buf_is_valid(buf) then
    errors.try(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

--- Show session id's transcript: in the tab's transcript window if it has
--- one (one per tab), else in a new split at the bottom. opts.focus moves
--- the cursor there; otherwise the user's window keeps it.
function M.open(id, opts)
  opts = opts or {}
  local buf = M.ensure(id)
  if surface_tab(0) then
    local prev = vim.fn.tabpagenr("#")
    local tabs = vim.api.nvim_list_tabpages()
    if prev > 0 and tabs[prev] and not surface_tab(tabs[prev]) then
      vim.api.nvim_set_current_tabpage(tabs[prev])
    else
      vim.cmd("tabnew")
    end
  end
  local from = vim.api.nvim_get_current_win()
  local win
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if is_transcript(vim.api.nvim_win_get_buf(w)) then
      win = w
      break
    end
  end
  if not win then
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_win_set_buf(win, buf)
  setup_window(win, id)
  labels.apply(win)
  vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  if opts.focus or from == win then
    vim.api.nvim_set_current_win(win)
  elseif vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  return win
end

textutil.register_winbar("transcript", M.winbar_of)

return M
