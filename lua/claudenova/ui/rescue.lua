-- Unsaved edits are never lost: when a buffer must show other content (a
-- proposal refreshed or withdrawn, a file rewound), its lines are first kept
-- in storage/rescued and the user is told where.
local M = {}

--- Write buf's lines to storage/rescued/<time>-<name> and say so.
--- Returns the file written.
function M.keep(buf, name, why)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local dir = require("claudenova.config").get().storage .. "/rescued"
  vim.fn.mkdir(dir, "p", tonumber("700", 8))
  local file = ("%s/%s-%s"):format(dir, os.date("%Y%m%d-%H%M%S"), vim.fn.fnamemodify(name, ":t"))
  local n = 1
  while vim.uv.fs_stat(file) do
    n = n + 1
    file = ("%s/%s-%d-%s"):format(dir, os.date("%Y%m%d-%H%M%S"), n, vim.fn.fnamemodify(name, ":t"))
  end
  vim.fn.writefile(lines, file)
  require("claudenova.ui.notify").warn(("%s: your unsaved edits of %s are kept in %s"):format(why, name, file))
  return file
end

return M
