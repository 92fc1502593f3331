-- A signal when a request waits while you are away: it arrives while
-- Neovim has no focus (FocusLost: another window, another tmux pane) or no
-- UI is attached (a detached --remote-ui, a headless server). Once per
-- request: a terminal notification (OSC 777 and OSC 9, wrapped for tmux's
-- passthrough), the bell, and an optional command (notify_away). Nothing
-- while you are looking. The front end tells it of each request as it
-- arrives and is decided (added, decided), once setup() ran.
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local notify = require("claudenova.setup.notify")

local M = {}

local focused = true
local signaled = {} ---@type table<string, true>
local started = false

-- What was signaled, newest last (for :checkhealth and tests).
M.signals = {} ---@type {id: string, why: string, msg: string, terminal: string, bell: boolean, command: boolean}[]

local function cfg()
  return config.get().notify_away
end

--- Whether the user is away, and why.
---@return boolean, string|nil
function M.away()
  if #vim.api.nvim_list_uis() == 0 then
    return true, "no UI is attached"
  end
  if not focused then
    return true, "Neovim has no focus"
  end
  return false, nil
end

--- Whether the terminal the signal reaches is tmux (here, or the UI's).
function M.in_tmux()
  if vim.env.TMUX and vim.env.TMUX ~= "" then
    return true
  end
  for _, ui in ipairs(vim.api.nvim_list_uis()) do
    local t = ui.term_name or ""
    if t:match("^tmux") or t:match("^screen") then
      return true
    end
  end
  return false
end

--- The notification's escape sequences: OSC 777 (title, body) and OSC 9
--- (body), each ended by ST; inside tmux one DCS passthrough holds both.
function M.sequences(msg, tmux)
  local seq = "\027]777;notify;claude-nova;" .. msg .. "\027\\" .. "\027]9;claude-nova: " .. msg .. "\027\\"
  if tmux then
    seq = "\027Ptmux;" .. seq:gsub("\027", "\027\027") .. "\027\\"
  end
  return seq
end

--- Where raw bytes for the terminal go from here: "ui_send" (Neovim 0.12:
--- every attached terminal UI, a --remote-ui client too), "stderr" (older
--- Neovim whose terminal is on stderr), or nil.
function M.route()
  if vim.api.nvim_ui_send then
    return #vim.api.nvim_list_uis() > 0 and "ui_send" or nil
  end
  if vim.uv.guess_handle(2) == "tty" then
    return "stderr"
  end
  return nil
end

local function write(seq)
  local r = M.route()
  if r == "ui_send" then
    vim.api.nvim_ui_send(seq)
  elseif r == "stderr" then
    vim.api.nvim_chan_send(2, seq)
  end
  return r
end

-- The bell. Without a route for raw bytes (a --remote-ui client of Neovim
-- 0.10), the UIs' own bell event, rung by a beep whatever 'belloff' says.
local function bell()
  if write("\007") then
    return true
  end
  if #vim.api.nvim_list_uis() == 0 or vim.api.nvim_get_mode().mode ~= "n" then
    return false
  end
  local saved = vim.o.belloff
  vim.o.belloff = ""
  errors.try(vim.cmd, "normal! \027")
  vim.o.belloff = saved
  return true
end

local function message(r)
  local tool = tostring(r.tool or "a request")
  local what = (type(r.target) == "string" and r.target ~= "") and (tool .. " " .. r.target) or tool
  local who = (type(r.session_name) == "string" and r.session_name ~= "") and r.session_name
    or ("session " .. tostring(r.session))
  -- No control characters: one would end the sequence early.
  local msg = (("%s waits for you (%s)"):format(what, who):gsub("[%c\127]", " "))
  if vim.fn.strchars(msg) > 200 then
    msg = vim.fn.strcharpart(msg, 0, 199) .. "…"
  end
  return msg
end

--- A request arrived (the request, as in User ClaudeNovaRequestAdded).
function M.added(r)
  if not started or type(r) ~= "table" or not r.id or signaled[r.id] then
    return
  end
  local away, why = M.away()
  if not away then
    return
  end
  signaled[r.id] = true
  local c, msg = cfg(), message(r)
  local rec = { id = r.id, why = why, msg = msg, terminal = "", bell = false, command = false }
  if c.terminal then
    rec.terminal = write(M.sequences(msg, M.in_tmux())) or ""
  end
  if c.bell then
    rec.bell = bell()
  end
  if c.command then
    local argv = vim.list_extend(vim.deepcopy(c.command), { "claude-nova: " .. msg })
    local ok, err = pcall(vim.system, argv, { text = true }, function() end)
    rec.command = ok
    if not ok then
      notify.warn(("notify_away.command %s failed: %s"):format(c.command[1], tostring(err)))
    end
  end
  table.insert(M.signals, rec)
  if #M.signals > 50 then
    table.remove(M.signals, 1)
  end
end

--- Start listening (idempotent): setup() and the first command call it.
function M.setup()
  if started then
    return
  end
  started = true
  local group = vim.api.nvim_create_augroup("ClaudeNovaAway", { clear = true })
  vim.api.nvim_create_autocmd("FocusLost", {
    group = group,
    desc = "claude-nova: you are away (a request that arrives now is signaled)",
    callback = function()
      focused = false
    end,
  })
  vim.api.nvim_create_autocmd("FocusGained", {
    group = group,
    desc = "claude-nova: you are back",
    callback = function()
      focused = true
    end,
  })
end

--- A request was decided or withdrawn: its signal is forgotten.
function M.decided(id)
  signaled[id] = nil
end

--- For :checkhealth: where a signal goes from this Neovim.
function M.describe()
  local c = cfg()
  local parts = {}
  if c.terminal then
    local r = M.route()
    table.insert(
      parts,
      "terminal notification (OSC 777, OSC 9"
        .. (M.in_tmux() and ", wrapped for tmux" or "")
        .. ") "
        .. (
          r == "ui_send" and "to every attached terminal UI"
          or r == "stderr" and "to the terminal on stderr"
          or "nowhere from here (no terminal UI attached, or a --remote-ui client of Neovim 0.10, which gets the bell)"
        )
    )
  end
  if c.bell then
    table.insert(parts, "the bell")
  end
  if c.command then
    table.insert(parts, "command " .. table.concat(c.command, " ") .. " {message}")
  end
  if #parts == 0 then
    return nil
  end
  return table.concat(parts, "; ")
end

return M
