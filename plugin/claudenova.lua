-- claude-nova.nvim: only the command is defined at startup; everything else
-- (the Go host included) loads on first use.
if vim.g.loaded_claudenova then
  return
end
vim.g.loaded_claudenova = true

vim.api.nvim_create_user_command("ClaudeNova", function(opts)
  require("claudenova.commands").run(opts)
end, {
  nargs = "*",
  desc = "claude-nova: Claude Code sessions and approvals",
  complete = function(arglead, cmdline)
    return require("claudenova.commands").complete(arglead, cmdline)
  end,
})
