-- Unsaved edits are never lost: when a buffer must show other content (a
-- proposal refreshed or withdrawn, a file rewound), its lines are first kept
-- in storage/rescued and the user is told where.
local config = require("claudenova.setup.config")
local notify = require("claudenova.setup.notify")

local M = {}

--- Write buf's lines to storage/rescued/<time>-<basename> and say so.
--- name: what the edits were of, for the message ("the proposal for
--- greet.py"); path: the file they belong to (its basename names the
--- rescued file; default: name). Returns the file written.
function M.keep(buf, name, why, path)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local dir = config.get().storage .. "/rescued"
  vim.fn.mkdir(dir, "p", tonumber("700", 8))
  -- No spaces or odd characters: gf and :e take the name as it is shown.
  local base = vim.fn.fnamemodify(path or name, ":t"):gsub("[^%w%.%-_+]", "_")
  local stamp = os.date("%Y%m%d-%H%M%S")
  local file = ("%s/%s-%s"):format(dir, stamp, base)
  local n = 1
  while vim.uv.fs_stat(file) do
    n = n + 1
    file = ("%s/%s-%d-%s"):format(dir, stamp, n, base)
  end
  vim.fn.writefile(lines, file)
  -- Where they are comes before why (a narrow screen cuts the end).
  notify.warn(("your unsaved edits of %s are in %s (%s)"):format(name, vim.fn.fnamemodify(file, ":~"), why))
  return file
end

return M
