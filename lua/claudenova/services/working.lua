-- Claude at work: while a turn runs and nothing new has reached the
-- transcript for a second, the transcript's last line says what is
-- happening and for how long ("✻ thinking · 12 s · <C-c> interrupts",
-- "✻ waiting for the API · retrying 2/10 · 4 s", "✻ running Bash · 8 s"),
-- once a second, gone as soon as text arrives; the sidebar's row says the
-- same in a word. This module keeps the quiet of each session and ticks;
-- the surfaces that show it subscribe (the transcript draws the line, the
-- sidebar its word): it requires no surface.
local config = require("claudenova.setup.config")
local state = require("claudenova.store.state")
local text = require("claudenova.core.text")

local M = {}

-- Quiet for this long before it shows.
M.QUIET_MS = 1000

M.last = {} ---@type table<integer, integer> session -> uv.now() of its transcript's last change
-- The transcripts' buffers (ui/transcript.lua hands its table over), read
-- for a call that runs.
M.buffers = {} ---@type table<integer, integer>
local subscribers, tick_subscribers = {}, {}
local timer

--- A session runs a turn and no surface waits (a session whose only work
--- is a background task has its task rows instead).
function M.running(sid)
  local s = state.sessions[sid]
  return s ~= nil and s.state == "running" and s.turn == true
end

--- Whether session sid has been quiet long enough for the line.
function M.quiet(sid)
  return M.running(sid) and M.last[sid] ~= nil and vim.uv.now() - M.last[sid] >= M.QUIET_MS
end

-- The tool a transcript's last call runs ("Bash"), when one runs.
local function running_tool(buf)
  local n = vim.api.nvim_buf_line_count(buf)
  for l = n, math.max(1, n - 3), -1 do
    local line = vim.api.nvim_buf_get_lines(buf, l - 1, l, false)[1] or ""
    local tool = line:match("^[│ ]*▸ (%S+) .* …$") or line:match("^[│ ]*▸ (%S+) .* … · .*running %d+ s$")
    if tool then
      return tool
    end
    if line ~= "" then
      return nil
    end
  end
end

--- What session sid is doing, in a few words (its transcript is read for a
--- call that runs).
function M.what(sid)
  local buf = M.buffers[sid]
  local s = state.sessions[sid]
  if s and s.activity and s.activity ~= "" then
    if s.activity:match("^retrying") then
      return "waiting for the API · " .. s.activity
    end
    return s.activity
  end
  local tool = buf and vim.api.nvim_buf_is_valid(buf) and running_tool(buf)
  if tool then
    return "running " .. tool
  end
  return "thinking"
end

--- The transcript's line for session sid (nil while it is not quiet).
function M.line(sid)
  if not M.quiet(sid) then
    return nil
  end
  local line = ("✻ %s · %d s"):format(M.what(sid), math.floor((vim.uv.now() - M.last[sid]) / 1000))
  local key = config.get().keymaps.transcript.interrupt
  if key then
    line = line .. (" · %s interrupts"):format(text.key(key))
  end
  return line
end

--- The sidebar's word for session sid: "thinking", "Bash", "retrying"
--- (nil while it is not quiet).
function M.word(sid)
  if not M.quiet(sid) then
    return nil
  end
  local what = M.what(sid)
  return what:match("^running (%S+)") or (what:match("^waiting for the API") and "retrying") or what:match("^(%S+)")
end

--- fn(sid) runs on every tick for each session, and when a session's quiet
--- ends.
function M.subscribe(fn)
  table.insert(subscribers, fn)
end

--- fn() runs once on every tick (a view of every session redraws).
function M.subscribe_tick(fn)
  table.insert(tick_subscribers, fn)
end

local function notify(sid)
  for _, fn in ipairs(subscribers) do
    fn(sid)
  end
end

local function tick()
  local any = false
  for sid in pairs(state.sessions) do
    notify(sid)
    any = any or M.running(sid)
  end
  for _, fn in ipairs(tick_subscribers) do
    fn()
  end
  if not any and timer then
    timer:stop()
  end
end

local function arm()
  timer = timer or vim.uv.new_timer()
  if not timer:is_active() then
    timer:start(M.QUIET_MS, 1000, vim.schedule_wrap(tick))
  end
end

--- Session sid's transcript changed: its line goes, its quiet starts again.
function M.changed(sid)
  local was = M.quiet(sid)
  M.last[sid] = vim.uv.now()
  if was then
    notify(sid)
  end
  if M.running(sid) then
    arm()
  end
end

--- Session sid's snapshot arrived: a turn that runs starts the quiet; one
--- that stopped loses its line.
function M.session(sid)
  if M.running(sid) then
    M.last[sid] = M.last[sid] or vim.uv.now()
    arm()
  elseif M.last[sid] then
    M.last[sid] = nil
    notify(sid)
  end
end

--- Whether the once-a-second tick runs (tests).
function M.active()
  return timer ~= nil and timer:is_active()
end

return M
