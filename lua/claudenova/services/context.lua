-- The editor's context in a prompt: a selection, queued file references,
-- unsaved buffers. Everything here builds prompt text; claudenova.surfaces.prompt
-- shows it (claudenova.surfaces.complete completes it) and claudenova.send sends
-- it.
--
-- claude reads a file named with @path (and @path#L3-5) itself, from disk.
-- A buffer with unsaved changes is therefore never sent as an @reference:
-- its text goes in the prompt instead, saying it is not what is on disk.
local config = require("claudenova.setup.config")
local state = require("claudenova.store.state")

local M = {}

---@type string[] absolute paths queued by :ClaudeNova add, for the next prompt
M.queue = {}

local function cfg()
  return config.get()
end

--- The folder of a session (its cwd), else Neovim's.
function M.cwd(session)
  local st = state
  local s = st.sessions[session or st.current or -1]
  if s and s.cwd and s.cwd ~= "" then
    return s.cwd
  end
  return vim.fn.getcwd()
end

--- path relative to cwd when it is inside it, else absolute.
function M.relative(path, cwd)
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ":p"))
  cwd = vim.fs.normalize(vim.fn.fnamemodify(cwd, ":p")):gsub("/$", "")
  if path:sub(1, #cwd + 1) == cwd .. "/" then
    return path:sub(#cwd + 2)
  end
  return path
end

--- "@path" (quoted when it has spaces), with "#L3-5" for a range.
function M.ref(rel, from, to)
  local p = rel:find("%s") and ('"' .. rel .. '"') or rel
  if from then
    p = p .. ((from == to) and ("#L%d"):format(from) or ("#L%d-%d"):format(from, to))
  end
  return "@" .. p
end

-- A fence longer than any run of backticks in the text.
local function fence(lines)
  local longest = 2
  for _, l in ipairs(lines) do
    for run in l:gmatch("`+") do
      longest = math.max(longest, #run)
    end
  end
  return string.rep("`", longest + 1)
end

local function lang_of(buf)
  local ft = vim.bo[buf].filetype
  if ft == "" then
    return ""
  end
  local ok, lang = pcall(vim.treesitter.language.get_lang, ft)
  return (ok and lang) or ft
end

local function fenced(buf, lines)
  local f = fence(lines)
  local out = { f .. lang_of(buf) }
  vim.list_extend(out, lines)
  table.insert(out, f)
  return out
end

--- The loaded buffer of path with unsaved changes, if any.
local function modified_buf(path)
  local b = vim.fn.bufnr(vim.fn.fnamemodify(path, ":p"))
  if b > 0 and vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
    return b
  end
  return nil
end

local function diagnostics(buf, from, to)
  local out = {}
  local sev = { "error", "warning", "info", "hint" }
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.lnum + 1 >= from and d.lnum + 1 <= to then
      local src = d.source and (" (" .. d.source .. ")") or ""
      table.insert(
        out,
        ("- line %d: %s: %s%s"):format(d.lnum + 1, sev[d.severity] or "note", (d.message:gsub("\n", " ")), src)
      )
    end
  end
  table.sort(out)
  if #out == 0 then
    return out
  end
  table.insert(out, 1, "Diagnostics in these lines:")
  return out
end

--- Lines that give Claude lines from..to (1-based, inclusive) of a buffer
--- (or of a file by path): an @path#L reference and the text in a fenced
--- block with the file's language; for a buffer with unsaved changes, its
--- text only, saying so. opts.cwd: what paths are relative to;
--- opts.diagnostics: override the option.
function M.selection(src, from, to, opts)
  opts = opts or {}
  if from > to then
    from, to = to, from
  end
  local buf, name, lines, lang, modified
  if type(src) == "number" then
    buf = src
    name = vim.api.nvim_buf_get_name(buf)
    lines = vim.api.nvim_buf_get_lines(buf, from - 1, to, false)
    lang = lang_of(buf)
    modified = vim.bo[buf].modified or (name ~= "" and vim.fn.filereadable(name) == 0)
  else
    name = vim.fs.normalize(vim.fn.fnamemodify(src, ":p"))
    buf = modified_buf(name)
    if buf then
      return M.selection(buf, from, to, opts)
    end
    if vim.fn.filereadable(name) == 0 then
      error(("claude-nova: no such file: %s"):format(name), 0)
    end
    lines = vim.list_slice(vim.fn.readfile(name, "", to), from, to)
    local ft = vim.filetype.match({ filename = name }) or ""
    local ok, l = pcall(vim.treesitter.language.get_lang, ft)
    lang = (ok and l) or ft
  end
  local out = {}
  local range = from == to and ("line %d"):format(from) or ("lines %d-%d"):format(from, to)
  if name == "" then
    table.insert(out, ("From an unnamed buffer, %s:"):format(range))
  else
    local rel = M.relative(name, opts.cwd or M.cwd())
    if modified then
      table.insert(
        out,
        ("%s %s (unsaved in the editor: this is its text there, not the file on disk):"):format(rel, range)
      )
    else
      table.insert(out, M.ref(rel, from, to))
    end
  end
  local f = fence(lines)
  table.insert(out, f .. (lang or ""))
  vim.list_extend(out, lines)
  table.insert(out, f)
  local diag = opts.diagnostics
  if diag == nil then
    diag = cfg().context.diagnostics
  end
  if diag and buf then
    vim.list_extend(out, diagnostics(buf, from, to))
  end
  return out
end

--- The prompt as sent by claudenova.send: prompt, then the selection
--- (opts.selection = {path, from, to}, or {buf = n, from, to}), then file
--- references (opts.files, and those queued by :ClaudeNova add), with the
--- text of buffers that have unsaved changes.
function M.build(prompt, opts, cwd)
  opts = opts or {}
  local parts = { prompt }
  local sel = opts.selection
  if sel then
    local src = sel.buf or sel.path or sel[1]
    local from, to = sel.from or sel[2], sel.to or sel[3]
    if not src or not from or not to then
      error("claude-nova: selection needs { path, from, to }", 0)
    end
    table.insert(parts, table.concat(M.selection(src, from, to, { cwd = cwd }), "\n"))
  end
  local refs = {}
  for _, f in ipairs(opts.files or {}) do
    table.insert(refs, M.ref(M.relative(f, cwd)))
  end
  vim.list_extend(refs, M.take(cwd))
  if #refs > 0 then
    table.insert(parts, table.concat(refs, "\n"))
  end
  local text = table.concat(
    vim.tbl_filter(function(p)
      return p and p ~= ""
    end, parts),
    "\n\n"
  )
  return M.expand(text, cwd)
end

--- Queue a file reference for the next prompt. Returns its path relative
--- to the session's folder.
function M.add(path)
  if not path or path == "" then
    path = vim.api.nvim_buf_get_name(0)
    if path == "" then
      error("claude-nova: this buffer has no file to add (:ClaudeNova add {path})", 0)
    end
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(vim.fn.expand(path), ":p"))
  if vim.fn.filereadable(path) == 0 and vim.fn.isdirectory(path) == 0 and not modified_buf(path) then
    error(("claude-nova: no such file: %s"):format(path), 0)
  end
  if not vim.tbl_contains(M.queue, path) then
    table.insert(M.queue, path)
  end
  return M.relative(path, M.cwd())
end

--- The queued references as prompt lines (the queue empties: the prompt
--- holds them now).
function M.take(cwd)
  local out = {}
  for _, p in ipairs(M.queue) do
    table.insert(out, M.ref(M.relative(p, cwd)))
  end
  M.queue = {}
  return out
end

-- @references in text: {start, stop, path, from, to} (byte positions of
-- the whole reference).
local function references(text)
  local refs = {}
  local pos = 1
  while true do
    local s, e = text:find("@", pos, true)
    if not s then
      break
    end
    local before = s == 1 and "" or text:sub(s - 1, s - 1)
    if before == "" or before:match("%s") then
      local path, stop
      if text:sub(s + 1, s + 1) == '"' then
        local q = text:find('"', s + 2, true)
        if q then
          path, stop = text:sub(s + 2, q - 1), q
        end
      else
        local word = text:match("^[^%s]+", s + 1)
        if word then
          path, stop = word, s + #word
        end
      end
      if path then
        local from, to
        local tail = text:sub(stop + 1)
        local a, b = path:match("#L(%d+)%-(%d+)$")
        local one = path:match("#L(%d+)$")
        if a then
          path, from, to = path:gsub("#L%d+%-%d+$", ""), tonumber(a), tonumber(b)
        elseif one then
          path, from, to = path:gsub("#L%d+$", ""), tonumber(one), tonumber(one)
        else
          local ta, tb = tail:match("^#L(%d+)%-(%d+)")
          local tone = tail:match("^#L(%d+)")
          if ta then
            from, to = tonumber(ta), tonumber(tb)
            stop = stop + #("#L" .. ta .. "-" .. tb)
          elseif tone then
            from, to = tonumber(tone), tonumber(tone)
            stop = stop + #("#L" .. tone)
          end
        end
        table.insert(refs, { start = s, stop = stop, path = path, from = from, to = to })
      end
      pos = (stop or e) + 1
    else
      pos = e + 1
    end
  end
  return refs
end

--- Whether text has an @reference to a buffer with unsaved changes (the
--- prompt input marks those lines).
function M.unsaved_refs(text, cwd)
  local out = {}
  for _, r in ipairs(references(text)) do
    local abs = r.path:sub(1, 1) == "/" and r.path or (cwd .. "/" .. r.path)
    if modified_buf(abs) then
      table.insert(out, r.path)
    end
  end
  return out
end

--- The prompt as sent: every @reference to a buffer with unsaved changes
--- becomes a plain mention (claude would read the file on disk) and the
--- buffer's text follows the prompt, saying it is unsaved.
function M.expand(text, cwd)
  cwd = cwd or M.cwd()
  local refs = references(text)
  local blocks = {}
  for i = #refs, 1, -1 do
    local r = refs[i]
    local abs = r.path:sub(1, 1) == "/" and r.path or (cwd .. "/" .. r.path)
    local b = modified_buf(abs)
    if b then
      local label = r.path
      if r.from then
        label = label .. (r.from == r.to and (" line %d"):format(r.from) or (" lines %d-%d"):format(r.from, r.to))
      end
      text = text:sub(1, r.start - 1) .. label .. text:sub(r.stop + 1)
      local lines = vim.api.nvim_buf_get_lines(b, r.from and (r.from - 1) or 0, r.to or -1, false)
      local block = { "", label .. " (unsaved in the editor: this is its text there, not the file on disk):" }
      vim.list_extend(block, fenced(b, lines))
      table.insert(blocks, 1, table.concat(block, "\n"))
    end
  end
  if #blocks > 0 then
    text = text .. "\n" .. table.concat(blocks, "\n")
  end
  return text
end

return M
