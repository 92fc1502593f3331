-- The sidebar: every session, its pending requests and its background
-- tasks, as a tree in one split. Session rows fold and unfold what is
-- beneath them; exited sessions are dimmed and can be cleared; ages
-- refresh on a timer while it is visible.
local gesture = require("claudenova.core.gesture")
local state = require("claudenova.store.state")
local working = require("claudenova.services.working")
local text = require("claudenova.core.text")
local act = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local panel = require("claudenova.surfaces.panel")
local task_view = require("claudenova.surfaces.tasks")
local world = require("claudenova.services.world")
local draw = require("claudenova.core.render")

local M = {}

local NAME = "claudenova://sidebar"
local ns = vim.api.nvim_create_namespace("claudenova_sidebar")

M.buf = nil
M.rows = {} ---@type table<integer, string> line -> request id
M.session_rows = {} ---@type table<integer, integer> line -> session id
M.task_rows = {} ---@type table<integer, table> line -> task
M.world_rows = {} ---@type table<integer, table> line -> a row of claudenova.services.world (MCP server, other session…)

-- How long a task that ended stays listed.
local ENDED_SHOWN = 10
M.folded = {} ---@type table<integer, boolean> session id -> its requests hidden

local function cfg()
  return config.get()
end

local function win()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return nil
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == M.buf then
      return w
    end
  end
  return nil
end
M.win = win

local function cursor_line()
  local w = win()
  if not w or vim.api.nvim_get_current_win() ~= w then
    return nil
  end
  return vim.api.nvim_win_get_cursor(w)[1]
end

function M.id_under_cursor()
  local l = cursor_line()
  return l and M.rows[l]
end

--- The session of the row under the cursor (a session row or a request's).
function M.session_under_cursor()
  local l = cursor_line()
  if not l then
    return nil
  end
  if M.session_rows[l] then
    return M.session_rows[l]
  end
  if M.task_rows[l] then
    return M.task_rows[l].session
  end
  local r = M.rows[l] and state.requests[M.rows[l]]
  return r and r.session
end

local function guard(fn)
  return errors.guard(fn)
end

-- fn(session) for the session under the cursor (its row or a request's).
local function on_session(fn)
  return guard(function()
    local sid = M.session_under_cursor()
    if not sid then
      notify.info("no session on this line")
      return
    end
    fn(sid)
  end)
end

local function with_row(fn)
  return guard(function()
    local id = M.id_under_cursor()
    if not id then
      notify.info("no request on this line")
      return
    end
    fn(id)
  end)
end

local function decide(behavior)
  return with_row(function(id)
    local ok, why = act.decide(id, behavior, nil, "sidebar")
    if not ok and why then
      -- About this request: it leaves the message line when the request goes.
      notify.tagged(why, id)
    end
  end)
end

-- The requests on the rows of the visual selection.
local function selected_ids()
  local a, b = vim.fn.line("v"), vim.fn.line(".")
  if a > b then
    a, b = b, a
  end
  local ids = {}
  for lnum = a, b do
    if M.rows[lnum] then
      table.insert(ids, M.rows[lnum])
    end
  end
  return ids
end

-- A key in visual mode decides every selected request.
local function decide_selection(behavior)
  return guard(function()
    local ids = selected_ids()
    vim.cmd("normal! \27") -- leave visual mode
    if #ids == 0 then
      notify.info("no request in the selection")
      return
    end
    if behavior == "deny" then
      vim.ui.input({ prompt = ("Deny %d — message for Claude (optional): "):format(#ids) }, function(msg)
        if msg ~= nil then
          act.decide_many(ids, "deny", msg ~= "" and msg or nil)
        end
      end)
      return
    end
    act.decide_many(ids, behavior)
  end)
end

local function toggle_fold(sid)
  M.folded[sid] = not M.folded[sid]
  M.render()
end

local function clear()
  local l = cursor_line()
  local sid = l and M.session_rows[l]
  local s = sid and state.sessions[sid]
  local one = s and s.state == "exited"
  local n = calls.request("forget", { session = one and sid or 0 })
  if n == 0 then
    notify.info("no exited session to clear")
  elseif one then
    notify.info(("cleared %s"):format(s and s.name or ("session " .. sid)))
  else
    notify.info(("cleared %d exited session%s"):format(n, n == 1 and "" or "s"))
  end
end

--- The task on the line under the cursor.
function M.task_under_cursor()
  local l = cursor_line()
  return l and M.task_rows[l]
end

-- The short labels of the key hint at the top (g? lists every key with
-- its description: claudenova.services.keys).
local HINT = {
  { "present", "open" },
  { "allow", "allow" },
  { "allow_session", "session" },
  { "review", "review" },
  { "deny", "deny" },
  { "stop", "stop" },
}

--- g?: every key of the sidebar in a float (q or <Esc> closes it).
function M.help()
  keytable.help("sidebar")
end

-- Stop the session sid: at once when no turn runs, after a yes when one
-- does (its work and pending requests would go).
local function stop_session(sid)
  local s = state.sessions[sid]
  if not s or s.state == "exited" then
    notify.info(
      ("%s has already exited (%s clears it)"):format(state.label(sid), text.key(cfg().keymaps.sidebar.clear or "x"))
    )
    return
  end
  local function stop()
    local out = act.stop(sid)
    notify.info(out.message)
  end
  local busy = s.state == "running" or s.state == "waiting"
  if not busy then
    return stop()
  end
  if not s.turn and #state.for_session(sid) == 0 then
    -- Between turns, its background tasks work: it asks about them.
    return world.confirm_stop(sid, stop)
  end
  local n = #state.for_session(sid)
  local what = n > 0 and (" and withdraw its %d pending request%s"):format(n, n == 1 and "" or "s") or ""
  if (s.tasks or 0) > 0 then
    what = what
      .. (" (its %d background task%s go%s with it)"):format(
        s.tasks,
        s.tasks == 1 and "" or "s",
        s.tasks == 1 and "es" or ""
      )
  end
  vim.ui.select({ "Stop it", "Keep it running" }, {
    prompt = ("%s is %s: stop it%s?"):format(state.label(sid), s.state, what),
    kind = "claudenova.confirm",
  }, function(choice)
    if choice == "Stop it" then
      guard(stop)()
    end
  end)
end

local verbs_desc = { allow = "Allow", allow_session = "Allow for the session", deny = "Deny" }

local function set_keymaps(buf)
  local keys = cfg().keymaps.sidebar
  local actions = {
    present = {
      guard(function()
        local l = cursor_line()
        if l and M.session_rows[l] then
          toggle_fold(M.session_rows[l])
          return
        end
        if l and M.task_rows[l] then
          task_view.open(M.task_rows[l].id)
          return
        end
        if l and M.world_rows[l] then
          if M.world_rows[l].action then
            M.world_rows[l].action()
          else
            notify().info("nothing to open on this line")
          end
          return
        end
        local id = l and M.rows[l]
        if not id then
          notify.info("no request or session on this line")
          return
        end
        act.present(id)
      end),
      "Open the request's surface; on a session, fold or unfold it",
    },
    fold = {
      on_session(function(sid)
        toggle_fold(sid)
        -- Folding a session from one of its requests: stay on the session.
        for lnum, id in pairs(M.session_rows) do
          if id == sid then
            errors.try(vim.api.nvim_win_set_cursor, win(), { lnum, 0 })
          end
        end
      end),
      "Fold or unfold the session's requests",
    },
    transcript = {
      on_session(function(sid)
        act.open_transcript(sid, { focus = true })
      end),
      "Open the session's transcript",
    },
    clear = { guard(clear), "Clear an exited session (elsewhere: every exited one)" },
    allow = { decide("allow"), "Allow the request" },
    allow_session = { decide("allow_session"), "Allow for the session what the CLI suggests (or exactly this request)" },
    review = {
      with_row(function(id)
        local r = state.requests[id]
        if r and r.surface == "panel" then
          panel.open(r, { review = true, focus = true })
        else
          act.present(id)
        end
      end),
      "Review the full request",
    },
    deny = {
      with_row(function(id)
        act.deny_with_message(id, "sidebar")
      end),
      "Deny (optional message for Claude)",
    },
    deny_stop = { with_row(function(id)
      act.deny_stop(id, "sidebar")
    end), "Deny and end the turn" },
    always = {
      with_row(function(id)
        act.always(id)
      end),
      "Always…: allow or deny from now on, with a rule",
    },
    close = {
      function()
        M.close()
      end,
      "Close the sidebar",
    },
    stop = {
      guard(function()
        local t = M.task_under_cursor()
        if t then
          if t.status ~= "running" then
            notify.info(("the task has already %s"):format(t.status))
            return
          end
          task_view.stop(t.id)
          return
        end
        local l = cursor_line()
        local sid = l and M.session_rows[l]
        if not sid then
          notify.info("no task or session on this line (X on a session's row stops it)")
          return
        end
        stop_session(sid)
      end),
      "Stop the task or session under the cursor",
    },
  }
  -- deny_stop, the newest, gives way when you gave its key to another one.
  local names = vim.tbl_keys(actions)
  table.sort(names, function(a, b)
    local la, lb = a == "deny_stop", b == "deny_stop"
    if la ~= lb then
      return lb
    end
    return a < b
  end)
  local taken = {}
  for _, name in ipairs(names) do
    local act, lhs = actions[name], keys[name]
    if lhs and not taken[lhs] then
      taken[lhs] = true
      vim.keymap.set("n", lhs, gesture.wrap(act[1]), { buffer = buf, nowait = true, desc = "claude-nova: " .. act[2] })
    end
  end
  keytable.map(buf, "sidebar")
  -- Batch: the same keys on a visual selection of rows.
  for name, behavior in pairs({ allow = "allow", allow_session = "allow_session", deny = "deny" }) do
    local lhs = keys[name]
    if lhs then
      vim.keymap.set(
        "x",
        lhs,
        gesture.wrap(decide_selection(behavior)),
        { buffer = buf, nowait = true, desc = "claude-nova: " .. verbs_desc[behavior] .. " every selected request" }
      )
    end
  end
end

-- Ages stay true while the sidebar is shown: a timer re-renders it (every
-- second while a request is younger than a minute, else every 5 s) and
-- stops as soon as no window shows it.
local timer
local function stop_timer()
  if timer then
    timer:stop()
    timer:close()
    timer = nil
  end
end

local function next_tick()
  local young = false
  local now = os.time()
  for _, r in pairs(state.requests) do
    if now - math.floor((r.arrived or 0) / 1000) < 60 then
      young = true
      break
    end
  end
  for _, list in pairs(state.tasks) do
    for _, t in ipairs(list) do
      if t.status == "running" or now - (t.ended or 0) <= ENDED_SHOWN then
        young = true -- its age moves, or it leaves the list soon
      end
    end
  end
  return young and 1000 or 5000
end

-- Whether a window of any tab shows the sidebar.
local function shown()
  return M.buf and vim.api.nvim_buf_is_valid(M.buf) and #vim.fn.win_findbuf(M.buf) > 0
end

-- The tasks a session row lists: running ones, and those that ended a
-- moment ago (housekeeping tasks never).
local function shown_tasks(sid)
  local now = os.time()
  return vim.tbl_filter(function(t)
    return not t.ambient and (t.status == "running" or now - (t.ended or 0) <= ENDED_SHOWN)
  end, state.tasks[sid] or {})
end

local function arm_timer()
  if timer or not shown() then
    return
  end
  timer = vim.uv.new_timer()
  local function tick()
    if not shown() then
      stop_timer()
      return
    end
    M.render()
    if timer then
      timer:start(next_tick(), 0, vim.schedule_wrap(tick))
    end
  end
  timer:start(next_tick(), 0, vim.schedule_wrap(tick))
end

local function ensure_buf()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
    return M.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, NAME)
  labels.set(buf, "Claude Nova")
  vim.bo[buf].filetype = "claudenova-sidebar"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].undolevels = -1
  vim.bo[buf].modifiable = false
  vim.b[buf].claudenova_surface = "sidebar"
  set_keymaps(buf)
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = buf,
    desc = "claude-nova: refresh the sidebar's ages while it is shown",
    callback = function()
      vim.schedule(function()
        M.render()
        arm_timer()
        world.watch(shown)
      end)
    end,
  })
  local group = vim.api.nvim_create_augroup("ClaudeNovaSidebar", { clear = true })
  vim.api.nvim_create_autocmd("WinResized", {
    group = group,
    desc = "claude-nova: re-wrap the sidebar's key hint",
    callback = function()
      local w = win()
      if w and vim.tbl_contains(vim.v.event.windows or {}, w) then
        M.render()
      end
    end,
  })
  vim.api.nvim_create_autocmd("VimResized", {
    group = group,
    desc = "claude-nova: the sidebar's width follows the screen",
    callback = function()
      if M.buf and vim.api.nvim_buf_is_valid(M.buf) then
        for _, w in ipairs(vim.fn.win_findbuf(M.buf)) do
          errors.try(vim.api.nvim_win_set_width, w, M.width())
        end
        M.render()
      end
    end,
  })
  vim.api.nvim_create_autocmd("TabEnter", {
    group = group,
    desc = "claude-nova: keep the sidebar's ages true in every tab",
    callback = function()
      if win() then
        vim.schedule(function()
          M.render()
          arm_timer()
        end)
      end
    end,
  })
  M.buf = buf
  return buf
end

local function state_hl(s)
  return ({
    waiting = "ClaudeNovaStateWaiting",
    running = "ClaudeNovaStateRunning",
    starting = "ClaudeNovaStateRunning",
    ready = "ClaudeNovaStateIdle",
    idle = "ClaudeNovaStateIdle",
  })[s] or "ClaudeNovaStateExited"
end

-- The key hint, wrapped to the sidebar's width.
local hints_for = { width = nil, keys = nil, lines = nil }

local function hint_lines(width)
  local keys = cfg().keymaps.sidebar
  -- The same for the same width and keymaps: made once, not at every row
  -- a request adds.
  if hints_for.width == width and hints_for.keys == cfg().keymaps then
    return hints_for.lines
  end
  local items = {}
  for _, d in ipairs(HINT) do
    local lhs = keys[d[1]]
    if lhs then
      table.insert(items, text.key(lhs) .. " " .. d[2])
    end
  end
  if cfg().keymaps.help then
    table.insert(items, text.key(cfg().keymaps.help) .. " keys")
  end
  if keys.close then
    table.insert(items, text.key(keys.close) .. " close")
  end
  local lines, cur = {}, ""
  for _, item in ipairs(items) do
    local try = cur == "" and item or (cur .. "  " .. item)
    if cur ~= "" and text.width(try) > width then
      table.insert(lines, cur)
      cur = item
    else
      cur = try
    end
  end
  if cur ~= "" then
    table.insert(lines, cur)
  end
  hints_for = { width = width, keys = cfg().keymaps, lines = lines }
  return lines
end

--- Redraw the sidebar (cheap when it is not visible: only the lines that
--- changed are set).
-- What a quiet running session does changes every second.
working.subscribe_tick(function()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) and #vim.fn.win_findbuf(M.buf) > 0 then
    M.render()
  end
end)

--- The short words of states, for a narrow sidebar.
M.short = {
  starting = "start",
  ready = "ready",
  idle = "idle",
  running = "run",
  waiting = "wait",
  exited = "exit",
  completed = "done",
  stopped = "stop",
  failed = "fail",
  killed = "stop",
}

--- A session row's tail: " · waiting · 1 task" (short: " · wait · 1t").
function M.session_tail(s, st, pending, short)
  local tail = " · " .. st
  if pending > 0 and M.folded[s.id] then
    tail = tail .. (short and (" · %d!"):format(pending) or (" · %d pending"):format(pending))
  end
  local n = s.tasks or 0
  if n > 0 then
    tail = tail .. (short and (" · %dt"):format(n) or (" · %d task%s"):format(n, n == 1 and "" or "s"))
  end
  return tail
end

-- Folders as vim.fs.normalize gives them, remembered: every row of every
-- render asked again for the same few.
local normal_paths, normal_count = {}, 0
local function normalized(path)
  local n = normal_paths[path]
  if not n then
    if normal_count >= 256 then
      normal_paths, normal_count = {}, 0
    end
    n = vim.fs.normalize(path)
    normal_paths[path], normal_count = n, normal_count + 1
  end
  return n
end

--- The repository (or folder) a session belongs to: its worktree's
--- checkout, else its folder.
function M.group_of(s)
  local wt = type(s.worktree) == "table" and s.worktree or nil
  if wt and wt.root and wt.root ~= "" then
    return normalized(wt.root)
  end
  return normalized(s.cwd or "")
end

--- The sessions in the order the sidebar lists them: a repository's
--- together (repositories in the order their first session started), and
--- when there are several, a heading before each one's first session
--- ({ order = { sid … }, heading = { [sid] = "~/src/app" } }).
function M.groups()
  local ids = state.session_ids()
  local keys, members = {}, {}
  for _, sid in ipairs(ids) do
    local k = M.group_of(state.sessions[sid])
    if not members[k] then
      members[k] = {}
      table.insert(keys, k)
    end
    table.insert(members[k], sid)
  end
  local out = { order = {}, heading = {} }
  for _, k in ipairs(keys) do
    if #keys > 1 then
      out.heading[members[k][1]] = k == "" and "(no folder)" or vim.fn.fnamemodify(k, ":~")
    end
    vim.list_extend(out.order, members[k])
  end
  return out
end

--- The line beneath a session's row: that it is claude's terminal UI, its
--- mode when it is not default (the transcript's winbar always has it) and
--- where it works when that is not the editor's folder: a worktree by its
--- branch and what it changed ("acceptEdits · ⎇ worktree-feat · 2 files +9
--- −1"), another folder by its path ("⌂ ~/src/wt"); "" when there is
--- nothing to say.
function M.session_more(s, short)
  local parts = {}
  if s.kind == "tui" then
    table.insert(parts, "claude's terminal UI")
  end
  if s.mode and s.mode ~= "" and s.mode ~= "default" then
    table.insert(parts, s.mode)
  end
  local wt = type(s.worktree) == "table" and s.worktree or nil
  if wt and wt.branch and wt.branch ~= "" then
    table.insert(parts, M.worktree_line(wt, short))
    return table.concat(parts, " · ")
  end
  local where = M.folder_of(s)
  if where then
    table.insert(parts, (wt and "⎇ " or "⌂ ") .. where)
  end
  return table.concat(parts, " · ")
end

--- A worktree for a person: its branch and what it changed since it
--- started ("⎇ worktree-fix-login · 3 files +40 −12"; short, for a narrow
--- sidebar: "⎇ worktree-fix-login +40 −12"), or that it is gone.
function M.worktree_line(wt, short)
  local line = "⎇ " .. wt.branch
  if wt.gone then
    return line .. (short and " · gone" or " · its folder is gone")
  end
  local files = wt.files or 0
  if files > 0 and short then
    line = line .. (" +%d −%d"):format(wt.added or 0, wt.removed or 0)
  elseif files > 0 then
    line = line .. (" · %d file%s +%d −%d"):format(files, files == 1 and "" or "s", wt.added or 0, wt.removed or 0)
  end
  return line
end

--- The folder a session works in, as the editor's folder sees it, when it
--- is not that folder: "../wt", "~/src/other" (nil when it is).
function M.folder_of(s)
  if not s.cwd or s.cwd == "" then
    return nil
  end
  local here = normalized(vim.fn.getcwd())
  local there = normalized(s.cwd)
  if there == here then
    return nil
  end
  return text.shown_path(there, here)
end

function M.render()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return
  end
  local w = win()
  local keep_id, keep_session, keep_task
  if w then
    local l = vim.api.nvim_win_get_cursor(w)[1]
    keep_id, keep_session, keep_task = M.rows[l], M.session_rows[l], M.task_rows[l] and M.task_rows[l].id
  end
  local width = w and vim.api.nvim_win_get_width(w) or M.width()
  local lines, hls, rows, srows, trows, wrows = {}, {}, {}, {}, {}, {}
  local function add(line, marks)
    table.insert(lines, line)
    for _, m in ipairs(marks or {}) do
      table.insert(hls, { #lines - 1, m[1], m[2], m[3] })
    end
  end
  -- A line wider than the sidebar ends in "…" (never cut without a mark).
  local room = math.max(10, width - 1)
  -- (By characters: a cut inside one left half a "·" or "…" on screen.)
  local cut = text.cut
  local pending = #state.order()
  local title = ("Claude Nova · %d pending"):format(pending)
  if text.width(title) > room then
    title = ("Nova · %d pending"):format(pending) -- the count, never cut
  end
  add(cut(title, room), { { 0, -1, "ClaudeNovaTitle" } })
  for _, l in ipairs(hint_lines(math.max(10, width - 1))) do
    add(l, { { 0, -1, "ClaudeNovaKey" } })
  end
  local groups = M.groups()
  for _, sid in ipairs(groups.order) do
    local s = state.sessions[sid]
    local reqs = state.for_session(sid)
    local tasks = shown_tasks(sid)
    local extra = world.rows(sid)
    add("")
    local heading = groups.heading[sid]
    if heading then
      -- Sessions of several repositories: each repository's under its name.
      add(cut("▤ " .. heading, room), { { 0, -1, "ClaudeNovaGroup" } })
    end
    local glyph = "  "
    if #reqs > 0 or #tasks > 0 or #extra > 0 then
      glyph = M.folded[sid] and "▸ " or "▾ "
    end
    local st = s.state or ""
    -- A running session quiet for a second says what it does, in a word.
    local busy = working.word(sid)
    if busy then
      st = busy
    end
    local label = state.label(sid)
    -- Names before states: when the full tail would cut the name short,
    -- the states take their short words (M.short), and the name keeps
    -- what is left.
    local tail, st_word
    for _, level in ipairs({ "full", "short", "state", "name" }) do
      st_word = level == "full" and st or (M.short[st] or st)
      if level == "name" then
        -- Not even the state fits beside the whole name: the name alone
        -- (its state shows in its colour, and in a wider sidebar).
        tail = ""
      elseif level == "state" then
        tail = " · " .. st_word -- the rest waits for a wider sidebar
      else
        tail = M.session_tail(s, st_word, #reqs, level == "short") .. world.session_tail(sid, level == "short")
      end
      if text.width(glyph .. label .. tail) <= room then
        break
      end
    end
    -- An attempt's number stays when its name is cut ("3 · fix-th… #2").
    local head = glyph .. text.cut_keeping(label, math.max(12, room - text.width(glyph .. tail)), " #%d+$")
    local line = cut(head .. tail, room)
    if s.state == "exited" then
      add(line, { { 0, -1, "ClaudeNovaSessionExited" } })
    elseif tail == "" then
      add(line, { { #glyph, #head, state_hl(s.state or "") } })
    else
      add(line, {
        { #glyph, #head, "ClaudeNovaSession" },
        { #head + #" · ", #head + #" · " + #st_word, state_hl(s.state or "") },
      })
    end
    srows[#lines] = sid
    -- Beneath it, when they say something: its mode (other than default)
    -- and where it works (a worktree, a folder other than the editor's).
    local more = M.session_more(s)
    if text.width(more) > room - 4 then
      more = M.session_more(s, true) -- the branch before its counts
    end
    if more ~= "" then
      add(cut("    " .. more, room), { { 4, -1, "ClaudeNovaAge" } })
      srows[#lines] = sid
    end
    if not M.folded[sid] then
      for _, r in ipairs(reqs) do
        local stat = ""
        if r.file_change and (r.added > 0 or r.removed > 0) then
          stat = (" +%d -%d"):format(r.added, r.removed)
        end
        local target = r.target ~= "" and (" " .. r.target) or ""
        local agent = state.agent_label(r)
        local who = agent and (agent .. " › ") or ""
        local prefix = "    " .. who .. r.tool
        local age = text.age(r.arrived)
        -- The target gives way (…) so that the counts and the age stay.
        local left = room - text.width(prefix .. stat .. "  " .. age)
        if text.width(target) > left then
          target = left >= 2 and cut(target, left) or ""
          if target == "" then
            prefix = cut(prefix, math.max(2, room - text.width(stat .. "  " .. age)))
          end
        end
        local row = prefix .. target .. stat .. "  " .. age
        local marks = {
          { 4 + #who, #prefix, "ClaudeNovaTool" },
          { #prefix, #prefix + #target, "ClaudeNovaTarget" },
        }
        if who ~= "" then
          table.insert(marks, { 4, 4 + #who, "ClaudeNovaSession" })
        end
        if stat ~= "" then
          local p = #prefix + #target
          local plus = (" +%d"):format(r.added)
          table.insert(marks, { p, p + #plus, "ClaudeNovaAdded" })
          table.insert(marks, { p + #plus, p + #stat, "ClaudeNovaRemoved" })
        end
        table.insert(marks, { #row - #age, #row, "ClaudeNovaAge" })
        add(row, marks)
        rows[#lines] = r.id
      end
      for _, t in ipairs(tasks) do
        local what = t.description ~= "" and t.description or t.id
        local prefix = "    " .. t.type .. " "
        local rest = (" · %s %s"):format(t.status, state.task_age(t))
        if t.status == "running" and t.last_tool and t.last_tool ~= "" then
          rest = rest .. " · " .. t.last_tool
        end
        -- Names before states here too: the type, the age, then the
        -- state's word give way before the name is cut.
        local word = M.short[t.status] or t.status
        for _, try in ipairs({
          { prefix, (" · %s %s"):format(word, state.task_age(t)) },
          { "    ", (" · %s %s"):format(word, state.task_age(t)) },
          { "    ", " · " .. word },
          { "    ", "" },
        }) do
          if text.width(prefix .. what .. rest) <= room then
            break
          end
          prefix, rest = try[1], try[2]
        end
        what = cut(what, math.max(4, room - text.width(prefix .. rest)))
        local row = cut(prefix .. what .. rest, room)
        add(row, {
          { 4, #prefix - 1, "ClaudeNovaTool" },
          { #prefix, #prefix + #what, "ClaudeNovaTarget" },
          { #prefix + #what, #row, t.status == "running" and "ClaudeNovaStateRunning" or "ClaudeNovaAge" },
        })
        trows[#lines] = t
      end
      for _, w in ipairs(extra) do
        add(cut("    " .. w.text, room), { { 4, -1, w.hl } })
        wrows[#lines] = w
      end
    end
  end
  local others = world.section()
  if #others > 0 then
    add("")
  end
  for _, w in ipairs(others) do
    add(cut(w.text, room), { { 0, -1, w.hl } })
    if w.action then
      wrows[#lines] = w
    end
  end
  -- Only the lines that changed: a tick that moves an age rewrites one line.
  draw.lines(M.buf, ns, lines, hls, { changed_only = true })
  M.rows, M.session_rows, M.task_rows, M.world_rows = rows, srows, trows, wrows
  if w then
    -- Keep the cursor on the same request (task, session) across re-renders.
    for lnum, id in pairs(rows) do
      if keep_id and id == keep_id then
        errors.try(vim.api.nvim_win_set_cursor, w, { lnum, 0 })
        return
      end
    end
    for lnum, t in pairs(trows) do
      if keep_task and t.id == keep_task then
        errors.try(vim.api.nvim_win_set_cursor, w, { lnum, 0 })
        return
      end
    end
    for lnum, sid in pairs(srows) do
      if keep_session and sid == keep_session then
        errors.try(vim.api.nvim_win_set_cursor, w, { lnum, 0 })
        return
      end
    end
    local cur = vim.api.nvim_win_get_cursor(w)
    if cur[1] > #lines then
      vim.api.nvim_win_set_cursor(w, { #lines, 0 })
    end
  end
end

--- The sidebar's width on this screen (sidebar.width: a fraction of the
--- columns between min_width and max_width, or a number of columns).
function M.width()
  local c = cfg().sidebar
  if c.width >= 1 then
    return math.floor(c.width)
  end
  local w = math.floor(vim.o.columns * c.width + 0.5)
  w = math.max(c.min_width, math.min(c.max_width, w))
  -- Never the whole screen: the user's window keeps at least half, and on a
  -- narrow screen (under 90 columns) about two thirds: 21 of 60 columns,
  -- 28 of 80 (the sidebar keeps names and shortens states).
  local cap = vim.o.columns < 90 and math.max(20, math.floor(vim.o.columns * 0.35)) or math.floor(vim.o.columns / 2)
  return math.max(12, math.min(w, cap))
end

function M.open()
  local buf = ensure_buf()
  if win() then
    return
  end
  local c = cfg().sidebar
  local cur = vim.api.nvim_get_current_win()
  vim.cmd((c.position == "left" and "topleft" or "botright") .. " vertical " .. M.width() .. "split")
  local w = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(w, buf)
  labels.apply(w)
  vim.wo[w].winfixwidth = true
  vim.wo[w].number = false
  vim.wo[w].relativenumber = false
  vim.wo[w].signcolumn = "no"
  vim.wo[w].wrap = false
  vim.wo[w].cursorline = true
  M.render()
  arm_timer()
  world.watch(shown)
  -- Put the cursor on the first request, if any.
  local first
  for lnum in pairs(M.rows) do
    first = first and math.min(first, lnum) or lnum
  end
  if first then
    vim.api.nvim_win_set_cursor(w, { first, 0 })
  end
  if vim.api.nvim_win_is_valid(cur) and cur ~= w then
    -- The user asked for it: focus the sidebar.
    vim.api.nvim_set_current_win(w)
  end
end

--- Close the sidebar's window. As the last window of a tab it closes the
--- tab; as the very last window it shows another buffer instead (never an
--- empty tab left behind).
function M.close()
  local w = win()
  if not w then
    return
  end
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.api.nvim_win_close(w, true)
  elseif #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd("tabclose")
  else
    local alt = vim.fn.bufnr("#")
    if alt > 0 and alt ~= M.buf and vim.api.nvim_buf_is_valid(alt) and vim.bo[alt].buflisted then
      vim.api.nvim_win_set_buf(w, alt)
    else
      vim.cmd("enew")
    end
  end
end

function M.toggle()
  if win() then
    M.close()
  else
    M.open()
  end
end

--- Whether the age timer runs (for tests).
function M.timer_running()
  return timer ~= nil
end

return M
