-- Small text helpers shared by the surfaces. Go sanitizes everything it
-- sends; these only split and format.
local M = {}

--- Split a (possibly multi-line) value into buffer lines.
function M.lines(s)
  s = tostring(s or "")
  if s == "" then
    return { "" }
  end
  local out = vim.split(s, "\n", { plain = true })
  if out[#out] == "" and #out > 1 then
    table.remove(out)
  end
  return out
end

--- A human age: "5s", "3m", "2h".
function M.age(arrived_ms)
  local secs = math.max(0, os.time() - math.floor((arrived_ms or 0) / 1000))
  if secs < 60 then
    return secs .. "s"
  elseif secs < 3600 then
    return math.floor(secs / 60) .. "m"
  end
  return math.floor(secs / 3600) .. "h"
end

--- "Label: value" lines; continuation lines indented under the value.
function M.fields(fields)
  local out = {}
  for _, f in ipairs(fields or {}) do
    local vals = M.lines(f.value)
    table.insert(out, ("%s: %s"):format(f.label, vals[1]))
    for i = 2, #vals do
      table.insert(out, "    " .. vals[i])
    end
  end
  return out
end

--- A key as the user types it: <leader>/<localleader> spelled out.
function M.key(lhs)
  if not lhs then
    return "-"
  end
  local leader = vim.g.mapleader or "\\"
  local localleader = vim.g.maplocalleader or "\\"
  return (lhs:gsub("<[lL]ocal[lL]eader>", localleader):gsub("<[lL]eader>", leader))
end

return M
