-- Drawing a read-only buffer: its lines and their highlights in one step,
-- the one way the surfaces that build a screen of text (the panel, the
-- sidebar, the MCP and rules views) put it in their buffer.
local M = {}

--- Set buf's lines to lines and its highlights in namespace ns to hls (the
--- namespace is cleared first). A highlight is { row, start column, end
--- column, group }: 0-based, the end column -1 for the end of the line; a
--- span is cut at its line's end, and an empty one is skipped. The buffer
--- is left not modifiable. opts.changed_only rewrites only the lines that
--- differ (a clock that moves rewrites one line, and the cursor stays).
---@param buf integer
---@param ns integer
---@param lines string[]
---@param hls table[]
---@param opts? { changed_only?: boolean }
function M.lines(buf, ns, lines, hls, opts)
  vim.bo[buf].modifiable = true
  local old = opts and opts.changed_only and vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if old and #old == #lines then
    for i, l in ipairs(lines) do
      if old[i] ~= l then
        vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { l })
      end
    end
  else
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  vim.bo[buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, h in ipairs(hls) do
    local line = lines[h[1] + 1]
    if line then
      local e = h[3] < 0 and #line or math.min(h[3], #line)
      if h[2] < e then
        vim.api.nvim_buf_set_extmark(buf, ns, h[1], h[2], { end_col = e, hl_group = h[4] })
      end
    end
  end
end

return M
