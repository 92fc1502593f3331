-- The Go remote host: finding and checking the binary, registering it with
-- Neovim's remote plugin machinery (lazily, at first use), and calling it.
--
-- The host is the one writer of the stream the front end reads: its events
-- arrive numbered (ui.inbox applies them in that order) and the reply of a
-- synchronous call names its place in that stream (a mark): request()
-- returns once every event before it has been applied, so the caller acts
-- on a reply in the order things happened. This module knows nothing of the
-- front end: it reports a lost host to whom when_lost names.
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local notify = require("claudenova.setup.notify")
local version = require("claudenova.core.version")
local install = require("claudenova.setup.install")
local paths = require("claudenova.core.paths")
local register_mod = require("claudenova.setup.register")
local gesture = require("claudenova.core.gesture")

local M = {}

-- Called (scheduled) with the exit code when the host dies unexpectedly
-- (the front end says who: when_lost).
local on_lost = nil ---@type fun(code: integer)|nil

--- Let fn hear (scheduled, with the exit code) that the host died
--- unexpectedly: the front end drops what it cached of it.
---@param fn fun(code: integer)
function M.when_lost(fn)
  on_lost = fn
end

--- True while the front end applies a batch of the host's events (a call
--- from the host): a synchronous call back would break Neovim's call order.
M.in_apply = false

-- Calls waiting for their reply in the stream: token -> fun(reply).
local calls, next_call = {}, 0

-- A channel given by a test in place of the host ({ request(method,
-- payload, token) -> json, notify(method, payload) }): everything above the
-- channel then runs against it (the front end's unit tests).
local transport = nil

--- Talk to t instead of a host (nil: the real host again). A new "host":
--- its stream starts from 1.
function M.use_transport(t)
  transport = t
  M.fail_calls("the host changed")
  M.channel = t and -1 or nil
  M.epoch = M.epoch + 1
  errors.log() -- what the front end logged while no host ran
end

-- The front end's log (messages cut to one line, bars that failed to
-- draw, errors let go) is kept whole in the host's log, once a host runs.
errors.log_to(function(level, msg)
  if not M.channel then
    return false
  end
  M.notify("log", { level = level, msg = msg })
  return true
end)

--- A reply in the stream (a mark: {token, reply}): its call gets it, at
--- this point of the stream's order.
function M.reply_seen(data)
  local done = calls[data.token]
  if not done then
    return
  end
  calls[data.token] = nil
  done(data.reply or {})
end

--- The host went away (or was replaced): every call still waiting for its
--- reply fails with why.
function M.fail_calls(why)
  local waiting = calls
  calls = {}
  for _, done in pairs(waiting) do
    done({ ok = false, error = why })
  end
end

local NAME = "claudenova"

M.root = paths.root
M.bin = paths.bin
M.stamp_path = paths.stamp_path
M.stamp = paths.stamp
M.revision = paths.revision

-- The number of builds (install.builds) when the binary was last checked:
-- a build since means it is checked again.
local checked = nil
local registered = false

--- Why the host cannot be used, or nil when it can, from what can be seen
--- without running it (the binary is there; a build of the plugin's was made
--- from the checkout's revision). The second value says whether a build would
--- mend it ("missing", "outdated"). Its version is checked once it runs
--- (see ensure): no process is started here.
---@return string|nil, string|nil
function M.problem()
  if checked == install.builds then
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
        M.fail_calls("the host stopped before it answered")
        if not M.exiting and on_lost then
          on_lost(code)
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
      errors.try(vim.fn.jobstop, chan)
      M.channel = nil
      M.exiting = false
      checked = nil
      -- An old build (make, go build): built again where Go is, once.
      if not M.rebuilt and vim.fn.executable("go") == 1 then
        M.rebuilt = true
        if M.build_and_wait() then
          return ensure()
        end
      end
      error(vp, 0)
    end
    checked = install.builds
    vim.api.nvim_create_autocmd("VimLeavePre", {
      group = vim.api.nvim_create_augroup("ClaudeNovaHost", { clear = true }),
      desc = "claude-nova: deny pending requests and stop claude before exit",
      callback = function()
        M.exiting = true
        if M.channel then
          errors.try(vim.fn.ClaudeNovaRequest, "shutdown", "{}")
        end
      end,
    })
    vim.fn.ClaudeNovaRequest("configure", vim.json.encode(config.host_options()))
    errors.log() -- what the front end logged before a host ran
  end
  return chan
end

--- Call a host method: one of the two kinds of call (the other is
--- notify). The host answers every call at once (a short round trip: no
--- call waits there for claude) and puts the reply in its event stream,
--- after every event the call caused: a call that waits on claude (usage,
--- checkpoints, a task's output) is replied to when claude answered. So
--- the caller acts on a reply in the order things happened.
---
--- With on_reply, request returns at once and on_reply(ok, result or
--- error) runs when the reply is applied, at its place in the stream (a
--- transcript's snapshot must not overtake nor lag the ops around it): it
--- runs inside the host's call, so it never awaits another call (schedule
--- what would, or what opens a picker). Without it, request
--- returns the result, or raises the error as a clean message
--- ("claude-nova: …"): a gesture (a key of a surface, see core.gesture)
--- yields until then, so Neovim keeps serving keys; anything else (a
--- command, the Lua API) waits, at most M.reply_timeout ms.
---@param method string
---@param args table|nil
---@param on_reply fun(ok: boolean, res: any)|nil
function M.request(method, args, on_reply)
  if M.in_apply and not on_reply then
    -- Inside a UI event we are answering a call from the host: waiting
    -- there would hold the stream (and break Neovim's call order).
    error("claude-nova: internal error: awaited host call (" .. method .. ") from inside a UI event", 2)
  end
  local payload = vim.json.encode(args or vim.empty_dict())
  next_call = next_call + 1
  local token = "c" .. next_call
  local reply
  local co = not on_reply and gesture.current() or nil
  local yielded = false -- the gesture waits for this reply
  calls[token] = function(r)
    reply = r
    if on_reply then
      local ok, err = pcall(on_reply, r.ok == true, r.ok and r.result or r.error)
      if not ok then
        notify.error(err)
      end
    elseif yielded then
      yielded = false
      vim.schedule(function()
        gesture.resume(co)
      end)
    end
  end
  local ok, raw
  if transport then
    ok, raw = pcall(transport.request, method, payload, token)
  else
    local eok, eerr = pcall(ensure)
    if not eok then
      calls[token] = nil
      error(eerr, 0)
    end
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
  local direct = decode(raw) or {}
  if not direct.queued then
    -- Answered in the call (a test's channel, the first calls of a host).
    local done = calls[token]
    if done then
      calls[token] = nil
      done(direct)
    end
  end
  if on_reply then
    return nil
  end
  if not reply and co then
    -- The gesture waits, the editor does not; bounded like the wait below.
    yielded = true
    local timer = vim.defer_fn(function()
      if yielded then
        yielded = false
        calls[token] = nil
        gesture.resume(co)
      end
    end, M.reply_timeout)
    coroutine.yield()
    if not timer:is_closing() then
      timer:close() -- the reply came first
    end
  elseif not reply then
    vim.wait(M.reply_timeout, function()
      return reply ~= nil or not M.channel
    end, 1)
  end
  if not reply then
    calls[token] = nil
    reply = { error = "the host did not reply to " .. method .. "; see :ClaudeNova log" }
  end
  if not reply.ok then
    error("claude-nova: " .. tostring(reply.error or "the host gave no answer"), 0)
  end
  return reply.result
end

--- How long (ms) a call outside a gesture waits for its reply.
M.reply_timeout = 15000

--- Fire-and-forget call; errors come back as notifications.
function M.notify(method, args)
  if transport then
    return transport.notify(method, vim.json.encode(args or vim.empty_dict()))
  end
  ensure()
  vim.fn.ClaudeNovaNotify(method, vim.json.encode(args or vim.empty_dict()))
end

--- Whether the host is running (no start).
function M.running()
  return M.channel ~= nil
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
