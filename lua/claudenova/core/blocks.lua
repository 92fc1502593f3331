-- The blocks of a change as diff mode draws them: vim.diff() with the
-- options 'diffopt' gives diff mode (its algorithm, indent heuristic,
-- linematch, whitespace), so that what a view counts, marks and undoes is
-- what the screen shows, and virtual lines on one side can be matched on
-- the other.
local M = {}

--- vim.diff's options from 'diffopt'.
function M.opts()
  local o = { result_type = "indices" }
  for _, item in ipairs(vim.split(vim.o.diffopt, ",")) do
    local k, val = item:match("^([%w-]+):?(.*)$")
    if k == "algorithm" then
      o.algorithm = val
    elseif k == "indent-heuristic" then
      o.indent_heuristic = true
    elseif k == "linematch" then
      o.linematch = tonumber(val)
    elseif k == "iwhite" then
      o.ignore_whitespace_change = true
    elseif k == "iwhiteall" then
      o.ignore_whitespace = true
    elseif k == "iwhiteeol" then
      o.ignore_whitespace_change_at_eol = true
    elseif k == "iblank" then
      o.ignore_blank_lines = true
    end
  end
  return o
end

--- The blocks that turn before into now: { a, del, b, ins } each, 1-based
--- (a block that adds or removes nothing sits at the line after).
function M.of(before, now)
  local ok, idx = pcall(vim.diff, before or "", now or "", M.opts())
  if not ok then
    idx = vim.diff(before or "", now or "", { result_type = "indices" })
  end
  local out = {}
  for _, d in ipairs(idx) do
    table.insert(
      out,
      { a = d[2] == 0 and d[1] + 1 or d[1], del = d[2], b = d[4] == 0 and d[3] + 1 or d[3], ins = d[4] }
    )
  end
  return out
end

--- The blocks of a changes view's file ({ before, now, others }), each with
--- who (another author of its lines, from the host's runs; "" for the
--- session's own), kept on the file until its text changes.
function M.of_file(f)
  if f.blocks and f.blocks_of == f.now then
    return f.blocks
  end
  local out = M.of(f.before, f.now)
  for _, h in ipairs(out) do
    local who, seen = {}, {}
    for _, o in ipairs(f.others or {}) do
      if o.to >= h.b and o.from <= h.b + h.ins - 1 and not seen[o.who] then
        seen[o.who] = true
        table.insert(who, o.who)
      end
    end
    h.who = table.concat(who, " and ")
  end
  f.blocks, f.blocks_of = out, f.now
  return out
end

--- The line of before that faces line lnum of now (0 above the first).
function M.facing(blocks, lnum)
  local shift = 0
  for _, h in ipairs(blocks or {}) do
    if h.ins > 0 and lnum >= h.b and lnum < h.b + h.ins then
      if h.del == 0 then
        return h.a - 1
      end
      return h.a + math.min(lnum - h.b, h.del - 1)
    end
    if h.b + h.ins <= lnum then
      shift = shift + h.ins - h.del
    end
  end
  return lnum - shift
end

--- Put n blank virtual lines on buf below line row (1-based; 0: above
--- the first), so that two sides in diff mode stay in step with n virtual
--- lines on the other side.
function M.pad(buf, ns, row, n)
  local blank = {}
  for _ = 1, n do
    table.insert(blank, { { "", "" } })
  end
  local count = vim.api.nvim_buf_line_count(buf)
  if row < 1 then
    vim.api.nvim_buf_set_extmark(buf, ns, 0, 0, { virt_lines = blank, virt_lines_above = true })
  else
    vim.api.nvim_buf_set_extmark(buf, ns, math.min(row, count) - 1, 0, { virt_lines = blank })
  end
end

return M
