-- make demo: the plugin from this checkout, a real claude CLI, our scripted
-- model server. Nothing here touches your own config.
local root = assert(os.getenv("CLAUDENOVA_DEMO_ROOT"))
vim.opt.rtp:prepend(root)
vim.o.swapfile = false
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

local plan_prompt = vim.json.encode({
  { "Read", { file_path = vim.fn.getcwd() .. "/greet.py" } },
  { "ExitPlanMode", { plan = "# Plan\n\n1. Add a `farewell(name)` function next to `greet`.\n2. Keep the style of `greet`.\n\nEdit this plan before approving: Claude is told to follow your version." } },
  { "Edit", { file_path = vim.fn.getcwd() .. "/greet.py", old_string = "def greet", new_string = "def farewell(name):\n    return \"bye \" + name\n\n\ndef greet" } },
})

vim.api.nvim_create_user_command("DemoPlan", function()
  vim.cmd("ClaudeNova new --plan SEQ " .. plan_prompt)
  vim.cmd("ClaudeNova rename add a farewell function")
end, { desc = "claude-nova demo: a session in plan mode that proposes a plan" })

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.cmd("edit README.demo.md")
    vim.cmd("ClaudeNova")          -- the sidebar
    vim.cmd("wincmd p")
    vim.cmd("ClaudeNova new DEMO") -- Edit, Write, Bash, questions
    vim.cmd("ClaudeNova rename tidy up greet.py")
  end,
})
