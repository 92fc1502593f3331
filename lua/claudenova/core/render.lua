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

-- What M.lines drew last with changed_only, per buffer: each line's text
-- and highlights as one string (its "signature"). A buffer's goes when it
-- is wiped (remember makes the autocommand, with the first buffer).
local drawn = {}
local wipes

local function remember(buf, sig)
  if not wipes then
    wipes = vim.api.nvim_create_autocmd("BufWipeout", {
      group = vim.api.nvim_create_augroup("ClaudeNovaRender", { clear = true }),
      desc = "claude-nova: forget what was drawn in a wiped buffer",
      callback = function(ev)
        M.forget(ev.buf)
      end,
    })
  end
  drawn[buf] = sig
end

-- The highlights of lines, per line (1-based): { start, end, group } with
-- the end resolved and cut to its line; empty spans left out.
local function per_line(lines, hls)
  local out = {}
  for _, h in ipairs(hls or {}) do
    local line = lines[h[1] + 1]
    if line then
      local e = h[3] < 0 and #line or math.min(h[3], #line)
      if h[2] < e then
        local l = out[h[1] + 1]
        if not l then
          l = {}
          out[h[1] + 1] = l
        end
        table.insert(l, { h[2], e, h[4] })
      end
    end
  end
  return out
end

-- Place the highlights of rows from+1 .. to (1-based) in namespace ns.
local function mark_rows(buf, ns, marks, from, to)
  for i = from + 1, to do
    for _, mk in ipairs(marks[i] or {}) do
      vim.api.nvim_buf_set_extmark(buf, ns, i - 1, mk[1], { end_col = mk[2], hl_group = mk[3] })
    end
  end
end

local function signature(line, marks)
  if not marks then
    return line
  end
  local parts = { line }
  for _, m in ipairs(marks) do
    parts[#parts + 1] = m[1] .. "," .. m[2] .. "," .. m[3]
  end
  return table.concat(parts, "\0")
end

-- changed_only: the lines and highlights that differ from what was drawn,
-- and only those, are written (the rows between the first and the last
-- that differ; a row whose text is the same keeps it, and the cursor).
local function redraw_changed(buf, ns, lines, hls)
  local marks = per_line(lines, hls)
  local sig = {}
  for i, l in ipairs(lines) do
    sig[i] = signature(l, marks[i])
  end
  local old = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local prev = drawn[buf] or {}
  local function old_sig(i)
    -- What was drawn there, if the buffer still has that text.
    local p = prev[i]
    if p and (p == old[i] or p:sub(1, #old[i] + 1) == old[i] .. "\0") then
      return p
    end
    return nil
  end
  local n, m = #lines, #old
  local first = 0 -- rows the same at the start
  while first < n and first < m and sig[first + 1] == old_sig(first + 1) do
    first = first + 1
  end
  local last = 0 -- rows the same at the end
  while last < n - first and last < m - first and sig[n - last] == old_sig(m - last) do
    last = last + 1
  end
  remember(buf, sig)
  if first == n and n == m then
    return -- nothing changed
  end
  if n == m then
    -- As many rows as before: each one whose text differs is set alone.
    for i = first + 1, n - last do
      if old[i] ~= lines[i] then
        vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { lines[i] })
      end
    end
  else
    vim.api.nvim_buf_set_lines(buf, first, m - last, false, vim.list_slice(lines, first + 1, n - last))
  end
  -- The rows written, and the ones around them marks of deleted rows may
  -- have moved onto, marked again.
  local from, stop = first, math.min(n, n - last + 1)
  if m > n then
    from = math.max(0, first - 1)
    -- Rows deleted at the end leave their marks past the last row.
    vim.api.nvim_buf_clear_namespace(buf, ns, n, -1)
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, from, stop)
  mark_rows(buf, ns, marks, from, stop)
end

--- Set buf's lines to lines, its highlights in namespace ns to hls and its
--- marks to opts.marks (the namespace is cleared first; ns may be nil for
--- a buffer of plain text). A highlight is { row, start column, end
--- column, group }: 0-based, the end column -1 for the end of the line; a
--- span is cut at its line's end, and an empty one is skipped. A mark is
--- { row, col, extmark opts }. The buffer is left not modifiable, unless
--- opts.editable (then it is left unmodified). opts.changed_only rewrites
--- only the lines that differ and their highlights (a clock that moves
--- rewrites one line, and the cursor stays; a row added between others
--- writes that row).
---@param buf integer
---@param ns integer|nil
---@param lines string[]
---@param hls table[]|nil
---@param opts? { changed_only?: boolean, editable?: boolean, marks?: table[] }
function M.lines(buf, ns, lines, hls, opts)
  opts = opts or {}
  local bo = { buf = buf } -- (vim.bo[buf] makes a table at every use)
  vim.api.nvim_set_option_value("modifiable", true, bo)
  if opts.changed_only and ns and not opts.marks then
    redraw_changed(buf, ns, lines, hls)
  else
    drawn[buf] = nil
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
    if ns then
      vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
      mark_rows(buf, ns, per_line(lines, hls), 0, #lines)
      if opts.marks then
        place(buf, ns, opts.marks)
      end
    end
  end
  if opts.editable then
    vim.api.nvim_set_option_value("modified", false, bo)
  else
    vim.api.nvim_set_option_value("modifiable", false, bo)
  end
end

--- Forget what M.lines drew in buf with changed_only: its next such
--- drawing writes every row (render does it when buf is wiped).
---@param buf integer
function M.forget(buf)
  drawn[buf] = nil
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
