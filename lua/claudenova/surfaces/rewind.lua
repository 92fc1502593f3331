-- :ClaudeNova rewind: pick a prompt of the session, see what rewinding to
-- before it restores (claude's dry run), confirm, rewind. Open buffers of the
-- restored files are reloaded; unsaved edits in them are kept in storage
-- first (ui/rescue.lua).
local context = require("claudenova.services.context")
local disk = require("claudenova.services.disk")
local actions = require("claudenova.store.actions")
local calls = require("claudenova.services.calls")
local rescue = require("claudenova.services.rescue")
local text = require("claudenova.core.text")

local M = {}

local notify = require("claudenova.setup.notify")

local first_line = text.first_line

--- One picker line: "3 · 14:02 · fix the login test · 2 files +1 −3"
--- (and "· others' changes kept" when someone changed them since).
function M.line(cp)
  local what
  if cp.error then
    what = "cannot rewind: " .. cp.error
  elseif #cp.files == 0 then
    what = "nothing to restore"
  else
    what = ("%d file%s +%d −%d"):format(#cp.files, #cp.files == 1 and "" or "s", cp.insertions, cp.deletions)
  end
  if #(cp.others or {}) > 0 then
    what = what .. " · others' changes kept"
  end
  return ("%d · %s · %s · %s"):format(cp.n, os.date("%H:%M", cp.time), first_line(cp.prompt, 40), what)
end

-- "greet.py line 2, changed by session 2 at 14:02 (“louder”)"
local function others_words(others, with_lines)
  local out = {}
  for _, o in ipairs(others or {}) do
    local where = with_lines and o.lines ~= "" and (" " .. o.lines) or ""
    table.insert(out, ("%s%s, changed by %s"):format(o.rel, where, o.who))
  end
  return table.concat(out, "; ")
end

local function rel(path, cwd)
  return context.relative(path, cwd)
end

-- After claude restored files: keep unsaved edits, reload the buffers.
-- Returns the files the rewind removed (Claude had created them).
--- The files of checkpoint cp a rewind cannot restore, for one line: a
--- command that wrote thousands has its first few named, the rest counted.
function M.unkept(cp, cwd)
  local names = {}
  for i = 1, math.min(8, #(cp.unkept or {})) do
    names[i] = rel(cp.unkept[i], cwd)
  end
  local more = #(cp.unkept or {}) - #names + (cp.unkept_more or 0)
  return table.concat(names, ", ") .. (more > 0 and (" and %d more"):format(more) or "")
end

local function reload(files, cwd)
  local gone = {}
  for _, f in ipairs(files) do
    local exists = vim.uv.fs_stat(f) ~= nil
    local buf = disk.buf_of(f)
    if buf then
      if vim.bo[buf].modified then
        rescue.keep(buf, rel(f, cwd), "rewound")
      end
      if exists then
        disk.reload(buf)
      end
    end
    if not exists then
      table.insert(gone, rel(f, cwd))
    end
  end
  return gone
end

--- The host's arguments of a rewind to before prompt id.
function M.args(id, session, undo_others)
  return { id = id, session = session or 0, undo_others = undo_others or false }
end

--- Rewind to before prompt id; cb(ok, message) when done. The buffers of
--- the restored files show the restored text.
function M.rewind(id, session, cb, undo_others)
  -- Scheduled: the buffers are reloaded out of the host's call.
  calls.request(
    "rewind",
    M.args(id, session, undo_others),
    vim.schedule_wrap(function(ok, res)
      if not ok then
        cb(false, tostring(res))
        return
      end
      cb(true, M.rewound(res, session))
    end)
  )
end

--- What a rewind did (the host's reply), in words; the buffers of the
--- restored files are reloaded first.
function M.rewound(res, session)
  local cwd = context.cwd(session)
  local files = res.files or {}
  local gone = reload(files, cwd)
  local names = vim.tbl_map(function(f)
    return rel(f, cwd)
  end, files)
  local msg
  if #files == 0 then
    msg = "nothing to restore: the files were as they were before that prompt"
  else
    msg = ("rewound %d file%s: %s"):format(#files, #files == 1 and "" or "s", table.concat(names, ", "))
    if #gone > 0 then
      msg = msg .. " (" .. table.concat(gone, ", ") .. " removed: Claude had created it)"
    end
    if (res.skipped or 0) > 0 then
      msg = msg .. ("; %d linked file(s) left alone"):format(res.skipped)
    end
  end
  if #(res.kept or {}) > 0 then
    msg = msg .. "; others' later changes kept in " .. table.concat(res.kept, ", ")
  end
  return msg
end

local function done(ok, msg)
  if ok then
    notify.info(msg)
  else
    notify.error(msg)
  end
end

-- The choices of a rewind: restore this session's own changes and keep what
-- others (another session, you) changed since, the default; undo theirs too,
-- only when asked; cancel.
local function confirm(cp, session)
  if cp.error then
    notify.warn("prompt " .. cp.n .. ": " .. cp.error)
    return
  end
  local others = cp.others or {}
  if #cp.files == 0 and #others == 0 then
    notify.info(
      "prompt " .. cp.n .. ": nothing to restore (this session changed no file since, or they are as they were)"
    )
    return
  end
  local cwd = context.cwd(session)
  local names = vim.tbl_map(function(f)
    return rel(f, cwd)
  end, cp.files)
  local choices, undo = {}, {}
  if #cp.files > 0 then
    local yes
    if cp.by_claude then
      yes = ("Restore %s as claude recorded them (+%d −%d; later changes by anyone, yours too, go; Bash changes stay)"):format(
        table.concat(names, ", "),
        cp.insertions,
        cp.deletions
      )
    else
      yes = ("Restore %s (+%d −%d)"):format(table.concat(names, ", "), cp.insertions, cp.deletions)
      if #others > 0 then
        yes = yes .. "; kept: " .. others_words(others, false)
      end
      if #(cp.untracked or {}) > 0 then
        yes = yes
          .. "; "
          .. table.concat(cp.untracked, ", ")
          .. " changed before this session was resumed: later changes to it go too"
      end
    end
    if #(cp.unkept or {}) > 0 then
      yes = yes .. "; not restorable (a command changed them, their content before was not kept): " .. M.unkept(cp, cwd)
    end
    table.insert(choices, yes)
    table.insert(undo, false)
  end
  if #others > 0 then
    table.insert(choices, "Restore everything, also undo the change to " .. others_words(others, true) .. " (told so)")
    table.insert(undo, true)
  end
  table.insert(choices, "Cancel")
  local prompt = ("Rewind files to before prompt %d (%q)?"):format(cp.n, first_line(cp.prompt, 40))
  if #cp.files == 0 then
    prompt = ("Prompt %d: its changes now sit under others' (%s)."):format(cp.n, others_words(others, true))
  end
  vim.ui.select(choices, { prompt = prompt }, function(_, i)
    if not i or undo[i] == nil then
      return
    end
    M.rewind(cp.id, cp.session, done, undo[i])
  end)
end

--- :ClaudeNova rewind: pick a prompt of the session (newest first).
function M.pick(session)
  session = session or actions.session_in_view() or 0
  -- Scheduled: a picker never opens inside the host's call.
  calls.request(
    "checkpoints",
    { session = session },
    vim.schedule_wrap(function(ok, list)
      if not ok then
        notify.error(tostring(list))
        return
      end
      if #list == 0 then
        notify.info("this session has no prompt to rewind to yet")
        return
      end
      local items = {}
      for i = #list, 1, -1 do
        table.insert(items, list[i])
      end
      vim.ui.select(items, {
        prompt = "Rewind files to before which prompt?",
        format_item = M.line,
        kind = "claudenova.rewind",
      }, function(cp)
        if cp then
          confirm(cp, session)
        end
      end)
    end)
  )
end

return M
