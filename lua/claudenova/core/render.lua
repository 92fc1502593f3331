-- Drawing a buffer: its lines, their highlights and its marks in one
-- step. Every surface that writes text into a buffer of its own (the
-- panel, the sidebar, the MCP, rules, tasks, usage, comments, changes
-- and Always… views, the plan) draws it with M.lines; a surface that
-- annotates a buffer it does not write (blame's signs, the changes view's
-- "by …", a proposal's hunks) places its marks with M.marks. (The
-- transcript applies the host's numbered line ops; the proposal and the
-- prompt are the user's text.)
local M = {}

-- Place marks ({ row, col, opts }, 0-based; a row past the end is put on
-- the last line) in namespace ns of buf; returns their ids in order.
local function place(buf, ns, marks)
  local ids = {}
  local last = vim.api.nvim_buf_line_count(buf) - 1
  for i, m in ipairs(marks) do
    local row = math.max(0, math.min(m[1], last))
    local ok, id = pcall(vim.api.nvim_buf_set_extmark, buf, ns, row, m[2] or 0, m[3] or {})
    ids[i] = ok and id or nil
  end
  return ids
end

--- Set buf's lines to lines, its highlights in namespace ns to hls and its
--- marks to opts.marks (the namespace is cleared first; ns may be nil for
--- a buffer of plain text). A highlight is { row, start column, end
--- column, group }: 0-based, the end column -1 for the end of the line; a
--- span is cut at its line's end, and an empty one is skipped. A mark is
--- { row, col, extmark opts }. The buffer is left not modifiable, unless
--- opts.editable (then it is left unmodified). opts.changed_only rewrites
--- only the lines that differ (a clock that moves rewrites one line, and
--- the cursor stays).
---@param buf integer
---@param ns integer|nil
---@param lines string[]
---@param hls table[]|nil
---@param opts? { changed_only?: boolean, editable?: boolean, marks?: table[] }
function M.lines(buf, ns, lines, hls, opts)
  opts = opts or {}
  local bo = { buf = buf } -- (vim.bo[buf] makes a table at every use)
  vim.api.nvim_set_option_value("modifiable", true, bo)
  local old = opts.changed_only and vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if old and #old == #lines then
    for i, l in ipairs(lines) do
      if old[i] ~= l then
        vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { l })
      end
    end
  else
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end
  if opts.editable then
    vim.api.nvim_set_option_value("modified", false, bo)
  else
    vim.api.nvim_set_option_value("modifiable", false, bo)
  end
  if not ns then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, h in ipairs(hls or {}) do
    local line = lines[h[1] + 1]
    if line then
      local e = h[3] < 0 and #line or math.min(h[3], #line)
      if h[2] < e then
        vim.api.nvim_buf_set_extmark(buf, ns, h[1], h[2], { end_col = e, hl_group = h[4] })
      end
    end
  end
  if opts.marks then
    place(buf, ns, opts.marks)
  end
end

--- Replace the marks of namespace ns in buf (a buffer the surface does not
--- write: signs, virtual text, tracked ranges) with marks ({ row, col,
--- extmark opts }); returns their ids in order.
---@param buf integer
---@param ns integer
---@param marks table[]
---@return integer[]
function M.marks(buf, ns, marks)
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  return place(buf, ns, marks)
end

return M
