-- :ClaudeNova rules: the permission rules in effect for the current
-- session's folder, by source (this session's rules added here, the
-- project's local and shared settings, the user's, and those claude was
-- started with). The file rules are first read from the files, then
-- replaced by what claude itself reports (get_settings) when a session
-- runs. dd takes a rule back: a session rule from the session (claude
-- gets the list without it at once), a file rule out of its file.
local notify = require("claudenova.setup.notify")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local draw = require("claudenova.core.render")
local text = require("claudenova.core.text")

local M = {}

local NAME = "claudenova://rules"
local ns = vim.api.nvim_create_namespace("claudenova_rules")

M.buf = nil
M.view = nil
M.rows = {} ---@type table<integer, table> line -> rule entry

local function cfg()
  return config.get()
end

local TITLES = {
  session = "This session (added here; claude enforces them until the session ends)",
  localSettings = "This project, just me",
  projectSettings = "This project, shared",
  userSettings = "All my projects",
  flagSettings = "Given to claude when it started (--settings; read-only here)",
}
local ORDER = { "session", "localSettings", "projectSettings", "userSettings", "flagSettings" }

-- The session's folder as the user reads it: its name when it is the
-- editor's folder, else its path from there or from ~.
local function folder_name(cwd)
  if not cwd or cwd == "" then
    return "this folder"
  end
  local shown = text.shown_path(cwd)
  return shown == "." and (vim.fs.basename(vim.fs.normalize(cwd)) .. "/") or shown
end

local function render()
  local v, buf = M.view, M.buf
  if not (v and buf and vim.api.nvim_buf_is_valid(buf)) then
    return
  end
  local keys = cfg().keymaps.rules
  local lines, hls, rows = {}, {}, {}
  local function add(line, hl)
    table.insert(lines, line)
    if hl then
      table.insert(hls, { #lines - 1, 0, -1, hl })
    end
  end
  add(
    ("Rules for %s%s · %s"):format(
      folder_name(v.cwd),
      v.session ~= 0 and (" (session %d)"):format(v.session) or "",
      v.by_claude and "as claude reads them" or "read from the files"
    ),
    "ClaudeNovaTitle"
  )
  add(
    ("%s remove a rule · %s refresh · %s close · %s keys · running sessions take changes made here at once"):format(
      keys.remove or "-",
      keys.refresh or "-",
      keys.close or "-",
      cfg().keymaps.help or "-"
    ),
    "ClaudeNovaKey"
  )
  local files = {}
  for _, f in ipairs(v.files or {}) do
    files[f.source] = f
  end
  local has = {}
  for _, e in ipairs(v.rules or {}) do
    has[e.source] = true
  end
  for _, src in ipairs(ORDER) do
    if (src ~= "session" or v.session ~= 0) and (src ~= "flagSettings" or has[src]) then
      add("")
      local f = files[src]
      local head = TITLES[src]
      if f then
        head = head .. " — " .. vim.fn.fnamemodify(f.path, ":~:.")
        if not f.exists then
          head = head .. " (no file)"
        end
      end
      add(head, "ClaudeNovaSession")
      if f and f.error then
        add("  ! " .. f.error .. " — claude ignores this file; it is never rewritten here", "ClaudeNovaReason")
      end
      if src == "projectSettings" and v.untrusted then
        add(
          "  claude ignores the allow rules here until you trust this folder (run claude in it once)",
          "ClaudeNovaReason"
        )
      end
      local any = false
      for _, e in ipairs(v.rules or {}) do
        if e.source == src then
          any = true
          add(("  %-5s  %s"):format(e.behavior, e.rule))
          rows[#lines] = e
          table.insert(hls, { #lines - 1, 2, 7, e.behavior == "deny" and "ClaudeNovaRemoved" or "ClaudeNovaAdded" })
        end
      end
      if not any then
        add("  (none)", "Comment")
      end
    end
  end
  draw.lines(buf, ns, lines, hls)
  M.rows = rows
end

--- A new view from the host (claude's own, after get_settings). It may
--- arrive while the request for the files' view is still being answered.
function M.update(view)
  M.claude_view = view
  if M.view and view.cwd == M.view.cwd then
    M.view = view
    render()
  end
end

-- Ask the host; claude's own view, if it came meanwhile, wins.
local function fetch(session, cwd)
  M.claude_view = nil
  local v = calls.request("rules", { session = session, cwd = cwd })
  if M.claude_view and M.claude_view.cwd == v.cwd then
    v = M.claude_view
  end
  return v
end

local function refresh()
  M.view = fetch(M.view and M.view.session or 0, M.view and M.view.cwd or vim.fn.getcwd())
  render()
end

local function set_keymaps(buf)
  local keys = cfg().keymaps.rules
  keytable.map(buf, "rules")
  local guard = errors.guard
  if keys.remove then
    vim.keymap.set(
      "n",
      keys.remove,
      guard(function()
        local e = M.rows[vim.api.nvim_win_get_cursor(0)[1]]
        if not e then
          notify.info("no rule on this line")
          return
        end
        calls.request("remove_rule", e)
        if e.source == "session" then
          notify.info(("removed session rule %s %s: claude no longer enforces it"):format(e.behavior, e.rule))
        else
          notify.info(
            ("removed %s rule %s from %s"):format(e.behavior, e.rule, vim.fn.fnamemodify(e.path or "", ":~:."))
          )
        end
        refresh()
      end),
      {
        buffer = buf,
        nowait = true,
        desc = "claude-nova: Take back the rule under the cursor (from the session, or its settings file)",
      }
    )
  end
  if keys.refresh then
    vim.keymap.set(
      "n",
      keys.refresh,
      guard(refresh),
      { buffer = buf, nowait = true, desc = "claude-nova: Read the rules again" }
    )
  end
  if keys.close then
    vim.keymap.set("n", keys.close, function()
      if #vim.api.nvim_tabpage_list_wins(0) > 1 then
        vim.api.nvim_win_close(0, true)
      else
        vim.cmd("bwipeout")
      end
    end, { buffer = buf, nowait = true, desc = "claude-nova: Close the rules" })
  end
end

--- Open the rules of a session (the current one by default).
function M.open(session)
  local v = fetch(session or 0, vim.fn.getcwd())
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    M.buf = vim.api.nvim_create_buf(false, true)
    errors.try(vim.api.nvim_buf_set_name, M.buf, NAME)
    labels.set(M.buf, "Claude Nova rules")
    vim.bo[M.buf].filetype = "claudenova-rules"
    vim.bo[M.buf].bufhidden = "wipe"
    vim.bo[M.buf].modifiable = false
    set_keymaps(M.buf)
  end
  M.view = v
  render()
  local win = vim.fn.bufwinid(M.buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    require("claudenova.core.split").open(M.buf, 15)
    labels.apply(vim.api.nvim_get_current_win())
  end
  return M.buf
end

return M
