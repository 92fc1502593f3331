-- How the Go host is wired to Neovim: the one place that chooses between
-- Neovim's remote plugin machinery (remote#host#Register and the static
-- manifest in rplugin/manifest.vim) and a plain jobstart(…, {rpc = true})
-- where this Neovim has no remote plugins (neovim/neovim#27949). Both paths
-- define the same Vim functions (ClaudeNovaRequest, ClaudeNovaNotify), call
-- the same RPC methods ("<path>:function:<name>") of the same binary, and
-- start a fresh host on the next call after one died.
local errors = require("claudenova.core.errors")
local paths = require("claudenova.core.paths")

local M = {}

M.NAME = "claudenova"

local chosen = nil ---@type "remote"|"jobstart"|nil
local factory = nil ---@type fun(info: table): integer
local channel = nil ---@type integer|nil
local defined = false

--- Whether this Neovim has remote#host (its autoload file may not be loaded
--- yet: exists() does not load it, calling one of its functions does).
function M.remote_available()
  if vim.fn.exists("*remote#host#Register") == 1 then
    return true
  end
  if #vim.api.nvim_get_runtime_file("autoload/remote/host.vim", false) == 0 then
    return false
  end
  errors.try(vim.fn["remote#host#IsRunning"], M.NAME)
  return vim.fn.exists("*remote#host#Register") == 1
end

--- "remote" or "jobstart": the path in use (chosen at the first call).
function M.kind()
  if not chosen then
    chosen = M.remote_available() and "remote" or "jobstart"
  end
  return chosen
end

--- Words for :checkhealth.
function M.describe()
  if M.kind() == "remote" then
    return "registered as a remote plugin (remote#host#Register, rplugin/manifest.vim)"
  end
  return "started with jobstart(…, {rpc = true}): this Neovim has no remote#host (remote plugins); same functions, same host"
end

local function manifest_path()
  return paths.root() .. "/rplugin/manifest.vim"
end

--- The manifest's declarations: path and specs, read from the generated
--- rplugin/manifest.vim (the same file the remote path sources).
---@return {host: string, path: string, specs: {type: string, name: string, sync: integer, opts: table}[]}[]
function M.manifest()
  local text = table.concat(vim.fn.readfile(manifest_path()), "\n")
  -- Join Vim's line continuations, then evaluate each call's arguments.
  text = text:gsub("\n%s*\\", " ")
  local out = {}
  for args in text:gmatch("call%s+remote#host#RegisterPlugin(%b())") do
    local list = vim.fn.eval("[" .. args:sub(2, -2) .. "]")
    table.insert(out, { host = list[1], path = list[2], specs = list[3] })
  end
  return out
end

-- The jobstart path's functions, defined in one script so that they share
-- its s: variables. Like remote#define#request, notifications sent while a
-- synchronous call is under way wait until it returns (the host then sees
-- them in the order Neovim made them).
local PRELUDE = [[
let s:busy = 0
let s:pending = []
function! s:Channel() abort
  return luaeval('require("claudenova.setup.register").channel()')
endfunction
function! s:Flush() abort
  let l:pending = s:pending
  let s:pending = []
  for l:n in l:pending
    call call('rpcnotify', l:n)
  endfor
endfunction
function! s:Request(method, args) abort
  let l:chan = s:Channel()
  let s:busy += 1
  try
    return rpcrequest(l:chan, a:method, a:args)
  finally
    let s:busy -= 1
    if s:busy == 0
      call s:Flush()
    endif
  endtry
endfunction
function! s:Notify(method, args) abort
  let l:chan = s:Channel()
  if s:busy > 0
    call add(s:pending, [l:chan, a:method, a:args])
  else
    call rpcnotify(l:chan, a:method, a:args)
  endif
endfunction
]]

local function define_functions()
  if defined then
    return
  end
  local src = { PRELUDE }
  for _, plugin in ipairs(M.manifest()) do
    for _, spec in ipairs(plugin.specs) do
      if spec.type ~= "function" or next(spec.opts or {}) ~= nil then
        error(
          ("claude-nova: internal error: the jobstart path handles functions without options only; rplugin/manifest.vim declares a %s %s"):format(
            spec.type,
            spec.name
          ),
          0
        )
      end
      local method = plugin.path .. ":function:" .. spec.name
      table.insert(
        src,
        ("function! %s(...)\n  %s s:%s(%s, a:000)\nendfunction"):format(
          spec.name,
          spec.sync == 1 and "return" or "call",
          spec.sync == 1 and "Request" or "Notify",
          vim.fn.string(method)
        )
      )
    end
  end
  vim.api.nvim_exec2(table.concat(src, "\n"), {})
  defined = true
end

--- Make the host's functions callable; the host starts at the first call
--- (fac(info) starts it and returns its channel).
---@param fac fun(info: table): integer
function M.register(fac)
  factory = fac
  if M.kind() == "remote" then
    vim.fn["remote#host#Register"](M.NAME, "x", fac)
    vim.cmd.source(vim.fn.fnameescape(manifest_path()))
  else
    define_functions()
  end
end

--- The jobstart path's channel, starting the host when none runs.
function M.channel()
  if channel and errors.try(vim.fn.jobpid, channel) then
    return channel
  end
  channel = nil
  local chan = factory({ name = M.NAME, orig_name = M.NAME })
  channel = chan
  return chan
end

--- The host's channel, starting it if needed (remote#host#Require's job).
function M.require()
  if M.kind() == "remote" then
    return vim.fn["remote#host#Require"](M.NAME)
  end
  return M.channel()
end

--- After the host exited: the next call starts a fresh one.
function M.reset()
  if M.kind() ~= "remote" then
    channel = nil
    return
  end
  -- remote#define baked the dead channel into every function: restore the
  -- bootstrap stubs so the next call starts a fresh host.
  vim.fn["remote#host#Register"](M.NAME, "x", factory)
  for _, plugin in ipairs(vim.fn["remote#host#PluginsForHost"](M.NAME)) do
    for _, spec in ipairs(plugin.specs) do
      if spec.type == "function" then
        errors.try(vim.cmd, "delfunction! " .. spec.name)
        vim.fn["remote#define#FunctionOnHost"](
          M.NAME,
          plugin.path .. ":function:" .. spec.name,
          spec.sync,
          spec.name,
          spec.opts
        )
      end
    end
  end
end

return M
