-- The Go remote host: finding and checking the binary, registering it with
-- Neovim's remote plugin machinery (lazily, at first use), and calling it.
local M = {}

local NAME = "claudenova"

---@return string root folder of the plugin (where bin/ and rplugin/ live)
function M.root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

function M.bin()
  return M.root() .. "/bin/claudenova"
end

local checked = false
local registered = false

--- Where a build made by the plugin records how it was made (JSON: the
--- plugin's revision, when, why).
function M.stamp_path()
  return M.root() .. "/bin/claudenova.stamp"
end

--- The stamp of the last build the plugin made (nil when it made none).
function M.stamp()
  local ok, lines = pcall(vim.fn.readfile, M.stamp_path())
  if not ok or #lines == 0 then
    return nil
  end
  local dok, s = pcall(vim.json.decode, table.concat(lines, "\n"))
  return dok and type(s) == "table" and s or nil
end

--- The plugin checkout's git revision (nil when it is not a git checkout),
--- read from .git without running git.
function M.revision()
  local git = M.root() .. "/.git"
  local function read(p)
    local ok, l = pcall(vim.fn.readfile, p, "", 1)
    return ok and l[1] and vim.trim(l[1]) or nil
  end
  local head = read(git .. "/HEAD")
  if not head then
    return nil
  end
  local ref = head:match("^ref: (.+)$")
  if not ref then
    return head
  end
  local rev = read(git .. "/" .. ref)
  if rev then
    return rev
  end
  local ok, packed = pcall(vim.fn.readfile, git .. "/packed-refs")
  for _, l in ipairs(ok and packed or {}) do
    local sha, name = l:match("^(%x+) (.+)$")
    if name == ref then
      return sha
    end
  end
  return nil
end

--- Why the host cannot be used, or nil when it can. The second value says
--- whether a build would mend it ("missing", "outdated").
---@return string|nil, string|nil
function M.problem()
  if checked then
    return nil
  end
  local bin = M.bin()
  local build_hint = (":ClaudeNova build builds it (or run `make` in %s)"):format(M.root())
  if vim.fn.executable(bin) ~= 1 then
    return ("claude-nova: host binary bin/claudenova is missing: %s"):format(build_hint), "missing"
  end
  local want = require("claudenova.version")
  local res = vim.system({ bin, "-version" }, { text = true }):wait(5000)
  local got = vim.trim(res.stdout or "")
  if res.code ~= 0 or got ~= want then
    return ("claude-nova: host binary bin/claudenova is version %s, the plugin %s: %s"):format(
      got ~= "" and got or "unknown",
      want,
      build_hint
    ), "outdated"
  end
  -- Built by the plugin from another revision (the checkout was updated).
  local st, rev = M.stamp(), M.revision()
  if st and st.revision and rev and st.revision ~= rev then
    return ("claude-nova: host binary bin/claudenova was built from %s, the plugin is at %s: %s"):format(
      st.revision:sub(1, 12), rev:sub(1, 12), build_hint), "outdated"
  end
  checked = true
  return nil
end

local function log_path()
  return vim.fn.stdpath("log") .. "/claudenova.log"
end
M.log_path = log_path

local function rebootstrap()
  require("claudenova.register").reset()
end

M.channel = nil
M.exiting = false
-- Counts the hosts started; the front end drops what it cached from a host
-- that died (its sessions, transcripts and requests mean nothing to the next).
M.epoch = 0

--- The factory remote#host#Require calls: start the binary with rpc.
function M.factory(_)
  local cfg = require("claudenova.config").get()
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
        if not M.exiting then
          require("claudenova.ui").host_lost(code)
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
  require("claudenova.register").register(M.factory)
end

local function ensure()
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
  local chan = require("claudenova.register").require()
  if fresh and chan > 0 then
    M.channel = chan
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
    vim.fn.ClaudeNovaRequest("configure", vim.json.encode(require("claudenova.config").host_options()))
  end
  return chan
end

local function decode(s)
  if s == nil or s == "" or s == vim.NIL then
    return nil
  end
  return vim.json.decode(s, { luanil = { object = true, array = true } })
end

--- Call a host method and return its decoded result. Errors are raised as
--- clean messages ("claude-nova: …"): the host answers {ok, result, error}
--- and never raises through RPC, whose wrappers differ across versions.
---@param method string
---@param args table|nil
function M.request(method, args)
  local inbox = package.loaded["claudenova.ui.inbox"]
  if inbox and inbox.in_apply then
    -- Inside a UI event we are answering a call from the host: a nested
    -- synchronous call back would break Neovim's call ordering.
    error("claude-nova: internal error: synchronous host call (" .. method .. ") from inside a UI event", 2)
  end
  ensure()
  local payload = vim.json.encode(args or vim.empty_dict())
  local ok, raw = pcall(vim.fn.ClaudeNovaRequest, method, payload)
  if not ok then
    error("claude-nova: the host did not answer " .. method .. " (" .. require("claudenova.errors").message(raw):gsub("^claude%-nova: ", "") .. "); see :ClaudeNova log", 0)
  end
  local reply = decode(raw) or {}
  if not reply.ok then
    error("claude-nova: " .. tostring(reply.error or "the host gave no answer"), 0)
  end
  return reply.result
end

--- Fire-and-forget call; errors come back as notifications.
function M.notify(method, args)
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

local building = nil ---@type fun(ok: boolean)[]|nil callbacks of the build under way

--- Why the host cannot be built here (nil when it can).
function M.cannot_build()
  if vim.fn.executable("go") ~= 1 then
    return ("claude-nova: the host (bin/claudenova) must be built and Go is not on PATH: install Go 1.22 or newer (go.dev/dl), then :ClaudeNova build, or run `make` in %s"):format(M.root())
  end
  return nil
end

--- Build the host with `go build` in the background, showing progress;
--- on_done(ok) runs when it is done. Builds asked for meanwhile join it.
--- why: what the stamp records ("first use", ":ClaudeNova build", …).
function M.build(on_done, why)
  local notify = require("claudenova.ui.notify")
  local nope = M.cannot_build()
  if nope then
    notify.error(nope)
    if on_done then
      vim.schedule(function() on_done(false) end)
    end
    return
  end
  if building then
    table.insert(building, on_done)
    return
  end
  building = { on_done }
  local root = M.root()
  local started = vim.uv.now()
  notify.info("building the host with go (" .. (why or "asked") .. "); the command runs when it is built…")
  local ticker = vim.uv.new_timer()
  ticker:start(10000, 10000, vim.schedule_wrap(function()
    notify.info(("still building the host (%d s)…"):format(math.floor((vim.uv.now() - started) / 1000)))
  end))
  vim.fn.mkdir(root .. "/bin", "p")
  vim.system(
    { "go", "build", "-o", "bin/claudenova", "./cmd/claudenova" },
    { cwd = root, text = true },
    vim.schedule_wrap(function(res)
      ticker:stop()
      ticker:close()
      local ok = res.code == 0
      if ok then
        checked = false
        local goversion = vim.trim(vim.system({ "go", "env", "GOVERSION" }, { text = true }):wait(5000).stdout or "")
        pcall(vim.fn.writefile, { vim.json.encode({
          revision = M.revision(), built = os.date("!%Y-%m-%dT%H:%M:%SZ"), why = why or "asked", go = goversion,
        }) }, M.stamp_path())
        notify.info(("host built in %.1f s: %s"):format((vim.uv.now() - started) / 1000, M.bin()))
      else
        notify.error("the host did not build (go build): " .. vim.trim(res.stderr or ""))
      end
      local cbs = building or {}
      building = nil
      for _, cb in ipairs(cbs) do
        if cb then
          cb(ok)
        end
      end
    end)
  )
end

--- Build and wait for it (Neovim keeps drawing). Returns whether it built.
function M.build_and_wait()
  local done, ok = false, false
  require("claudenova.install").obtain({ why = "first use", on_done = function(o) done, ok = true, o end })
  vim.wait(300000, function() return done end, 50)
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
    require("claudenova.ui.notify").error(problem)
    return
  end
  require("claudenova.install").obtain({ why = kind == "missing" and "first use" or "the plugin was updated", on_done = function(ok)
    if ok then
      fn()
    end
  end })
end

return M
