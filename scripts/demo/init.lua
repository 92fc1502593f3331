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

-- A tiny linter for the demo's Python, so that the tour's editor-tool step
-- (mcp__nvim__diagnostics) has diagnostics to read without a language server.
local lint_ns = vim.api.nvim_create_namespace("claudenova_demo_lint")
local function lint(buf)
  local diags = {}
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:match("^%s*def ") and not (lines[i + 1] or ""):match('^%s*"""') then
      table.insert(diags, { lnum = i - 1, col = 0, severity = vim.diagnostic.severity.WARN, source = "demo-lint",
        message = "a function without a docstring" })
    end
    local at = l:find('" %+ ', 1) or l:find("' %+ ", 1)
    if at then
      table.insert(diags, { lnum = i - 1, col = at, severity = vim.diagnostic.severity.HINT, source = "demo-lint",
        message = "an f-string reads better than +" })
    end
  end
  vim.diagnostic.set(lint_ns, buf, diags)
end
vim.api.nvim_create_autocmd({ "BufReadPost", "BufWritePost", "TextChanged", "InsertLeave" }, {
  pattern = "*.py",
  desc = "claude-nova demo: a small Python linter (diagnostics for the editor tools)",
  callback = function(ev) lint(ev.buf) end,
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
