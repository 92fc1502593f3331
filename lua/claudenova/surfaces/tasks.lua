-- Background tasks (subagents, shells claude runs in the background): a
-- buffer per task that shows the end of its output and follows it while
-- it is visible (claudenova://task/<id>), a picker, stop.
local state = require("claudenova.store.state")
local draw = require("claudenova.core.render")
local notify = require("claudenova.setup.notify")
local actions = require("claudenova.store.actions")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local textutil = require("claudenova.core.text")

local M = {}

M.bufs = {} ---@type table<string, integer> task id -> its output buffer

-- How often a visible output buffer of a running task asks for more.
local FOLLOW_MS = 1000

local function cfg()
  return config.get()
end

local timers = {} ---@type table<string, uv.uv_timer_t>
local inflight = {} ---@type table<string, boolean>
-- How often the output was read after the task ended: twice, the second
-- a moment later (claude says a task ended before its last lines are in
-- the output it reports: "tick 5" and "[exited with code 0]" were missing).
local final = {} ---@type table<string, integer>
local FINAL_READS = 2

local function stop_timer(id)
  local t = timers[id]
  if t then
    timers[id] = nil
    t:stop()
    t:close()
  end
end

-- Shown in a window of any tab: the output follows also while you are in
-- another tab, so that it is whole when you come back.
local function visible(buf)
  return buf and vim.api.nvim_buf_is_valid(buf) and #vim.fn.win_findbuf(buf) > 0
end

-- Put the output in the buffer; windows at its end stay there.
local function show(id, text)
  local buf = M.bufs[id]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    return
  end
  local lines = textutil.lines(text ~= "" and text or "(no output yet)")
  local before = vim.api.nvim_buf_line_count(buf)
  local at_end = {}
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    at_end[w] = vim.api.nvim_win_get_cursor(w)[1] >= before
  end
  draw.lines(buf, nil, lines)
  for w, yes in pairs(at_end) do
    if yes and vim.api.nvim_win_is_valid(w) then
      errors.try(vim.api.nvim_win_set_cursor, w, { #lines, 0 })
    end
  end
end

-- Ask the host for the task's output (the answer comes later).
local function fetch(id)
  if inflight[id] then
    return
  end
  local t = state.task(id)
  if t and t.status ~= "running" then
    if (final[id] or 0) >= FINAL_READS then
      return
    end
    final[id] = (final[id] or 0) + 1
  end
  inflight[id] = true
  local ok, err = pcall(calls.request, "task_output", { id = id }, function(fine, res)
    inflight[id] = nil
    if fine then
      show(id, res or "")
    else
      show(id, "(its output could not be read: " .. tostring(res) .. ")")
    end
  end)
  if not ok then
    inflight[id] = nil
    show(id, "(" .. errors.message(err):gsub("^claude%-nova: ", "") .. ")")
  end
end

-- Follow the output while a window shows it and the task runs.
local function follow(id)
  if timers[id] then
    return
  end
  local timer = vim.uv.new_timer()
  timers[id] = timer
  timer:start(
    FOLLOW_MS,
    FOLLOW_MS,
    vim.schedule_wrap(function()
      local t = state.task(id)
      if not visible(M.bufs[id]) or not t or (t.status ~= "running" and (final[id] or 0) >= FINAL_READS) then
        stop_timer(id)
        if t and t.status ~= "running" and visible(M.bufs[id]) then
          fetch(id)
        end
        return
      end
      fetch(id)
    end)
  )
end

--- The winbar of the task output window being drawn.
function M.winbar_of()
  local win, buf = textutil.drawn()
  local id = buf and vim.b[buf].claudenova_task
  local t = id and state.task(id)
  if not t then
    return ""
  end
  local keys = cfg().keymaps.task_output
  local key = textutil.key
  local parts = { state.task_line(t), state.label(t.session) }
  if t.status == "running" and keys.stop then
    table.insert(parts, key(keys.stop) .. " stop")
  end
  if keys.close then
    table.insert(parts, key(keys.close) .. " close")
  end
  if cfg().keymaps.help then
    table.insert(parts, key(cfg().keymaps.help) .. " keys")
  end
  return "%#ClaudeNovaWinbar#" .. textutil.fit(parts, vim.api.nvim_win_get_width(win))
end

--- Refresh the winbars of output windows (a task's state changed).
function M.changed()
  for id, buf in pairs(M.bufs) do
    if visible(buf) then
      for _, w in ipairs(vim.fn.win_findbuf(buf)) do
        vim.wo[w].winbar = "%!v:lua.require'claudenova.core.text'.winbar('tasks')"
      end
      local t = state.task(id)
      if t and t.status ~= "running" and (final[id] or 0) == 0 then
        vim.schedule(function()
          fetch(id)
        end)
      end
    end
  end
end

local function ensure_buf(id)
  local buf = M.bufs[id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  errors.try(vim.api.nvim_buf_set_name, buf, "claudenova://task/" .. id)
  labels.set(buf, function()
    local t = state.task(id)
    return "Task · " .. ((t and t.description and t.description ~= "") and t.description or id)
  end)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "claudenova-task"
  vim.b[buf].claudenova_task = id
  local keys = cfg().keymaps.task_output
  local guard = errors.guard
  keytable.map(buf, "task_output")
  if keys.stop then
    vim.keymap.set(
      "n",
      keys.stop,
      guard(function()
        M.stop(id)
      end),
      { buffer = buf, nowait = true, desc = "claude-nova: Stop this task" }
    )
  end
  if keys.close then
    vim.keymap.set("n", keys.close, function()
      if #vim.api.nvim_tabpage_list_wins(0) > 1 then
        vim.cmd("close")
      else
        vim.cmd("enew")
      end
    end, { buffer = buf, nowait = true, desc = "claude-nova: Close the task output" })
  end
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = buf,
    desc = "claude-nova: follow a task's output while it is shown",
    callback = function()
      vim.wo.winbar = "%!v:lua.require'claudenova.core.text'.winbar('tasks')"
      fetch(id)
      follow(id)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    desc = "claude-nova: forget a task's output buffer",
    callback = function()
      stop_timer(id)
      M.bufs[id], final[id] = nil, nil
    end,
  })
  M.bufs[id] = buf
  return buf
end

--- Open a task's output in a split (its window if one shows it already).
function M.open(id)
  local t = state.task(id)
  if not t then
    notify.info("no task " .. tostring(id))
    return
  end
  local buf = ensure_buf(id)
  local w = vim.fn.bufwinid(buf)
  if w ~= -1 then
    vim.api.nvim_set_current_win(w)
    return
  end
  require("claudenova.core.split").open(buf, 12)
  labels.apply(vim.api.nvim_get_current_win())
  vim.wo.wrap = false
  vim.wo.number = false
  vim.wo.relativenumber = false
  vim.wo.winbar = "%!v:lua.require'claudenova.core.text'.winbar('tasks')"
end

--- Stop a running task; says what happened.
function M.stop(id)
  local t = state.task(id)
  local ok, why = actions.stop_task(id)
  local what = t and (t.type .. " " .. (t.description ~= "" and t.description or t.id)) or tostring(id)
  if ok then
    notify.info("stopped " .. what)
  else
    notify.warn(("could not stop %s: %s"):format(what, why or "no answer"))
  end
end

--- Pick a task (running ones first) and open its output, or with
--- action "stop", pick a running one and stop it.
function M.pick(action)
  local items = state.all_tasks()
  if action == "stop" then
    items = vim.tbl_filter(function(t)
      return t.status == "running"
    end, items)
  end
  if #items == 0 then
    notify.info(action == "stop" and "no task is running" or "no background tasks")
    return
  end
  vim.ui.select(items, {
    prompt = action == "stop" and "Stop which task?" or "Background tasks",
    format_item = function(t)
      return ("%s · %s"):format(state.label(t.session), state.task_line(t))
    end,
  }, function(t)
    if not t then
      return
    end
    errors.guard(function()
      if action == "stop" then
        M.stop(t.id)
      else
        M.open(t.id)
      end
    end)()
  end)
end

--- The host died: no task can be followed any more.
function M.host_lost()
  for id in pairs(timers) do
    stop_timer(id)
  end
  inflight, final = {}, {}
end

textutil.register_winbar("tasks", M.winbar_of)

return M
