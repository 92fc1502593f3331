-- Obtaining the host binary (bin/claudenova) where it is missing or
-- outdated: the release asset for this platform, downloaded (curl, else
-- wget; a local folder or file:// is copied) into a temp file beside it,
-- checked against the SHA-256 in the checkout's release manifest
-- (lua/claudenova/core/release.lua, written by `make release`), made executable
-- and renamed into place; else built with `go build`; else one message
-- that says what is missing and the two ways out. Everything that waits
-- (the download, the checksum, the build) runs off the editor's loop.
-- The first command after an install, `:ClaudeNova build` and lazy.nvim's
-- build (build.lua) all come here.
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local notify = require("claudenova.setup.notify")
local version_mod = require("claudenova.core.version")

local M = {}

local paths = require("claudenova.core.paths")

--- This machine's key in the manifest ("linux-amd64"), or nil, and how
--- the system names itself ("Linux/x86_64").
---@return string|nil, string
function M.platform()
  local u = vim.uv.os_uname()
  local os_ = ({ Linux = "linux", Darwin = "darwin" })[u.sysname]
  local arch = ({ x86_64 = "amd64", amd64 = "amd64", aarch64 = "arm64", arm64 = "arm64" })[u.machine]
  return (os_ and arch) and (os_ .. "-" .. arch) or nil, u.sysname .. "/" .. u.machine
end

--- The checkout's release manifest, read afresh (an update of the
--- checkout brings a new one), or nil.
function M.manifest()
  local ok, m = pcall(dofile, paths.root() .. "/lua/claudenova/core/release.lua")
  return ok and type(m) == "table" and type(m.assets) == "table" and m or nil
end

--- The download URL of file for version from template: {version} and
--- {asset} are substituted; without {asset} the file name is appended.
function M.url(template, version, file)
  local function sub(s, key, val)
    local i, j = s:find(key, 1, true)
    while i do
      s = s:sub(1, i - 1) .. val .. s:sub(j + 1)
      i, j = s:find(key, i + #val, true)
    end
    return s
  end
  local u = sub(template, "{version}", version)
  if u:find("{asset}", 1, true) then
    return sub(u, "{asset}", file)
  end
  return (u:gsub("/+$", "")) .. "/" .. file
end

--- The local file a URL names (a folder path or file://), else nil.
local function local_file(url)
  if url:match("^file://") then
    return (url:gsub("^file://", ""):gsub("%%(%x%x)", function(h)
      return string.char(tonumber(h, 16))
    end))
  end
  if url:match("^/") or url:match("^~") then
    return vim.fn.expand(url)
  end
  return nil
end

--- How the host would be downloaded here, or nil and why not.
---@return {version: string, revision: string, file: string, sha256: string, size: integer, url: string, key: string, via: string}|nil, string|nil
function M.plan()
  local cfg = config.get().download
  if not cfg.enabled then
    return nil, "download is off (download = false)"
  end
  local m = M.manifest()
  if not m then
    return nil, "this checkout has no release manifest (lua/claudenova/core/release.lua)"
  end
  local want = version_mod
  if m.version ~= want then
    return nil, ("the checkout's release manifest is of v%s, the plugin v%s"):format(tostring(m.version), want)
  end
  local key, uname = M.platform()
  local a = key and m.assets[key]
  if not a then
    return nil, ("v%s has no release asset for this platform (%s)"):format(m.version, key or uname)
  end
  local url = M.url(cfg.url, m.version, a.file)
  local via = local_file(url) and "copy"
    or (vim.fn.executable("curl") == 1 and "curl")
    or (vim.fn.executable("wget") == 1 and "wget")
    or nil
  if not via then
    return nil, "neither curl nor wget is on PATH to download it"
  end
  return {
    version = m.version,
    revision = m.revision,
    file = a.file,
    sha256 = a.sha256,
    size = a.size,
    url = url,
    key = key,
    via = via,
  }
end

local function mb(n)
  return ("%.1f MB"):format((n or 0) / 1e6)
end

--- The SHA-256 of path (hex): cb(sum) or cb(nil, why). sha256sum, shasum
--- or openssl run it off the loop; without any, Neovim's own sha256().
function M.sha256(path, cb)
  local argv
  if vim.fn.executable("sha256sum") == 1 then
    argv = { "sha256sum", path }
  elseif vim.fn.executable("shasum") == 1 then
    argv = { "shasum", "-a", "256", path }
  elseif vim.fn.executable("openssl") == 1 then
    argv = { "openssl", "dgst", "-sha256", "-r", path }
  end
  if not argv then
    vim.schedule(function()
      local f = io.open(path, "rb")
      if not f then
        return cb(nil, "cannot read " .. path)
      end
      local data = f:read("*a")
      f:close()
      cb(vim.fn.sha256(data))
    end)
    return
  end
  vim.system(
    argv,
    { text = true },
    vim.schedule_wrap(function(res)
      local sum = res.code == 0 and (res.stdout or ""):match("^(%x+)")
      if not sum or #sum ~= 64 then
        return cb(nil, ("%s failed: %s"):format(argv[1], vim.trim(res.stderr or "")))
      end
      cb(sum:lower())
    end)
  )
end

--- Write the stamp of a downloaded host (host.stamp() reads it).
local function stamp(plan, why)
  errors.try(vim.fn.writefile, {
    vim.json.encode({
      how = "download",
      version = plan.version,
      release_revision = plan.revision,
      asset = plan.file,
      sha256 = plan.sha256,
      url = plan.url,
      revision = paths.revision(),
      built = os.date("!%Y-%m-%dT%H:%M:%SZ"),
      why = why or "asked",
    }),
  }, paths.stamp_path())
end

--- Fetch plan's asset into tmp: cb(nil) when done, else cb(why).
local function fetch(plan, tmp, cb)
  if plan.via == "copy" then
    local src = local_file(plan.url)
    vim.uv.fs_copyfile(src, tmp, function(err)
      vim.schedule(function()
        cb(err and ("cannot copy %s: %s"):format(src, err) or nil)
      end)
    end)
    return
  end
  local argv = plan.via == "curl"
      and {
        "curl",
        "--fail",
        "--silent",
        "--show-error",
        "--location",
        "--retry",
        "2",
        "--connect-timeout",
        "10",
        "--max-time",
        "600",
        "--output",
        tmp,
        plan.url,
      }
    or { "wget", "--quiet", "--tries=2", "--timeout=10", "--output-document=" .. tmp, plan.url }
  vim.system(
    argv,
    { text = true },
    vim.schedule_wrap(function(res)
      if res.code ~= 0 then
        local err = vim.trim(res.stderr or "")
        return cb(("%s %s failed (exit %d%s)"):format(plan.via, plan.url, res.code, err ~= "" and (": " .. err) or ""))
      end
      cb(nil)
    end)
  )
end

--- Download, verify and install plan's asset as bin/claudenova.
--- done(true) when installed; done(false, why, fallback): fallback says
--- whether building instead makes sense (not after a checksum mismatch).
function M.download(plan, why, done)
  local bin = paths.bin()
  -- A binary that is the release's already (the checkout moved on, the
  -- release did not): it is only stamped again.
  local function fresh()
    local dir = vim.fn.fnamemodify(bin, ":h")
    vim.fn.mkdir(dir, "p")
    local tmp = ("%s/.claudenova.download.%d"):format(dir, vim.uv.os_getpid())
    os.remove(tmp)
    local started = vim.uv.now()
    notify.info(
      ("downloading the host v%s (%s, %s) from %s; the command runs when it is verified…"):format(
        plan.version,
        plan.file,
        mb(plan.size),
        plan.url
      )
    )
    local ticker = vim.uv.new_timer()
    ticker:start(
      2000,
      2000,
      vim.schedule_wrap(function()
        local st = vim.uv.fs_stat(tmp)
        local got = st and st.size or 0
        notify.info(
          ("downloading the host: %s of %s (%d%%, %d s)…"):format(
            mb(got),
            mb(plan.size),
            (plan.size or 0) > 0 and math.floor(got * 100 / plan.size) or 0,
            math.floor((vim.uv.now() - started) / 1000)
          )
        )
      end)
    )
    local function stop()
      if not ticker:is_closing() then
        ticker:stop()
        ticker:close()
      end
    end
    fetch(plan, tmp, function(err)
      stop()
      if err then
        os.remove(tmp)
        return done(false, err, true)
      end
      M.sha256(tmp, function(sum, herr)
        if not sum then
          os.remove(tmp)
          return done(false, herr, true)
        end
        if sum ~= plan.sha256 then
          os.remove(tmp)
          return done(
            false,
            ("refused the downloaded host: its SHA-256 is %s, this checkout's release manifest (lua/claudenova/core/release.lua) says %s; the file was deleted and nothing was run (%s from %s)"):format(
              sum,
              plan.sha256,
              plan.file,
              plan.url
            ),
            false
          )
        end
        local ok, cerr = vim.uv.fs_chmod(tmp, tonumber("755", 8))
        if ok then
          ok, cerr = vim.uv.fs_rename(tmp, bin)
        end
        if not ok then
          os.remove(tmp)
          return done(false, ("cannot install %s: %s"):format(bin, tostring(cerr)), true)
        end
        stamp(plan, why)
        notify.info(
          ("host v%s downloaded and verified (sha256 %s…) in %.1f s: %s"):format(
            plan.version,
            plan.sha256:sub(1, 12),
            (vim.uv.now() - started) / 1000,
            bin
          )
        )
        done(true)
      end)
    end)
  end
  if vim.fn.executable(bin) ~= 1 then
    return fresh()
  end
  M.sha256(bin, function(sum)
    if sum == plan.sha256 then
      stamp(plan, why)
      notify.info(("the host is release v%s already (sha256 ok)"):format(plan.version))
      return done(true)
    end
    fresh()
  end)
end

-- The paths whose content makes the host binary (cmd/release's list).
local HOST_SOURCES = { "cmd/claudenova", "rplugin", "go.mod", "go.sum" }

--- Whether this checkout's host sources are those of revision rev (the
--- release's): cb(true), cb(false), or cb(nil) when git cannot tell (no
--- git, a shallow clone without rev). Compares trees only: a partial clone
--- fetches nothing for it.
function M.sources_match(rev, cb)
  if
    type(rev) ~= "string"
    or not rev:match("^%x+$")
    or vim.fn.executable("git") ~= 1
    or vim.fn.isdirectory(paths.root() .. "/.git") + vim.fn.filereadable(paths.root() .. "/.git") == 0
  then
    return cb(nil)
  end
  local argv = { "git", "-C", paths.root(), "diff-tree", "--quiet", rev, "HEAD", "--" }
  vim.list_extend(argv, HOST_SOURCES)
  local ok = errors.try(
    vim.system,
    argv,
    { text = true },
    vim.schedule_wrap(function(res)
      if res.code == 0 then
        cb(true)
      elseif res.code == 1 then
        cb(false)
      else
        cb(nil)
      end
    end)
  )
  if not ok then
    cb(nil)
  end
end

--- The one message when the host can be neither downloaded nor built.
function M.missing_message(why)
  return ("no host binary (bin/claudenova) and no way to get one here: %s, and Go is not on PATH. Two ways out: let it be downloaded (curl or wget on PATH, download enabled, or download.url set to a folder holding the release assets), or install Go 1.24 or newer (go.dev/dl); then :ClaudeNova build"):format(
    why
  )
end

local joining = nil ---@type (fun(ok: boolean))[]|nil

--- Obtain the host: download and verify the release asset, else build it
--- with go, else say what is missing. on_done(ok) runs when done; calls
--- meanwhile join the one under way.
---@param opts {why?: string, on_done?: fun(ok: boolean), via?: "download"|"go"}
function M.obtain(opts)
  opts = opts or {}
  if joining then
    table.insert(joining, opts.on_done or false)
    return
  end
  joining = { opts.on_done or false }
  local function finish(ok)
    local cbs = joining or {}
    joining = nil
    for _, cb in ipairs(cbs) do
      if cb then
        cb(ok)
      end
    end
  end
  local function build(reason, tried)
    if vim.fn.executable("go") ~= 1 then
      notify.error(M.missing_message(reason))
      return finish(false)
    end
    if tried then
      notify.warn(("the host was not downloaded (%s): building it with go instead"):format(reason))
    end
    M.build(finish, opts.why)
  end
  if opts.via == "go" then
    return build("a build with go was asked for", false)
  end
  local plan, why_not = M.plan()
  if not plan then
    if opts.via == "download" then
      notify.error("the host cannot be downloaded: " .. why_not)
      return finish(false)
    end
    return build(why_not, false)
  end
  -- Between releases (a checkout of main) the release's host may be older
  -- than this checkout's sources: Go builds the exact one where it can.
  M.sources_match(plan.revision, function(same)
    if same == false and opts.via ~= "download" and vim.fn.executable("go") == 1 then
      notify.info(
        ("this checkout's host sources differ from release v%s's (revision %s): building it with go instead of downloading"):format(
          plan.version,
          tostring(plan.revision):sub(1, 12)
        )
      )
      return M.build(finish, opts.why)
    end
    M.download(plan, opts.why, function(ok, err, fallback)
      if ok then
        if same == false then
          notify.warn(
            ("installed release v%s's host (revision %s); this checkout's host sources are newer: with Go, :ClaudeNova build go builds the exact one"):format(
              plan.version,
              tostring(plan.revision):sub(1, 12)
            )
          )
        end
        return finish(true)
      end
      if not fallback or opts.via == "download" then
        notify.error(err)
        return finish(false)
      end
      build(err, true)
    end)
  end)
end

--- lazy.nvim's build step (build.lua): obtain the host and wait for it.
--- lazy runs a build file in a coroutine of its scheduler: the wait sleeps
--- there (the editor keeps running); elsewhere it waits with vim.wait.
--- Raises when it failed, so the plugin manager shows the build failed.
---@param opts table|nil the plugin's setup() options, when the plugin manager has them
function M.build_step(opts)
  if opts then
    local ok, err = pcall(config.set, opts)
    if not ok then
      error(err, 0)
    end
  end
  local done, ok = false, false
  M.obtain({
    why = "plugin manager build",
    on_done = function(o)
      done, ok = true, o
    end,
  })
  local lazy_ok, lazy_async = pcall(require, "lazy.async")
  local task = lazy_ok and type(lazy_async) == "table" and lazy_async.running and lazy_async.running() or nil
  while not done do
    if task then
      task:sleep(100)
    else
      vim.wait(100, function()
        return done
      end, 20)
    end
  end
  if not ok then
    error("claude-nova: the host was not installed (see :messages)", 0)
  end
  return true
end

local building = nil ---@type fun(ok: boolean)[]|nil callbacks of the build under way

--- How many builds succeeded since the editor started (the channel checks
--- a binary again after one).
M.builds = 0

--- Why the host cannot be built here (nil when it can).
function M.cannot_build()
  if vim.fn.executable("go") ~= 1 then
    return ("claude-nova: the host (bin/claudenova) must be built and Go is not on PATH: install Go 1.22 or newer (go.dev/dl), then :ClaudeNova build, or run `make` in %s"):format(
      paths.root()
    )
  end
  return nil
end

--- Build the host with `go build` in the background, showing progress;
--- on_done(ok) runs when it is done. Builds asked for meanwhile join it.
--- why: what the stamp records ("first use", ":ClaudeNova build", …).
function M.build(on_done, why)
  local nope = M.cannot_build()
  if nope then
    notify.error(nope)
    if on_done then
      vim.schedule(function()
        on_done(false)
      end)
    end
    return
  end
  if building then
    table.insert(building, on_done)
    return
  end
  building = { on_done }
  local root = paths.root()
  local started = vim.uv.now()
  notify.info("building the host with go (" .. (why or "asked") .. "); the command runs when it is built…")
  local ticker = vim.uv.new_timer()
  ticker:start(
    10000,
    10000,
    vim.schedule_wrap(function()
      notify.info(("still building the host (%d s)…"):format(math.floor((vim.uv.now() - started) / 1000)))
    end)
  )
  vim.fn.mkdir(root .. "/bin", "p")
  vim.system(
    { "go", "build", "-o", "bin/claudenova", "./cmd/claudenova" },
    { cwd = root, text = true },
    vim.schedule_wrap(function(res)
      ticker:stop()
      ticker:close()
      local ok = res.code == 0
      if ok then
        M.builds = M.builds + 1
        -- The stamp says how it was built; go's version comes after (never
        -- waited for).
        local stamp = { revision = paths.revision(), built = os.date("!%Y-%m-%dT%H:%M:%SZ"), why = why or "asked" }
        errors.try(vim.fn.writefile, { vim.json.encode(stamp) }, paths.stamp_path())
        errors.try(
          vim.system,
          { "go", "env", "GOVERSION" },
          { text = true },
          vim.schedule_wrap(function(r)
            stamp.go = vim.trim(r.stdout or "")
            errors.try(vim.fn.writefile, { vim.json.encode(stamp) }, paths.stamp_path())
          end)
        )
        notify.info(("host built in %.1f s: %s"):format((vim.uv.now() - started) / 1000, paths.bin()))
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

return M
