-- make demo: the plugin from this checkout, a real claude CLI, our scripted
-- model server. Nothing here touches your own config.
local root = assert(os.getenv("CLAUDENOVA_DEMO_ROOT"))
vim.opt.rtp:prepend(root)
vim.o.swapfile = false
vim.o.linebreak = true -- README.demo.md is one line per paragraph: it wraps at words at any width
vim.o.breakindent = true
vim.g.maplocalleader = ","

require("claudenova").setup({
  cmd = os.getenv("CLAUDE_BIN"),
  env = {
    ANTHROPIC_BASE_URL = os.getenv("CLAUDENOVA_DEMO_MODEL"),
    ANTHROPIC_API_KEY = "demo",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1",
    DISABLE_AUTOUPDATER = "1",
    HOME = os.getenv("CLAUDENOVA_DEMO_HOME"),
  },
})

vim.api.nvim_create_user_command("DemoTour", function()
  vim.cmd("ClaudeNova new DEMO")
  vim.cmd("ClaudeNova rename the tour again")
end, { desc = "claude-nova demo: the guided tour again, in a new session" })

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.cmd("edit README.demo.md")
    vim.cmd("ClaudeNova")          -- the sidebar
    vim.cmd("wincmd p")
    vim.cmd("ClaudeNova new DEMO") -- the guided tour (scripts/demo/script.json)
    vim.cmd("ClaudeNova rename the tour")
  end,
})
