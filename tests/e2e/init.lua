-- Test init: the plugin from the repo on the runtimepath, options from the
-- harness, notifications recorded so tests can assert what the user saw.
local root = assert(os.getenv("CLAUDENOVA_TEST_ROOT"), "CLAUDENOVA_TEST_ROOT not set")
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
