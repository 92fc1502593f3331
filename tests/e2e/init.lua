-- Test init: the plugin from the repo on the runtimepath, options from the
-- harness, notifications recorded so tests can assert what the user saw.
local root = assert(os.getenv("CLAUDENOVA_TEST_ROOT"), "CLAUDENOVA_TEST_ROOT not set")
local hide = os.getenv("CLAUDENOVA_TEST_HIDE_REMOTE")
if hide and hide ~= "" then
  -- A Neovim without remote plugins: $VIMRUNTIME on the runtimepath gives
  -- way to a copy of it made of links, less autoload/remote/ (remote#host,
  -- remote#define), before any plugin loads.
  local rt = vim.fs.normalize(vim.env.VIMRUNTIME)
  vim.fn.mkdir(hide .. "/autoload", "p")
  for name in vim.fs.dir(rt) do
    if name == "autoload" then
      for n in vim.fs.dir(rt .. "/autoload") do
        if n ~= "remote" then
          assert(vim.uv.fs_symlink(rt .. "/autoload/" .. n, hide .. "/autoload/" .. n))
        end
      end
    else
      assert(vim.uv.fs_symlink(rt .. "/" .. name, hide .. "/" .. name))
    end
  end
  local paths = {}
  for _, p in ipairs(vim.opt.rtp:get()) do
    table.insert(paths, vim.fs.normalize(p) == rt and hide or p)
  end
  vim.opt.rtp = paths
end
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
-- Neovim's language providers are the machine's, not the plugin's: finding
-- python3's runs the interpreter (a version manager's shim takes seconds,
-- over a minute under load), and python's ftplugin asks for it on the first
-- .py file, holding Neovim meanwhile.
for _, p in ipairs({ "python3", "node", "perl", "ruby" }) do
  vim.g["loaded_" .. p .. "_provider"] = 0
end
vim.o.columns = 160
vim.o.lines = 50

-- What tests observe (notifications, request events, a scripted picker),
-- from the start: an install at startup says things too.
dofile(root .. "/tests/e2e/observe.lua")

local opts = os.getenv("CLAUDENOVA_TEST_OPTS")
local pack = os.getenv("CLAUDENOVA_TEST_PACK")
local lazy = os.getenv("CLAUDENOVA_TEST_LAZY")
if lazy and lazy ~= "" then
  -- Installed the way a lazy.nvim user does: lazy clones the plugin from
  -- the git source and runs its build (build.lua, no build key), then
  -- calls setup(opts).
  vim.opt.rtp:prepend(lazy)
  require("lazy").setup({
    { url = pack, name = "claude-nova.nvim", opts = (opts and opts ~= "") and vim.json.decode(opts) or {} },
  }, {
    rocks = { enabled = false },
    pkg = { enabled = false },
    checker = { enabled = false },
    change_detection = { enabled = false },
    install = { colorscheme = {} },
    -- --embed: stdout is the RPC channel, nothing may be printed there.
    headless = { process = false, log = false, task = false, colors = false },
    performance = { reset_packpath = false, rtp = { reset = false } },
  })
  opts = nil
elseif pack and pack ~= "" then
  -- Installed the way a vim.pack user does: a git clone, no build step.
  vim.pack.add({ { src = pack, name = "claude-nova.nvim" } }, { confirm = false })
else
  local plugin = os.getenv("CLAUDENOVA_TEST_PLUGIN")
  vim.opt.rtp:prepend((plugin and plugin ~= "") and plugin or root)
end

if opts and opts ~= "" then
  require("claudenova").setup(vim.json.decode(opts))
end
