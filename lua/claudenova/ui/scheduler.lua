-- The one place that decides when a surface (proposal, plan, question,
-- panel) may open and take the window. A surface that arrives on its own may
-- take focus only when the user is idle in normal mode: not typing (insert,
-- replace, visual, select, command line, terminal), not halfway through a
-- command (a count, an operator, a mapping, pending keys), not recording or
-- running a macro, not in a prompt, and not working in another claude-nova
-- surface or the sidebar. Otherwise it waits: its row is in the sidebar
-- already, the user is told it waits, and it opens at the next moment the
-- editor is idle (SafeState, ModeChanged, CursorHold). A surface the user
-- asks for (<CR> on a row, review, a command) opens at once.
local M = {}

---@type {id: string, open: fun()}[]
M.waiting = {}

local group = vim.api.nvim_create_augroup("ClaudeNovaScheduler", { clear = true })
local armed = false

--- Why a surface may not take focus now (nil when it may).
---@return string|nil
function M.busy()
  local m = vim.api.nvim_get_mode()
  if m.blocking then
    return "waiting for a key"
  end
  if m.mode ~= "n" then
    return "mode " .. m.mode
  end
  -- m: in a mapping or typeahead, o: operator pending, S: after a count or
  -- a partial command, a: insert completion.
  if vim.fn.state():find("[moSa]") then
    return "in a command"
  end
  if vim.fn.getchar(1) ~= 0 then
    return "keys pending"
  end
  if vim.fn.reg_recording() ~= "" or vim.fn.reg_executing() ~= "" then
    return "macro"
  end
  if vim.fn.getcmdwintype() ~= "" then
    return "command-line window"
  end
  local buf = vim.api.nvim_get_current_buf()
  if vim.b[buf].claudenova_surface then
    return "in a claude-nova surface"
  end
  return nil
end

local function disarm()
  if armed then
    vim.api.nvim_clear_autocmds({ group = group })
    armed = false
  end
end

local flush

local function arm()
  if armed then
    return
  end
  armed = true
  local events = { "ModeChanged", "CursorHold", "BufEnter", "WinEnter" }
  if vim.fn.exists("##SafeState") == 1 then
    table.insert(events, 1, "SafeState")
  end
  vim.api.nvim_create_autocmd(events, {
    group = group,
    desc = "claude-nova: open a waiting surface once the editor is idle",
    callback = function()
      vim.schedule(flush)
    end,
  })
end

--- Open the oldest waiting surface if the editor is idle. One at a time:
--- the surface takes focus, so the next waits until the user is done with it.
flush = function()
  if #M.waiting == 0 then
    disarm()
    return
  end
  if M.busy() then
    return
  end
  local item = table.remove(M.waiting, 1)
  if #M.waiting == 0 then
    disarm()
  end
  local ok, err = pcall(item.open)
  if not ok then
    require("claudenova.ui.notify").error(err)
  end
end

--- Open a surface now if the user asked for it or the editor is idle, else
--- queue it. Returns true when it opened now.
---@param id string request id
---@param open fun()
---@param asked boolean|nil the user asked for this surface
function M.show(id, open, asked)
  M.forget(id)
  if asked or not M.busy() then
    open()
    return true
  end
  table.insert(M.waiting, { id = id, open = open })
  arm()
  return false
end

--- Whether a request's surface is waiting.
function M.is_waiting(id)
  for _, w in ipairs(M.waiting) do
    if w.id == id then
      return true
    end
  end
  return false
end

--- Drop a waiting surface (its request was decided or withdrawn).
function M.forget(id)
  for i = #M.waiting, 1, -1 do
    if M.waiting[i].id == id then
      table.remove(M.waiting, i)
    end
  end
  if #M.waiting == 0 then
    disarm()
  end
end

--- Forget everything (the host was lost).
function M.reset()
  M.waiting = {}
  disarm()
end

return M
