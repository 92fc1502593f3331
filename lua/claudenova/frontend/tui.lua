-- Claude's own terminal UI in a Neovim terminal. The host registers the
-- session (kind "tui") with our PermissionRequest hook and says how to run
-- it; this module runs it as a terminal job in a window where a transcript
-- would go, and tells the host when the job runs (its pid) and when it
-- exits. Every permission the TUI would ask is then a request of the
-- editor's, as for any other session.
local calls = require("claudenova.services.calls")
local errors = require("claudenova.core.errors")
local inbox = require("claudenova.frontend.inbox")

local M = {}

--- The terminal buffer of each TUI session of this editor.
M.bufs = {}

local function running(id)
  local buf = M.bufs[id]
  return buf and vim.api.nvim_buf_is_valid(buf) and vim.b[buf].claudenova_tui_running == true
end

--- The TUI session started last that still runs, if any.
function M.latest()
  local best
  for id in pairs(M.bufs) do
    if running(id) and (not best or id > best) then
      best = id
    end
  end
  return best
end

--- Show session id's terminal (in a split at the bottom when no window
--- shows it); opts.focus moves the cursor there. False when it has none.
function M.show(id, opts)
  local buf = M.bufs[id]
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return false
  end
  local from = vim.api.nvim_get_current_win()
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  end
  if (opts and opts.focus) or from == win then
    vim.api.nvim_set_current_win(win)
  elseif vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  return true
end

--- The running TUI session sid is, if it is one (the session in view, say).
function M.running(sid)
  return sid and running(sid) and sid or nil
end

-- How long a prompt typed into the TUI may take to show before its Enter
-- goes anyway (the Enter must come apart from the text: together they
-- are one paste).
local shown_wait = 2000

--- Type text into session id's input; submit sends Enter once the text
--- shows in the terminal (looked for on a timer: Neovim goes on meanwhile).
function M.type(id, text, submit)
  local buf = M.bufs[id]
  local job = vim.b[buf].terminal_job_id
  vim.fn.chansend(job, text)
  if not submit then
    return
  end
  local tail = vim.trim(text):sub(-12)
  local deadline = vim.uv.now() + shown_wait
  local function enter_once_shown()
    if not vim.api.nvim_buf_is_valid(buf) then
      return -- the TUI is gone
    end
    local shown = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find(tail, 1, true) ~= nil
    if shown or vim.uv.now() >= deadline then
      errors.try(vim.fn.chansend, job, "\r")
      return
    end
    vim.defer_fn(enter_once_shown, 20)
  end
  enter_once_shown()
end

--- Type an @path reference (with #Lfrom-to for lines) to a file into
--- session id's input, and a space after it; returns the reference.
function M.mention(id, path, from, to)
  local ctx = require("claudenova.services.context")
  local ref = ctx.ref(ctx.relative(path, ctx.cwd(id)), from, to)
  M.type(id, ref .. " ")
  return ref
end

-- A terminal job in the current buffer (jobstart's term option is 0.11's;
-- 0.10 has termopen).
local function start_job(argv, opts)
  if vim.fn.has("nvim-0.11") == 1 then
    opts.term = true
    return vim.fn.jobstart(argv, opts)
  end
  return vim.fn.termopen(argv, opts)
end

local function exited(id, code)
  -- The host may be gone (the editor closing): logged, not raised.
  errors.try(calls.notify, "tui_exited", { session = id, code = code })
end

--- Start claude's terminal UI: opts { cwd?, args?, prompt?, mode?, model?,
--- worktree? = true | "name" } (worktree: as new's, claude works in a git
--- worktree of its own).
--- Returns the session's id once claude runs; the cursor is in its terminal.
function M.open(opts)
  opts = opts or {}
  if opts.args ~= nil and type(opts.args) ~= "table" then
    error("claude-nova: tui({ args = … }) takes a list of strings", 0)
  end
  local params = {
    cwd = opts.cwd or vim.fn.getcwd(),
    args = opts.args,
    prompt = opts.prompt,
    mode = opts.mode,
    model = opts.model,
    worktree = opts.worktree,
  }
  require("claudenova.frontend.ops").worktree_opts("tui", params)
  local r = calls.request("tui", params)
  local id = r.session.id
  inbox.session_started(r.session)
  vim.cmd("botright split")
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_win_set_buf(0, buf)
  local env = {}
  for k, v in pairs(r.env or {}) do
    env[k] = tostring(v)
  end
  local ok, job = pcall(start_job, r.argv, {
    cwd = r.cwd,
    env = env,
    on_exit = function(_, code)
      if vim.api.nvim_buf_is_valid(buf) then
        vim.b[buf].claudenova_tui_running = false
      end
      exited(id, code)
    end,
  })
  if not ok or job <= 0 then
    exited(id, -1)
    error(
      ("claude-nova: could not run claude's terminal UI (%s): %s"):format(r.argv[1], ok and job or tostring(job)),
      0
    )
  end
  vim.b[buf].claudenova_session = id
  vim.b[buf].claudenova_tui = id
  vim.b[buf].claudenova_tui_running = true
  M.bufs[id] = buf
  -- Its tab and status line name the session, not the terminal's command
  -- line (term://…//pid:/path/to/claude).
  require("claudenova.setup.labels").set(buf, function()
    return "Claude's terminal UI · " .. require("claudenova.store.state").label(id)
  end)
  calls.request("tui_running", { session = id, pid = vim.fn.jobpid(job) })
  return id
end

return M
