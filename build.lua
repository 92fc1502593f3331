-- lazy.nvim runs this file after it installs or updates the plugin (no
-- `build` key needed in your spec): it obtains the host binary the way the
-- first :ClaudeNova command and :ClaudeNova build do (the release asset for
-- your platform, checked against the SHA-256 in lua/claudenova/core/release.lua;
-- else a build with go). Other plugin managers: run `:ClaudeNova build`.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
if not pcall(require, "claudenova.setup.install") then
  vim.opt.rtp:append(root)
end

-- lazy builds before it calls setup(opts): the spec's opts (a download.url
-- of yours) are read from lazy's own record of the plugin.
local function lazy_opts()
  local ok, config = pcall(require, "lazy.core.config")
  local pok, plugin = pcall(require, "lazy.core.plugin")
  if not ok or not pok or type(config.plugins) ~= "table" or type(plugin.values) ~= "function" then
    return nil
  end
  for _, p in pairs(config.plugins) do
    if type(p) == "table" and p.dir and vim.fs.normalize(p.dir) == vim.fs.normalize(root) then
      local vok, opts = pcall(plugin.values, p, "opts", false)
      return vok and type(opts) == "table" and opts or nil
    end
  end
  return nil
end

require("claudenova.setup.install").build_step(lazy_opts())
