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
local pack = os.getenv("CLAUDENOVA_TEST_PACK")
if pack and pack ~= "" then
  -- Installed the way a vim.pack user does: a git clone, no build step.
  vim.pack.add({ { src = pack, name = "claude-nova.nvim" } }, { confirm = false })
else
  vim.opt.rtp:prepend(root)
end
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.o.columns = 160
vim.o.lines = 50

-- What tests observe (notifications, request events, a scripted picker).
dofile(root .. "/tests/e2e/observe.lua")

local opts = os.getenv("CLAUDENOVA_TEST_OPTS")
if opts and opts ~= "" then
  require("claudenova").setup(vim.json.decode(opts))
end
