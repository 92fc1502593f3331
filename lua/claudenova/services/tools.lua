-- The editor side of the editor tools (Go: rplugin/editortools): each call
-- gathers data from the live editor and hands it back; the host checks the
-- arguments and writes what Claude reads. Calls arrive from the host
-- (M.call, inside its RPC request): a call that must wait (a language
-- server, a buffer we load) returns at once and answers later with the
-- tool_reply notification. Nothing here calls the host synchronously.
--
-- Positions are 1-based lines and 1-based character columns.
local disk = require("claudenova.services.disk")
local errs = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")

local M = {}

local has011 = vim.fn.has("nvim-0.11") == 1

---@type table<string, fun(a: table, done: fun(res: table|nil, err: string|nil), ctx: table)>
local H = {}
M.handlers = H

-- ---------------------------------------------------------------- helpers

local function norm(p)
  return vim.fs.normalize(p)
end

local function real(p)
  return vim.uv.fs_realpath(p) or p
end

--- The buffer of path (loaded or not), or nil.
local function find_buf(path)
  path = norm(path)
  local rp
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name ~= "" then
      name = norm(name)
      if name == path then
        return b
      end
      rp = rp or real(path)
      if real(name) == rp then
        return b
      end
    end
  end
  return nil
end

local function loaded(b)
  return b and vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_is_loaded(b)
end

--- A file buffer (not a claude-nova surface, a terminal, a help page).
local function file_buf(b)
  return vim.bo[b].buftype == "" and not vim.b[b].claudenova_surface and vim.api.nvim_buf_get_name(b) ~= ""
end

--- The window the user works in: the current one, else the previous
--- one when the current is a claude-nova window (transcript, prompt).
local function user_win()
  local cur = vim.api.nvim_get_current_win()
  if file_buf(vim.api.nvim_win_get_buf(cur)) then
    return cur
  end
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and file_buf(vim.api.nvim_win_get_buf(prev)) then
    return prev
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if file_buf(vim.api.nvim_win_get_buf(w)) then
      return w
    end
  end
  return cur
end

--- 1-based character column of 1-based byte column col in line.
local function charcol(line, col)
  if col <= 1 or not line:find("[\128-\255]") then
    return math.max(col, 1)
  end
  return vim.fn.strchars(line:sub(1, col - 1)) + 1
end

local function buf_line(b, lnum)
  return vim.api.nvim_buf_get_lines(b, lnum, lnum + 1, false)[1] or ""
end

local function tostr(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

--- The diagnostics of buffer b as the host reads them, added to set (a
--- new one when nil): {paths = {...}, items = {...}}, each item naming its
--- file by its index in paths (0-based), so a path is sent once. With
--- limit, only the file's limit most severe are sent (in the file's order,
--- as many as the answer can list), and set.counts has its count of each
--- severity ({errors, warnings, infos, hints}, one per path): a file's
--- thousand hints are counted, not copied, read and sent.
local function diags_of(b, set, limit)
  set = set or { paths = {}, items = {} }
  local opts, n, keep = nil, nil, nil
  if limit then
    -- Counted without a copy; copied are only the severities the answer
    -- can hold, from the most severe down.
    local c = vim.diagnostic.count(b)
    n = { c[1] or 0, c[2] or 0, c[3] or 0, c[4] or 0 }
    local upto, before = 4, 0
    for sev = 1, 4 do
      if before + n[sev] >= limit then
        upto = sev
        break
      end
      before = before + n[sev]
    end
    -- Of the least severe kept, the first ones (as the host's cut keeps).
    keep = { [upto] = limit - before }
    opts = { severity = { min = upto } }
  end
  local ds = vim.diagnostic.get(b, opts)
  if #ds == 0 then
    return set
  end
  local file = #set.paths
  set.paths[file + 1] = vim.api.nvim_buf_get_name(b)
  if n then
    set.counts = set.counts or {}
    set.counts[file + 1] = n
  end
  local out = set.items
  local lines = {}
  for _, d in ipairs(ds) do
    local room = keep and keep[d.severity]
    if room then
      keep[d.severity] = room - 1
    end
    if not room or room > 0 then
      local l = lines[d.lnum]
      if not l then
        l = buf_line(b, d.lnum)
        lines[d.lnum] = l
      end
      out[#out + 1] = {
        file = file,
        line = d.lnum + 1,
        col = charcol(l, (d.col or 0) + 1),
        severity = d.severity,
        source = tostr(d.source),
        code = tostr(d.code),
        message = tostr(d.message),
      }
    end
  end
  return set
end

--- Load path into a buffer (unlisted: the user's buffer list stays as it
--- was) so that its language servers attach. Only where the host says so
--- (a.may_load: inside the session's boundary, which the host keeps): a
--- file elsewhere is read only when the user opened it.
local function load(a)
  if not a.may_load then
    return nil, ("%s is outside the session's folders and not open in the editor"):format(a.path)
  end
  if vim.fn.filereadable(a.path) == 0 then
    return nil, ("no such file: %s"):format(a.path)
  end
  local b = vim.fn.bufadd(a.path)
  vim.fn.bufload(b)
  return b
end

--- Every client attached to b, those still initializing included (0.11+
--- leave them out unless asked; 0.10 ignores the key and lists them).
local function attached(b)
  return vim.lsp.get_clients({ bufnr = b, _uninitialized = true })
end

local function client_names(clients)
  local out = {}
  for _, c in ipairs(clients) do
    out[#out + 1] = c.name
  end
  return out
end

local function supports(c, method, b)
  if has011 then
    return c:supports_method(method, b)
  end
  return c.supports_method(method, { bufnr = b })
end

local function request(c, method, params, handler, b)
  if has011 then
    return c:request(method, params, handler, b)
  end
  return c.request(method, params, handler, b)
end

local function cancel(c, id)
  if has011 then
    errs.try(c.cancel_request, c, id)
  else
    errs.try(c.cancel_request, id)
  end
end

--- Run fn every 25 ms (scheduled) until it returns true. An error in fn
--- stops it and goes to fail: every call gets its answer.
local function poll(fn, fail)
  local timer = vim.uv.new_timer()
  local stopped = false
  local function stop()
    if not stopped then
      stopped = true
      timer:stop()
      timer:close()
    end
  end
  timer:start(
    0,
    25,
    vim.schedule_wrap(function()
      if stopped then
        return
      end
      local ok, res = pcall(fn)
      if not ok then
        stop()
        fail(errs.message(res))
      elseif res then
        stop()
      end
    end)
  )
end

-- How long a buffer we just loaded may take to get a language server. A
-- server is started from the FileType autocommand of the load itself, at
-- once or a tick later (vim.lsp.enable with a root_dir function schedules
-- it): a plain file with no server costs every change this much, no more.
local ATTACH_GRACE = 100

--- Call cb(supported, clients) once a client of b serves method: at once
--- when one does, after waiting for a server to attach to a buffer we just
--- loaded (fresh) or for an attached one to finish initializing, never past
--- deadline.
local function await_clients(b, method, fresh, deadline, cb, fail)
  local start = vim.uv.now()
  poll(function()
    local clients = attached(b)
    local ok, initializing = {}, false
    for _, c in ipairs(clients) do
      if not c.initialized then
        initializing = true
      elseif supports(c, method, b) then
        ok[#ok + 1] = c
      end
    end
    local now = vim.uv.now()
    local waiting = (#clients == 0 and fresh and now - start < ATTACH_GRACE) or (#ok == 0 and initializing)
    if #ok > 0 or not waiting or now >= deadline then
      cb(ok, clients)
      return true
    end
  end, fail)
end

--- Wait until b's diagnostics settle after a change: its clients reported
--- and then stayed quiet for a while, or no client serves it, or the wait
--- ran out. cb({timed_out}).
local QUIET = 300
local function settle(b, fresh, wait, cb, fail)
  local start = vim.uv.now()
  local grace = fresh and ATTACH_GRACE or 0 -- for a server to attach to a buffer we loaded
  local deadline = start + grace + wait
  local last
  local au = vim.api.nvim_create_autocmd("DiagnosticChanged", {
    buffer = b,
    desc = "claude-nova: diagnostics after a change",
    callback = function()
      last = vim.uv.now()
    end,
  })
  poll(function()
    local now = vim.uv.now()
    local clients = attached(b)
    local done, timed_out = false, false
    if #clients == 0 and now - start >= grace then
      done = true -- no language server: nothing more will come
    elseif last and now - last >= QUIET then
      done = true
    elseif now >= deadline then
      done, timed_out = true, true
    end
    if done then
      errs.try(vim.api.nvim_del_autocmd, au)
      cb({ timed_out = timed_out, clients = client_names(clients) })
    end
    return done
  end, function(err)
    errs.try(vim.api.nvim_del_autocmd, au)
    fail(err)
  end)
end

--- The buffer of a.path, loaded (cb(b, fresh)), or an error.
local function with_buffer(a, done, cb)
  local b = find_buf(a.path)
  if loaded(b) then
    return cb(b, false)
  end
  local nb, err = load(a)
  if not nb then
    return done(nil, err)
  end
  cb(nb, true)
end

-- ---------------------------------------------------------------- tools

function H.open_buffers(_, done)
  local uw = user_win()
  local cur = vim.api.nvim_win_get_buf(uw)
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[b].buflisted and file_buf(b) then
      local wins = vim.fn.win_findbuf(b)
      local is_loaded = vim.api.nvim_buf_is_loaded(b)
      local cursor = 0
      if b == cur then
        cursor = vim.api.nvim_win_get_cursor(uw)[1]
      elseif #wins > 0 then
        cursor = vim.api.nvim_win_get_cursor(wins[1])[1]
      elseif is_loaded then
        cursor = vim.api.nvim_buf_get_mark(b, '"')[1]
      end
      out[#out + 1] = {
        path = vim.api.nvim_buf_get_name(b),
        filetype = vim.bo[b].filetype,
        modified = vim.bo[b].modified,
        visible = #wins > 0,
        current = b == cur,
        cursor_line = cursor,
        lines = is_loaded and vim.api.nvim_buf_line_count(b) or 0,
        loaded = is_loaded,
      }
    end
  end
  done({ buffers = out })
end

function H.buffer_text(a, done)
  local b = find_buf(a.path)
  if not loaded(b) then
    return done({ open = false, path = a.path })
  end
  local name = vim.api.nvim_buf_get_name(b)
  local total = vim.api.nvim_buf_line_count(b)
  local from = math.max(a.start_line or 1, 1)
  local to = math.min(a.end_line or total, total, from + (a.max or 2000) - 1)
  local lines = {}
  if from <= to then
    lines = vim.api.nvim_buf_get_lines(b, from - 1, to, false)
  else
    to = from - 1
  end
  done({
    open = true,
    path = name,
    modified = vim.bo[b].modified,
    on_disk = vim.uv.fs_stat(name) ~= nil,
    filetype = vim.bo[b].filetype,
    from = from,
    to = to,
    total = total,
    lines = lines,
  })
end

local kinds = { v = "char", V = "line", ["\22"] = "block" }

function H.selection(_, done)
  local win = user_win()
  local b = vim.api.nvim_win_get_buf(win)
  local mode = vim.api.nvim_get_mode().mode:sub(1, 1)
  local kind, p1, p2
  if win == vim.api.nvim_get_current_win() and kinds[mode] then
    -- In visual mode now: the selection being made.
    kind = kinds[mode]
    local v, c = vim.fn.getpos("v"), vim.fn.getpos(".")
    p1, p2 = { v[2], v[3] }, { c[2], c[3] }
    if p1[1] > p2[1] or (p1[1] == p2[1] and p1[2] > p2[2]) then
      p1, p2 = p2, p1
    end
  else
    local s, e = vim.api.nvim_buf_get_mark(b, "<"), vim.api.nvim_buf_get_mark(b, ">")
    if s[1] > 0 and e[1] > 0 then
      kind = kinds[vim.fn.visualmode()] or "char"
      p1, p2 = { s[1], s[2] + 1 }, { e[1], e[2] + 1 }
    end
  end
  local total = vim.api.nvim_buf_line_count(b)
  if not kind then
    local l = vim.api.nvim_win_get_cursor(win)[1]
    kind, p1, p2 = "cursor", { l, 1 }, { l, 1 }
  end
  p1[1], p2[1] = math.min(p1[1], total), math.min(p2[1], total)
  local lines = vim.api.nvim_buf_get_lines(b, p1[1] - 1, p2[1], false)
  local first, last = lines[1] or "", lines[#lines] or ""
  local c1, c2 = charcol(first, p1[2]), charcol(last, math.min(p2[2], #last))
  if kind == "char" and #lines > 0 then
    -- Cut the ends (byte columns; the last one inclusive, whole characters).
    local e = math.min(p2[2], #last)
    if e > 0 then
      e = e + (vim.str_utf_end and vim.str_utf_end(last, e) or 0)
    end
    if #lines == 1 then
      lines[1] = first:sub(p1[2], e)
    else
      lines[1] = first:sub(p1[2])
      lines[#lines] = last:sub(1, e)
    end
  elseif kind == "block" then
    local ok, region = pcall(vim.fn.getregion, { b, p1[1], p1[2], 0 }, { b, p2[1], p2[2], 0 }, { type = "\22" })
    if ok and type(region) == "table" then
      lines = region
    end
    c1 = charcol(first, math.min(p1[2], p2[2]))
  end
  if kind == "line" or kind == "cursor" then
    c1, c2 = 1, math.max(vim.fn.strchars(last), 1)
  end
  done({
    path = vim.api.nvim_buf_get_name(b),
    kind = kind,
    from_line = p1[1],
    from_col = c1,
    to_line = p2[1],
    to_col = c2,
    modified = vim.bo[b].modified,
    filetype = vim.bo[b].filetype,
    lines = lines,
  })
end

function H.diagnostics(a, done, ctx)
  local limit = tonumber(a.limit)
  if a.path then
    local b = find_buf(a.path)
    if loaded(b) then
      return done({ open = true, diagnostics = diags_of(b, nil, limit) })
    end
    if not a.may_load or vim.fn.filereadable(a.path) == 0 then
      return done({ open = false })
    end
    local nb = load(a)
    return settle(nb, true, math.min(ctx.wait, 3000), function()
      done({ open = true, diagnostics = diags_of(nb, nil, limit) })
    end, ctx.fail)
  end
  local set, n = nil, 0
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and file_buf(b) then
      n = n + 1
      set = diags_of(b, set, limit)
    end
  end
  done({ open = true, loaded = n, diagnostics = set })
end

--- The position (LSP) of 1-based line and character column in b.
local function position(b, line, col, enc)
  local text = buf_line(b, line - 1)
  local byte = vim.fn.byteidx(text, col - 1)
  if byte < 0 then
    byte = #text
  end
  local prefix = text:sub(1, byte)
  local ch = #prefix
  if enc == "utf-16" then
    local _, astral = prefix:gsub("[\240-\247]", "")
    ch = vim.fn.strchars(prefix) + astral
  elseif enc == "utf-32" then
    ch = vim.fn.strchars(prefix)
  end
  return { line = line - 1, character = ch }
end

local function locations(result, enc)
  if result == nil or result == vim.NIL then
    return {}
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  local out = {}
  for _, it in ipairs(vim.lsp.util.locations_to_items(result, enc)) do
    out[#out + 1] = { path = it.filename, line = it.lnum, col = charcol(it.text or "", it.col), text = it.text or "" }
  end
  return out
end

local function kind_name(k)
  return vim.lsp.protocol.SymbolKind[k] or "Symbol"
end

local function symbols(result, path, out, depth, container)
  out = out or {}
  for _, s in ipairs(type(result) == "table" and result or {}) do
    local range = s.selectionRange or s.range or (s.location and s.location.range)
    local file = path
    if s.location and s.location.uri then
      file = vim.uri_to_fname(s.location.uri)
    end
    out[#out + 1] = {
      name = tostr(s.name),
      kind = kind_name(s.kind),
      path = file or "",
      line = range and range.start.line + 1 or 0,
      col = range and range.start.character + 1 or 0,
      detail = tostr(s.detail),
      container = tostr(s.containerName or container),
      depth = depth or 0,
    }
    if type(s.children) == "table" then
      symbols(s.children, path, out, (depth or 0) + 1, s.name)
    end
  end
  return out
end

--- Ask every client of b (or every running client, b nil) that serves
--- method; collect(result, client) is called for each answer; then done.
local function ask_clients(clients, method, params_of, b, deadline, collect, finish, fail)
  local pending, ids = 0, {}
  local errors, finished = {}, false
  local function maybe_finish(timed_out)
    if finished then
      return
    end
    if pending == 0 or timed_out then
      finished = true
      if timed_out then
        for c, id in pairs(ids) do
          cancel(c, id)
        end
      end
      finish(errors, timed_out)
    end
  end
  for _, c in ipairs(clients) do
    local ok, id = request(c, method, params_of(c), function(err, result)
      ids[c] = nil
      pending = pending - 1
      if err then
        errors[#errors + 1] = ("%s: %s"):format(c.name, tostr(err.message))
      else
        local cok, cerr = pcall(collect, result, c)
        if not cok then
          errors[#errors + 1] = ("%s: %s"):format(c.name, tostring(cerr))
        end
      end
      maybe_finish(false)
    end, b)
    if ok then
      pending = pending + 1
      ids[c] = id
    end
  end
  if pending == 0 then
    return maybe_finish(false)
  end
  poll(function()
    if finished then
      return true
    end
    if vim.uv.now() >= deadline then
      maybe_finish(true)
      return true
    end
  end, fail)
end

-- An LSP tool's answer before anything is collected: which clients the
-- buffer has and which of them support the method.
local function lsp_result(method, clients, ok)
  return {
    method = method,
    clients = client_names(clients),
    supported = client_names(ok),
    locations = {},
    hover = {},
    symbols = {},
  }
end

local function lsp_position_tool(method, collect_kind)
  return function(a, done, ctx)
    with_buffer(a, done, function(b, fresh)
      await_clients(b, method, fresh, ctx.deadline, function(ok, clients)
        local res = lsp_result(method, clients, ok)
        if #ok == 0 then
          return done(res)
        end
        if a.line and a.line > vim.api.nvim_buf_line_count(b) then
          return done(
            nil,
            ("%s has %d lines; there is no line %d"):format(a.path, vim.api.nvim_buf_line_count(b), a.line)
          )
        end
        ask_clients(
          ok,
          method,
          function(c)
            local p = { textDocument = { uri = vim.uri_from_bufnr(b) } }
            if collect_kind ~= "symbols" then
              p.position = position(b, a.line, a.column, c.offset_encoding)
            end
            if method == "textDocument/references" then
              p.context = { includeDeclaration = true }
            end
            return p
          end,
          b,
          ctx.deadline,
          function(result, c)
            if collect_kind == "locations" then
              vim.list_extend(res.locations, locations(result, c.offset_encoding))
            elseif collect_kind == "hover" then
              if result and result ~= vim.NIL and result.contents then
                vim.list_extend(res.hover, vim.lsp.util.convert_input_to_markdown_lines(result.contents))
              end
            else
              symbols(result, vim.api.nvim_buf_get_name(b), res.symbols)
            end
          end,
          function(errors, timed_out)
            res.errors, res.timed_out = errors, timed_out
            done(res)
          end,
          ctx.fail
        )
      end, ctx.fail)
    end)
  end
end

H.lsp_definition = lsp_position_tool("textDocument/definition", "locations")
H.lsp_references = lsp_position_tool("textDocument/references", "locations")
H.lsp_hover = lsp_position_tool("textDocument/hover", "hover")
H.document_symbols = lsp_position_tool("textDocument/documentSymbol", "symbols")

function H.workspace_symbols(a, done, ctx)
  local method = "workspace/symbol"
  local clients = vim.lsp.get_clients()
  local ok = {}
  for _, c in ipairs(clients) do
    if supports(c, method) then
      ok[#ok + 1] = c
    end
  end
  local res = lsp_result(method, clients, ok)
  if #ok == 0 then
    return done(res)
  end
  ask_clients(
    ok,
    method,
    function()
      return { query = a.query or "" }
    end,
    nil,
    ctx.deadline,
    function(result)
      symbols(result, nil, res.symbols)
    end,
    function(errors, timed_out)
      res.errors, res.timed_out = errors, timed_out
      done(res)
    end,
    ctx.fail
  )
end

--- Not a tool: after Claude changed a.path on disk, reload it (or load it)
--- and report its diagnostics before and after (see editortools.AfterChange).
function H.after_change(a, done, ctx)
  local b = find_buf(a.path)
  local fresh, baseline, before = false, false, nil
  if loaded(b) then
    if vim.bo[b].modified then
      return done({ skipped = "the buffer has unsaved changes" })
    end
    before, baseline = diags_of(b), true
    -- Reload what Claude wrote (cursor and views kept): the language
    -- servers read the buffer, not the disk.
    disk.reload(b)
  else
    local nb, err = load(a)
    if not nb then
      return done({ skipped = err })
    end
    b, fresh = nb, true
  end
  settle(b, fresh, a.wait or 2000, function(r)
    done({ baseline = baseline, before = before, after = diags_of(b), clients = r.clients, timed_out = r.timed_out })
  end, ctx.fail)
end

-- ---------------------------------------------------------------- entry

local function encode(ok, res, err)
  return vim.json.encode({ ok = ok, result = res, error = err })
end

--- Called by the host (inside its request): run tool name with args (JSON)
--- and return the reply (JSON), or "" when it comes later (tool_reply).
--- wait: milliseconds the host waits for the answer.
function M.call(token, name, args, wait)
  local h = H[name]
  if not h then
    return encode(false, nil, "the editor has no tool " .. tostring(name))
  end
  local ok_args, a = pcall(vim.json.decode, args, { luanil = { object = true, array = true } })
  if not ok_args or type(a) ~= "table" then
    return encode(false, nil, "bad arguments for " .. name)
  end
  wait = tonumber(wait) or 5000
  local ctx = { wait = wait, deadline = vim.uv.now() + wait }
  local sync, reply = true, nil
  local done
  ctx.fail = function(err)
    done(nil, ("%s failed in the editor: %s"):format(name, err))
  end
  done = function(res, err)
    if reply then
      return
    end
    reply = encode(err == nil, res, err)
    if not sync then
      vim.schedule(function()
        errs.try(calls.notify, "tool_reply", { token = token, ok = err == nil, result = res, error = err })
      end)
    end
  end
  local ok, err = pcall(h, a, done, ctx)
  if not ok then
    ctx.fail(errs.message(err))
  end
  sync = false
  return reply or ""
end

--- For :checkhealth: the language servers attached to buffer b, and
--- whether each serves the methods the tools use.
function M.servers(b)
  local out = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = b })) do
    local serves = {}
    for _, m in ipairs({
      "textDocument/definition",
      "textDocument/references",
      "textDocument/hover",
      "textDocument/documentSymbol",
      "workspace/symbol",
    }) do
      if supports(c, m, b) then
        serves[#serves + 1] = m:gsub("^.*/", "")
      end
    end
    out[#out + 1] = { name = c.name, serves = serves }
  end
  return out
end

return M
