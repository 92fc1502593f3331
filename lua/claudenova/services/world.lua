-- The session's world as the sidebar shows it: what claude reports about a
-- session besides the conversation (the host's world.World, sent as
-- "world" events): MCP servers that are not connected ("docs · failed"),
-- plugins that did not load, the hooks running outside any call, the
-- wake-ups and cron jobs Claude scheduled (until they fired), its
-- checklist and the worktree it works in. Also the other Claude sessions
-- of this machine (the host runs `claude agents --json` while the sidebar
-- is shown: "agents" events), which <CR> attaches to in a terminal.
--
-- The sidebar asks this module for the rows under a session and for its
-- own section; nothing here draws the sidebar.
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local store = require("claudenova.store.state")
local text = require("claudenova.core.text")

local M = {}

M.worlds = {} ---@type table<integer, table> session id -> its WorldView
M.others = nil ---@type table|nil the last AgentsView

-- Who hears of a session's world changing (a view of it that is open: the
-- MCP view registers itself when it loads).
local listeners = {} ---@type fun(session: integer)[]

--- Call fn(session) whenever a session's world changes.
function M.on_change(fn)
  table.insert(listeners, fn)
end

local function cfg()
  return config.get()
end

--- A session's world changed (the host's "world" event).
function M.update(v)
  M.worlds[v.session] = v
  for _, fn in ipairs(listeners) do
    fn(v.session)
  end
end

--- The other sessions of the machine (the host's "agents" event).
function M.agents(v)
  M.others = v
end

--- The host is gone: so is everything it reported.
function M.reset()
  M.worlds, M.others = {}, nil
end

local STATUS = {
  failed = "failed",
  ["needs-auth"] = "needs sign-in",
  pending = "connecting",
  disabled = "disabled",
}

--- How a server's status reads.
function M.status_text(m)
  return STATUS[m.status] or m.status or "?"
end

-- "21:05" today, "Tue 21:05" this week, else "Dec 24 21:05", to the
-- nearest minute (as the host's transcript lines say it).
local function when(ms)
  local at = math.floor(((ms or 0) / 1000 + 30) / 60) * 60
  local now = text.time()
  if os.date("%Y%j", at) == os.date("%Y%j", now) then
    return os.date("%H:%M", at)
  elseif at > now and at - now < 6 * 86400 then
    return os.date("%a %H:%M", at)
  end
  return os.date("%b %d %H:%M", at)
end
M.when = when

--- The schedules still to fire: a one-shot whose time passed has fired.
function M.schedules(sid)
  local w = M.worlds[sid]
  local now = os.time() * 1000
  return vim.tbl_filter(function(s)
    return s.recurring or not s.at or s.at == 0 or s.at > now
  end, w and w.schedules or {})
end

--- One line for a schedule: "wakes 21:05 · wait for CI", "cron next 21:08
--- · every 5 minutes · check the build".
function M.schedule_line(s)
  local now = text.time() * 1000
  if s.kind == "wakeup" then
    return ("wakes %s · %s"):format(s.at and s.at > 0 and when(s.at) or "later", s.what or "")
  end
  if not s.recurring then
    return ("cron once %s · %s"):format(s.at and s.at > 0 and when(s.at) or "later", s.what or "")
  end
  local parts = { "cron" }
  if s.at and s.at > now then
    table.insert(parts, "next " .. when(s.at))
  end
  local head = table.concat(parts, " ")
  local human = s.human and s.human ~= "" and s.human:sub(1, 1):lower() .. s.human:sub(2) or s.cron
  return ("%s · %s · %s"):format(head, human or "", s.what or "")
end

local MAX_TODOS = 8

--- One line for a checklist item.
function M.todo_line(t)
  if t.status == "completed" then
    return "☑ " .. t.text
  elseif t.status == "in_progress" then
    return "◐ " .. ((t.active and t.active ~= "") and t.active or t.text)
  end
  return "☐ " .. t.text
end

--- What the session line says besides its state: a hook running outside
--- any call (the sidebar says where a session works on the line beneath).
function M.session_tail(sid, short)
  local out = ""
  local w = M.worlds[sid]
  local h = w and w.hooks and w.hooks[#w.hooks]
  if h then
    local secs = math.max(0, os.time() - math.floor((h.started or 0) / 1000))
    if short then
      out = out .. (" · hook %ds"):format(secs)
    else
      out = out .. (" · %s hook %ds"):format(h.event ~= "" and h.event or h.name, secs)
    end
  end
  return out
end

--- The rows under a session: { text, hl, action? } each (action is what
--- <CR> does on it).
function M.rows(sid)
  local rows = {}
  local w = M.worlds[sid]
  if not w then
    return rows
  end
  for _, m in ipairs(w.mcp or {}) do
    if m.status ~= "connected" and m.source ~= "sdk" and m.status ~= "disabled" then
      table.insert(rows, {
        text = ("MCP %s · %s"):format(m.name, M.status_text(m)),
        hl = "ClaudeNovaMCPFailed",
        action = function()
          actions.mcp(sid)
        end,
      })
    end
  end
  for _, e in ipairs(w.errors or {}) do
    table.insert(rows, {
      text = ("%s %s · failed to load"):format(
        e.kind == "plugin" and "plugin" or "MCP",
        e.name ~= "" and e.name or "?"
      ),
      hl = "ClaudeNovaMCPFailed",
      action = function()
        actions.mcp(sid)
      end,
    })
  end
  for _, s in ipairs(M.schedules(sid)) do
    table.insert(rows, { text = M.schedule_line(s), hl = "ClaudeNovaSchedule" })
  end
  local todos = w.todos or {}
  for i, t in ipairs(todos) do
    if i > MAX_TODOS then
      table.insert(rows, { text = ("… %d more items"):format(#todos - MAX_TODOS), hl = "ClaudeNovaAge" })
      break
    end
    table.insert(
      rows,
      { text = M.todo_line(t), hl = t.status == "completed" and "ClaudeNovaTodoDone" or "ClaudeNovaTodo" }
    )
  end
  return rows
end

--- Whether the sidebar lists the other sessions.
function M.listing()
  return cfg().agents.list
end

--- The sidebar's section of the other sessions: a heading and a row
--- each; {} when there is nothing to list (or agents.list is false).
function M.section()
  if not M.listing() or not M.others then
    return {}
  end
  local v = M.others
  local rows = {}
  if v.error and v.error ~= "" then
    return {
      { text = "Other Claude sessions", hl = "ClaudeNovaTitle" },
      { text = "  " .. v.error, hl = "ClaudeNovaReason" },
    }
  end
  if #(v.sessions or {}) == 0 then
    return rows
  end
  table.insert(rows, { text = ("Other Claude sessions · %d"):format(#v.sessions), hl = "ClaudeNovaTitle" })
  for _, o in ipairs(v.sessions) do
    local name = (o.name and o.name ~= "") and o.name or (o.id ~= "" and o.id or tostring(o.pid))
    local state = o.blocked and "waits for you" or (o.state ~= "" and o.state or o.status or "")
    table.insert(rows, {
      text = ("  %s %s · %s · %s"):format(o.blocked and "●" or "○", name, o.shown or o.cwd or "", state),
      hl = o.blocked and "ClaudeNovaBlocked" or "ClaudeNovaOther",
      action = function()
        M.attach(o)
      end,
      other = o,
    })
  end
  return rows
end

--- Open an other session: `claude attach <id>` in a terminal split (a
--- background session); an interactive one has its own terminal.
function M.attach(o)
  if not o.attach or #o.attach == 0 then
    notify.info(
      ("%s runs in its own terminal (pid %d): only background sessions can be attached"):format(
        (o.name and o.name ~= "") and o.name or "this session",
        o.pid or 0
      )
    )
    return
  end
  vim.cmd("botright split")
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_win_set_buf(0, buf)
  local env = vim.tbl_extend("force", {}, cfg().env or {})
  local opts = { env = next(env) and env or nil }
  local ok, err
  if vim.fn.has("nvim-0.11") == 1 then
    opts.term = true
    ok, err = pcall(vim.fn.jobstart, o.attach, opts)
  else
    ok, err = pcall(vim.fn.termopen, o.attach, opts)
  end
  if not ok or (type(err) == "number" and err <= 0) then
    notify.error(("could not run %s: %s"):format(table.concat(o.attach, " "), tostring(err)))
    return
  end
  vim.b[buf].claudenova_surface = "attach"
  labels.set(buf, "Claude · " .. ((o.name and o.name ~= "") and o.name or o.id))
  labels.apply(vim.api.nvim_get_current_win())
  vim.cmd("startinsert")
  return buf
end

-- The refresh of the other sessions: while the sidebar is shown, every
-- agents.refresh_ms, the host runs claude agents --json (a notification:
-- the editor never waits for it).
local timer
local function stop_timer()
  if timer then
    timer:stop()
    timer:close()
    timer = nil
  end
end

local function refresh(shown)
  if not shown() or not M.listing() then
    stop_timer()
    return
  end
  if calls.running() then
    errors.try(calls.notify, "agents_refresh", {})
  end
end

--- The sidebar is shown: keep the other sessions fresh while it is
--- (shown() says whether it still is). Idempotent.
function M.watch(shown)
  if not M.listing() then
    M.others = nil
    stop_timer()
    return
  end
  if timer then
    return
  end
  refresh(shown)
  timer = vim.uv.new_timer()
  local every = math.max(1000, cfg().agents.refresh_ms)
  timer:start(
    every,
    every,
    vim.schedule_wrap(function()
      refresh(shown)
    end)
  )
end

--- Whether the other sessions are being refreshed (for tests).
function M.watching()
  return timer ~= nil
end

--- Before stopping session sid: when its background tasks still run, ask
--- (they would go with it); then stop().
function M.confirm_stop(sid, stop)
  local st = store
  local running = vim.tbl_filter(function(t)
    return t.status == "running" and not t.ambient
  end, st.tasks[sid] or {})
  if #running == 0 then
    return stop()
  end
  local names = {}
  for i, t in ipairs(running) do
    if i > 3 then
      table.insert(names, "…")
      break
    end
    table.insert(names, t.description ~= "" and t.description or t.id)
  end
  vim.ui.select({ "Stop it and its tasks", "Keep it running" }, {
    prompt = ("%s has %d background task%s running (%s): stop it?"):format(
      st.label(sid),
      #running,
      #running == 1 and "" or "s",
      table.concat(names, ", ")
    ),
    kind = "claudenova.confirm",
  }, function(choice)
    if choice == "Stop it and its tasks" then
      errors.guard(stop)()
    end
  end)
end

--- The MCP servers of a session as the Lua API gives them.
function M.servers(sid)
  local w = M.worlds[sid]
  return vim.deepcopy(w and w.mcp or {})
end

--- A short line for a server: "docs · failed · project · stdio · 0 tools".
function M.server_line(m)
  local parts = { m.name, M.status_text(m) }
  if m.source == "sdk" then
    table.insert(parts, "the editor's own")
  elseif m.scope and m.scope ~= "" then
    table.insert(parts, m.scope)
  end
  if m.transport and m.transport ~= "" then
    table.insert(parts, m.transport)
  end
  table.insert(parts, ("%d tool%s"):format(m.tools or 0, (m.tools or 0) == 1 and "" or "s"))
  return table.concat(parts, " · ")
end

return M
