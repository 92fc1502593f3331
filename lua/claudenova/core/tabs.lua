-- A surface that opened a tab of its own (a proposal, a plan) closes it
-- when it goes, unless the user put something of theirs there.
local errors = require("claudenova.core.errors")

local M = {}

--- Close tab once only the windows of bufs (a list of buffers) and the
--- sidebar remain in it; never the last tab. Then wipe bufs.
---@param tab integer|nil
---@param bufs (integer|nil)[]
function M.close(tab, bufs)
  local ours = {}
  for _, b in pairs(bufs) do
    ours[b] = true
  end
  if tab and vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
    local only_ours = true
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      local b = vim.api.nvim_win_get_buf(w)
      if not ours[b] and vim.bo[b].filetype ~= "claudenova-sidebar" then
        only_ours = false
      end
    end
    if only_ours then
      errors.try(vim.cmd, vim.api.nvim_tabpage_get_number(tab) .. "tabclose!")
    end
  end
end

--- Wipe the buffers of bufs that are still there.
function M.wipe(bufs)
  for _, b in pairs(bufs) do
    if vim.api.nvim_buf_is_valid(b) then
      errors.try(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
end

return M
