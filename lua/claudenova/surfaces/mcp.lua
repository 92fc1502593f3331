-- :ClaudeNova mcp: the MCP servers of the session in view, as its claude
-- reports them (system/init and mcp_status): each server's name, scope,
-- transport, status, the CLI's error when it failed, how many tools it
-- gives; plugins and servers that did not load. Keys reconnect a server
-- (mcp_reconnect: after its command was fixed, it comes up) and enable or
-- disable it (mcp_toggle). It follows the host's world events while shown.
local errors = require("claudenova.core.errors")
local world = require("claudenova.services.world")
local config = require("claudenova.setup.config")
local gesture = require("claudenova.core.gesture")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")
local text = require("claudenova.core.text")
local draw = require("claudenova.core.render")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_mcp")

M.bufs = {} ---@type table<integer, integer> session id -> its buffer
M.rows = {} ---@type table<integer, table<integer, table>> buffer -> line -> server

local function cfg()
  return config.get()
end

local function key(lhs)
  return lhs and text.key(lhs) or "-"
end

-- How to get a server that needs a sign-in going: claude's own /mcp.
local function auth_hint(sid)
  local s = state.sessions[sid]
  local dir = s and s.cwd and vim.fn.fnamemodify(s.cwd, ":~") or "its folder"
  return ("needs you to sign in: run claude in %s, type /mcp and sign in to it there; then %s here reconnects"):format(
    dir,
    key(cfg().keymaps.mcp.reconnect)
  )
end

local function render(sid)
  local buf = M.bufs[sid]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    return
  end
  local keys = cfg().keymaps.mcp
  local w = world.worlds[sid]
  local lines, hls, rows = {}, {}, {}
  local function add(line, hl, s, e)
    table.insert(lines, line)
    if hl then
      table.insert(hls, { #lines - 1, s or 0, e or -1, hl })
    end
  end
  add(("MCP servers of %s"):format(state.label(sid)), "ClaudeNovaTitle")
  add(
    ("%s reconnect · %s enable/disable · %s refresh · %s close · %s keys"):format(
      key(keys.reconnect),
      key(keys.toggle),
      key(keys.refresh),
      key(keys.close),
      key(cfg().keymaps.help)
    ),
    "ClaudeNovaKey"
  )
  add("")
  local servers = w and w.mcp or {}
  if not w or (#servers == 0 and not w.asked) then
    add("asking claude…", "Comment")
  elseif #servers == 0 then
    add("claude reports no MCP server for this session (.mcp.json, claude mcp add, plugins)", "Comment")
  end
  for _, m in ipairs(servers) do
    local line = world.server_line(m)
    local bad = m.status ~= "connected" and m.status ~= "disabled"
    add(line, bad and "ClaudeNovaMCPFailed" or "ClaudeNovaSession")
    rows[#lines] = m
    if m.command and m.command ~= "" then
      add("  " .. m.command, "Comment")
      rows[#lines] = m
    end
    if m.error and m.error ~= "" then
      add("  error: " .. m.error, "ClaudeNovaReason")
      rows[#lines] = m
    end
    if m.status == "needs-auth" then
      add("  " .. auth_hint(sid), "ClaudeNovaReason")
      rows[#lines] = m
    elseif m.status == "failed" then
      add(("  fix its command or config, then %s reconnects it"):format(key(keys.reconnect)), "Comment")
      rows[#lines] = m
    elseif m.status == "disabled" then
      add(("  %s enables it again"):format(key(keys.toggle)), "Comment")
      rows[#lines] = m
    end
    if m.status == "connected" and m.tool_names and #m.tool_names > 0 then
      add("  tools: " .. table.concat(m.tool_names, ", "), "Comment")
      rows[#lines] = m
    end
  end
  if w and #(w.errors or {}) > 0 then
    add("")
    add("Did not load", "ClaudeNovaSession")
    for _, e in ipairs(w.errors) do
      add(
        ("  %s %s: %s"):format(e.kind == "plugin" and "plugin" or "MCP server", e.name, e.message),
        "ClaudeNovaReason"
      )
    end
  end
  draw.lines(buf, ns, lines, hls)
  M.rows[buf] = rows
end

--- The world of session sid changed: redraw its view, if shown.
function M.changed(sid)
  render(sid)
end
world.on_change(function(sid)
  M.changed(sid)
end)

local function server_under_cursor(buf)
  local m = (M.rows[buf] or {})[vim.api.nvim_win_get_cursor(0)[1]]
  if not m then
    notify.info("no MCP server on this line")
  end
  return m
end

local function say(ok, res)
  if ok then
    notify.info(type(res) == "table" and res.message or "done")
  else
    notify.error(tostring(res))
  end
end

local function set_keymaps(buf, sid)
  local keys = cfg().keymaps.mcp
  local guard = gesture.wrap
  local function map(name, fn, desc)
    if keys[name] then
      vim.keymap.set("n", keys[name], guard(fn), { buffer = buf, nowait = true, desc = "claude-nova: " .. desc })
    end
  end
  map("reconnect", function()
    local m = server_under_cursor(buf)
    if m then
      notify.info(("reconnecting %s…"):format(m.name))
      calls.request("mcp_reconnect", { session = sid, server = m.name }, say)
    end
  end, "Reconnect the MCP server under the cursor")
  map("toggle", function()
    local m = server_under_cursor(buf)
    if m then
      local enable = m.status == "disabled"
      notify.info(("%s %s…"):format(enable and "enabling" or "disabling", m.name))
      calls.request("mcp_toggle", { session = sid, server = m.name, enabled = enable }, say)
    end
  end, "Enable or disable the MCP server under the cursor")
  map("refresh", function()
    calls.request("mcp_refresh", { session = sid }, function(ok, res)
      if not ok then
        notify.error(tostring(res))
      end
    end)
  end, "Ask claude for its MCP servers again")
  map("close", function()
    if #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(0, true)
    else
      vim.cmd("bwipeout")
    end
  end, "Close the MCP servers")
  keytable.map(buf, "mcp")
end

--- Open the MCP servers of a session (the one in view by default).
function M.open(session)
  local v = calls.request("mcp", { session = session or 0 })
  local sid = v.session
  world.update(v.world)
  local buf = M.bufs[sid]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    errors.try(vim.api.nvim_buf_set_name, buf, "claudenova://mcp/" .. sid)
    labels.set(buf, function()
      return "MCP · " .. state.label(sid)
    end)
    vim.bo[buf].filetype = "claudenova-mcp"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].modifiable = false
    vim.b[buf].claudenova_surface = "mcp"
    vim.b[buf].claudenova_mcp = sid
    set_keymaps(buf, sid)
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      desc = "claude-nova: forget the MCP view",
      callback = function()
        M.bufs[sid], M.rows[buf] = nil, nil
      end,
    })
    M.bufs[sid] = buf
  end
  render(sid)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    labels.apply(win)
  end
  -- An error or a key hint is never cut: long lines wrap.
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  -- The cursor on the first server that is not connected.
  local first
  for lnum, m in pairs(M.rows[buf] or {}) do
    if m.status ~= "connected" and (not first or lnum < first) then
      first = lnum
    end
  end
  if first then
    vim.api.nvim_win_set_cursor(0, { first, 0 })
  end
  return buf
end

--- The lines of session sid's view (for tests and :ClaudeNova mcp users).
function M.lines(sid)
  local buf = M.bufs[sid]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    return {}
  end
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

return M
