-- Small text helpers shared by the surfaces. Go sanitizes everything it
-- sends; these only split and format.
local errors = require("claudenova.core.errors")

local M = {}

--- The screen cells s takes, as strdisplaywidth() counts them from the
--- first column. Printable ASCII, most of what the surfaces draw, is
--- counted here: a call into Vimscript for every line and key hint was a
--- third of the time a panel took to lay out.
function M.width(s)
  if not s:find("[^\32-\126]") then
    return #s
  end
  return vim.fn.strdisplaywidth(s)
end

--- Split a (possibly multi-line) value into buffer lines.
function M.lines(s)
  s = tostring(s or "")
  if not s:find("\n", 1, true) then
    return { s } -- most values are one line: no split
  end
  local out = vim.split(s, "\n", { plain = true })
  if out[#out] == "" and #out > 1 then
    table.remove(out)
  end
  return out
end

--- The wall clock (Unix seconds): os.time, or a test's.
M.time = os.time

--- A human age: "5s", "3m", "2h".
function M.age(arrived_ms)
  local secs = math.max(0, M.time() - math.floor((arrived_ms or 0) / 1000))
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

-- What a cut line may not end with before its …
local DANGLING = { " ", "(", "[", "{", "·", ",", ":", ";" }

--- s cut with … to fit width screen cells (s itself when it fits).
function M.cut(s, width)
  if M.width(s) <= width then
    return s
  end
  local out = vim.fn.strcharpart(s, 0, width - 1)
  while M.width(out) > width - 1 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  -- The … follows a word, not an opening bracket or a separator: "make a
  -- file (…" reads as a cut bracket, "make a file…" as a cut line.
  local trimmed = out
  local again = true
  while again do
    again = false
    for _, tail in ipairs(DANGLING) do
      if #trimmed > #tail and trimmed:sub(-#tail) == tail then
        trimmed, again = trimmed:sub(1, -#tail - 1), true
      end
    end
  end
  -- Nor a bracket opened on a fragment: "hello.txt (1…" goes back to
  -- "hello.txt…".
  local before = trimmed:match("^(.-)%s*[%(%[{][^%s%)%]}]?[^%s%)%]}]?$")
  if before and before ~= "" then
    trimmed = before
  end
  return (trimmed ~= "" and trimmed or out) .. "…"
end

--- s cut to width like M.cut, its end that matches pattern kept whole (an
--- attempt's number: "3 · fix-the-lo… #2" for pattern " #%d+$").
function M.cut_keeping(s, width, pattern)
  if M.width(s) <= width then
    return s
  end
  local tail = s:match(pattern)
  if not tail or tail == s or width - M.width(tail) < 2 then
    return M.cut(s, width)
  end
  return M.cut(s:sub(1, #s - #tail), width - M.width(tail)) .. tail
end

--- s wrapped into lines of at most width cells at spaces only, never in a
--- word ('linebreak' would also break at . : - and the like: 'breakat' is a
--- global option the plugin leaves alone); a word wider than width is cut
--- where it must be. indent (a string) starts the lines after the first.
function M.wrap(s, width, indent)
  indent = indent or ""
  width = math.max(width, M.width(indent) + 8)
  local out, line = {}, ""
  local function push()
    table.insert(out, line)
    line = indent
  end
  for word in s:gmatch("%S+") do
    local lead = (line == "" or line == indent) and "" or " "
    if M.width(line .. lead .. word) <= width then
      line = line .. lead .. word
    else
      if line ~= "" and line ~= indent then
        push()
      end
      while M.width(line .. word) > width do
        local room = width - M.width(line)
        local n = 0
        while n < vim.fn.strchars(word) and M.width(vim.fn.strcharpart(word, 0, n + 1)) <= room do
          n = n + 1
        end
        n = math.max(n, 1)
        line = line .. vim.fn.strcharpart(word, 0, n)
        word = vim.fn.strcharpart(word, n)
        push()
      end
      line = line .. word
    end
  end
  if line ~= "" and line ~= indent or #out == 0 then
    table.insert(out, line)
  end
  return out
end

--- A path as a person in the editor's folder reads it: relative to `from`
--- (the editor's folder by default) when inside it, else from ~.
function M.shown_path(path, from)
  path = vim.fs.normalize(path)
  from = vim.fs.normalize(from or vim.fn.getcwd()):gsub("/$", "")
  if path == from then
    return "."
  end
  if path:sub(1, #from + 1) == from .. "/" then
    return path:sub(#from + 2)
  end
  return vim.fn.fnamemodify(path, ":~")
end

--- The first line of s that is not blank, trimmed and cut with … to width
--- cells: how a prompt is named in a picker or a message.
function M.first_line(s, width)
  for line in tostring(s or ""):gmatch("[^\n]+") do
    line = vim.trim(line)
    if line ~= "" then
      return M.cut(line, width)
    end
  end
  return ""
end

--- A bar of parts joined by " · " that fits width cells: the first part
--- always (cut with … when it alone is too wide), then each next part that
--- still fits, in order (a narrow window drops hints, never cuts one in
--- the middle). Escaped for 'statusline'/'winbar'.
function M.fit(parts, width)
  local out = parts[1] or ""
  if M.width(out) > width then
    return (M.cut(out, width):gsub("%%", "%%%%"))
  end
  for i = 2, #parts do
    local p = parts[i]
    if p and p ~= "" and M.width(out .. " · " .. p) <= width then
      out = out .. " · " .. p
    end
  end
  return (out:gsub("%%", "%%%%"))
end

--- The window whose bar is being drawn and its buffer (nil when gone).
function M.drawn()
  local win = vim.g.statusline_winid
  local ok, buf = pcall(vim.api.nvim_win_get_buf, win)
  if ok then
    return win, buf
  end
end

-- The winbar functions of the surfaces, by name (each surface registers
-- its own when it loads: this module requires none of them).
local winbars = {} ---@type table<string, fun(): string>

--- Register surface name's winbar function (the bar of the window being
--- drawn: see M.drawn).
function M.register_winbar(name, fn)
  winbars[name] = fn
end

--- The 'winbar' expression of a surface ("%!v:lua.require'claudenova.core.text'.winbar('plan')"):
--- the registered winbar function of the surface for the window being
--- drawn. An error is logged and an empty bar drawn (an error while drawing
--- would stop every redraw).
function M.winbar(surface)
  local fn = winbars[surface]
  if not fn then
    return ""
  end
  local ok, res = pcall(fn)
  if ok then
    return res
  end
  errors.log("error", "winbar: " .. tostring(res))
  return ""
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
