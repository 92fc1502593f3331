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
  range = true,
  desc = "claude-nova: Claude Code sessions and approvals",
  complete = function(arglead, cmdline)
    return require("claudenova.commands").complete(arglead, cmdline)
  end,
})

-- Map it yourself, e.g. vim.keymap.set("x", "<leader>cs", "<Plug>(ClaudeNovaSendSelection)").
vim.keymap.set("x", "<Plug>(ClaudeNovaSendSelection)", function()
  require("claudenova.commands").send_selection()
end, { desc = "claude-nova: Send the selection (the prompt input opens with it)" })

-- Map it yourself, e.g. vim.keymap.set("n", "<leader>cf", "<Plug>(ClaudeNovaFocus)"): opens the
-- request surface that waits for you to pause.
vim.keymap.set("n", "<Plug>(ClaudeNovaFocus)", function()
  require("claudenova.commands").run({ fargs = { "focus" }, args = "focus" })
end, { desc = "claude-nova: Open the surface that waits for you to pause" })
