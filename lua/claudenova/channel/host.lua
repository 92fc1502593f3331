-- The Go remote host: finding and checking the binary, registering it with
-- Neovim's remote plugin machinery (lazily, at first use), and calling it.
--
-- The host is the one writer of the stream the front end reads: its events
-- arrive numbered (ui.inbox applies them in that order) and the reply of a
-- synchronous call names its place in that stream (a mark): request()
-- returns once every event before it has been applied, so the caller acts
-- on a reply in the order things happened. This module knows nothing of the
-- front end: it reports a lost host through M.on_lost.
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local notify = require("claudenova.setup.notify")
local version = require("claudenova.core.version")
local install = require("claudenova.setup.install")
local paths = require("claudenova.core.paths")
local register_mod = require("claudenova.setup.register")
local text = require("claudenova.core.text")

local M = {}

--- Called (scheduled) with the exit code when the host dies unexpectedly
--- (set by the front end).
---@type fun(code: integer)|nil
M.on_lost = nil

--- True while the front end applies a batch of the host's events (a call
--- from the host): a synchronous call back would break Neovim's call order.
M.in_apply = false

-- Calls waiting for their reply in the stream: token -> { reply?, apply? }.
local calls, next_call = {}, 0

-- A channel given by a test in place of the host ({ request(method,
-- payload, token) -> json, notify(method, payload) }): everything above the
-- channel then runs against it (the front end's unit tests).
local transport = nil

--- Talk to t instead of a host (nil: the real host again). A new "host":
--- its stream starts from 1.
function M.use_transport(t)
  transport = t
  calls = {}
  M.channel = t and -1 or nil
  M.epoch = M.epoch + 1
end

-- Messages cut to one line, and bars that failed to draw, are kept whole in
-- the host's log.
notify.log = function(level, msg)
  if M.channel then
    M.notify("log", { level = level, msg = msg })
  end
end
text.on_draw_error = function(msg)
  notify.log("error", msg)
end

--- A reply in the stream ({token, reply}): the call gets it, and its
--- apply (see request) runs now, in the stream's order.
function M.reply_seen(data)
  local c = calls[data.token]
  if not c then
    return
  end
  c.reply = data.reply or {}
  if c.apply and c.reply.ok then
    local ok, err = pcall(c.apply, c.reply.result)
    if not ok then
      notify.error(err)
    end
  end
end

local NAME = "claudenova"

M.root = paths.root
M.bin = paths.bin
M.stamp_path = paths.stamp_path
M.stamp = paths.stamp
M.revision = paths.revision

local checked = false
local registered = false

--- Why the host cannot be used, or nil when it can, from what can be seen
--- without running it (the binary is there; a build of the plugin's was made
--- from the checkout's revision). The second value says whether a build would
--- mend it ("missing", "outdated"). Its version is checked once it runs
--- (see ensure): no process is started here.
---@return string|nil, string|nil
function M.problem()
  if checked then
    return nil
  end
  local bin = M.bin()
  if vim.fn.executable(bin) ~= 1 then
    return ("claude-nova: host binary bin/claudenova is missing: %s"):format(M.build_hint()), "missing"
  end
  -- Built by the plugin from another revision (the checkout was updated).
  local st, rev = M.stamp(), M.revision()
  if st and st.revision and rev and st.revision ~= rev then
    return ("claude-nova: host binary bin/claudenova was built from %s, the plugin is at %s: %s"):format(
      st.revision:sub(1, 12),
      rev:sub(1, 12),
      M.build_hint()
    ),
      "outdated"
  end
  return nil
end

function M.build_hint()
  return (":ClaudeNova build builds it (or run `make` in %s)"):format(M.root())
end

--- The version problem of a host that answers got: nil when it is ours.
local function version_problem(got)
  got = vim.trim(tostring(got or ""))
  if got == version then
    return nil
  end
  return ("claude-nova: host binary bin/claudenova is version %s, the plugin %s: %s"):format(
    got ~= "" and got or "unknown",
    version,
    M.build_hint()
  )
end

--- For :checkhealth (which may wait): the problem of the binary, its version
--- included, by running it.
function M.check_now()
  local problem, kind = M.problem()
  if problem then
    return problem, kind
  end
  local res = vim.system({ M.bin(), "-version" }, { text = true }):wait(5000)
  local p
  if res.code == 0 then
    p = version_problem(res.stdout)
  else
    p = version_problem("")
  end
  return p, p and "outdated" or nil
end

local function log_path()
  return vim.fn.stdpath("log") .. "/claudenova.log"
end
M.log_path = log_path

local function rebootstrap()
  register_mod.reset()
end

M.channel = nil
M.exiting = false
-- Counts the hosts started; the front end drops what it cached from a host
-- that died (its sessions, transcripts and requests mean nothing to the next).
M.epoch = 0

--- The factory remote#host#Require calls: start the binary with rpc.
function M.factory(_)
  local cfg = config.get()
  local chan = vim.fn.jobstart({ M.bin() }, {
    rpc = true,
    env = {
      CLAUDENOVA_LOG = log_path(),
      CLAUDENOVA_LOG_LEVEL = cfg.log_level,
    },
    on_exit = function(_, code)
      M.channel = nil
      vim.schedule(function()
        rebootstrap()
        calls = {}
        if not M.exiting and M.on_lost then
          M.on_lost(code)
        end
      end)
    end,
  })
  if chan <= 0 then
    error(("claude-nova: could not start %s"):format(M.bin()), 0)
  end
  M.channel = chan
  M.epoch = M.epoch + 1
  return chan
end

local function register()
  if registered then
    return
  end
  registered = true
  register_mod.register(M.factory)
end

local function decode(s)
  if s == nil or s == "" or s == vim.NIL then
    return nil
  end
  return vim.json.decode(s, { luanil = { object = true, array = true } })
end

local ensure
function ensure()
  local problem, kind = M.problem()
  if problem and kind then
    -- A synchronous caller (the Lua API) waits for the build; commands
    -- build in the background first (see ready).
    local built = M.build_and_wait()
    problem = not built and problem or M.problem()
  end
  if problem then
    error(problem, 0)
  end
  register()
  local fresh = M.channel == nil
  local chan = register_mod.require()
  if fresh and chan > 0 then
    M.channel = chan
    -- Its version, asked of it (a call of the host, not another process).
    local ok, raw = pcall(vim.fn.ClaudeNovaRequest, "version", "{}")
    local reply = ok and decode(raw) or {}
    local vp = version_problem(reply.result)
    if vp then
      M.exiting = true
      pcall(vim.fn.jobstop, chan)
      M.channel = nil
      M.exiting = false
      checked = false
      -- An old build (make, go build): built again where Go is, once.
      if not M.rebuilt and vim.fn.executable("go") == 1 then
        M.rebuilt = true
        if M.build_and_wait() then
          return ensure()
        end
      end
      error(vp, 0)
    end
    checked = true
    vim.api.nvim_create_autocmd("VimLeavePre", {
      group = vim.api.nvim_create_augroup("ClaudeNovaHost", { clear = true }),
      desc = "claude-nova: deny pending requests and stop claude before exit",
      callback = function()
        M.exiting = true
        if M.channel then
          pcall(vim.fn.ClaudeNovaRequest, "shutdown", "{}")
        end
      end,
    })
    vim.fn.ClaudeNovaRequest("configure", vim.json.encode(config.host_options()))
  end
  return chan
end

--- Call a host method and return its decoded result. Errors are raised as
--- clean messages ("claude-nova: …"): the host answers {ok, result, error}
--- and never raises through RPC, whose wrappers differ across versions.
--- The reply comes in the host's event stream, after every event the call
--- caused: apply(result), when given, runs at that point of the stream (a
--- reply that changes what the front end knows, like a new session's
--- snapshot, must not overtake nor lag the events around it).
---@param method string
---@param args table|nil
---@param apply fun(result: any)|nil
function M.request(method, args, apply)
  if M.in_apply then
    -- Inside a UI event we are answering a call from the host: a nested
    -- synchronous call back would break Neovim's call ordering.
    error("claude-nova: internal error: synchronous host call (" .. method .. ") from inside a UI event", 2)
  end
  local payload = vim.json.encode(args or vim.empty_dict())
  next_call = next_call + 1
  local token = "c" .. next_call
  local call = { apply = apply }
  calls[token] = call
  local ok, raw
  if transport then
    ok, raw = pcall(transport.request, method, payload, token)
  else
    ensure()
    ok, raw = pcall(vim.fn.ClaudeNovaRequest, method, payload, token)
  end
  if not ok then
    calls[token] = nil
    error(
      "claude-nova: the host did not answer "
        .. method
        .. " ("
        .. errors.message(raw):gsub("^claude%-nova: ", "")
        .. "); see :ClaudeNova log",
      0
    )
  end
  local reply = decode(raw) or {}
  if reply.queued then
    -- The reply is an event of the stream: it comes after every event the
    -- call caused (they are on their way) and is applied in that order.
    if not call.reply then
      vim.wait(M.reply_timeout, function()
        return call.reply ~= nil or not M.channel
      end, 1)
    end
    reply = call.reply or { error = "the host's reply to " .. method .. " did not come (see :ClaudeNova log)" }
  elseif apply and reply.ok then
    apply(reply.result)
  end
  calls[token] = nil
  if not reply.ok then
    error("claude-nova: " .. tostring(reply.error or "the host gave no answer"), 0)
  end
  return reply.result
end

--- How long (ms) a call waits for its reply in the stream.
M.reply_timeout = 10000

--- Fire-and-forget call; errors come back as notifications.
function M.notify(method, args)
  if transport then
    return transport.notify(method, vim.json.encode(args or vim.empty_dict()))
  end
  ensure()
  vim.fn.ClaudeNovaNotify(method, vim.json.encode(args or vim.empty_dict()))
end

local waiting = {} ---@type table<string, fun(ok: boolean, res: any)>
local next_token = 0

--- Call a host method whose answer waits on claude (a dry run, a rewind):
--- the call returns at once and cb(ok, result_or_error) runs, scheduled,
--- when the host sends the reply. Errors found before the work starts are
--- raised like request's.
function M.later(method, args, cb)
  next_token = next_token + 1
  local token = tostring(next_token)
  waiting[token] = cb
  local ok, err = pcall(M.request, method, vim.tbl_extend("force", args or {}, { token = token }))
  if not ok then
    waiting[token] = nil
    error(err, 0)
  end
end

--- The reply event of a later call.
function M.resolve(data)
  local cb = waiting[data.token]
  waiting[data.token] = nil
  if cb then
    vim.schedule(function()
      cb(data.ok, data.ok and data.result or data.error)
    end)
  end
end

--- The host went away: every later call fails.
function M.fail_waiting(why)
  local cbs = waiting
  waiting = {}
  for _, cb in pairs(cbs) do
    vim.schedule(function()
      cb(false, why)
    end)
  end
end

--- Run start(cb) and wait until it calls cb(ok, res): Neovim keeps drawing
--- and serving the host meanwhile (vim.wait). Returns true, ok, res, or
--- false when timeout ms passed first.
function M.wait(start, timeout)
  local done, ok, res = false, false, nil
  start(function(o, r)
    done, ok, res = true, o, r
  end)
  if not vim.wait(timeout, function()
    return done
  end, 10) then
    return false
  end
  return true, ok, res
end

--- A later call, waiting for its answer (for the Lua API); after timeout
--- ms an error says claude did not answer.
function M.await(method, args, timeout)
  local answered, ok, res = M.wait(function(cb)
    M.later(method, args, cb)
  end, timeout or 10000)
  if not answered then
    error("claude-nova: claude did not answer in time (" .. method .. ")", 0)
  end
  if not ok then
    error("claude-nova: " .. tostring(res), 0)
  end
  return res
end

--- Whether the host is running (no start).
function M.running()
  return M.channel ~= nil
end

-- A build resets what was checked of the binary.
install.on_built = function()
  checked = false
end

--- Build and wait for it (Neovim keeps drawing). Returns whether it built.
function M.build_and_wait()
  local done, ok = false, false
  install.obtain({
    why = "first use",
    on_done = function(o)
      done, ok = true, o
    end,
  })
  vim.wait(300000, function()
    return done
  end, 50)
  return ok
end

--- Run fn once the host binary is usable: at once when it is, else after a
--- background build (the first command after an install or an update).
--- When it cannot be built, the user is told what is missing.
function M.ready(fn)
  local problem, kind = M.problem()
  if not problem then
    return fn()
  end
  if not kind then
    notify.error(problem)
    return
  end
  install.obtain({
    why = kind == "missing" and "first use" or "the plugin was updated",
    on_done = function(ok)
      if ok then
        fn()
      end
    end,
  })
end

return M
