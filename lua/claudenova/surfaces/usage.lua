-- :ClaudeNova usage: what a session cost and used, what fills its context
-- window, and the plan's rate limits, as claude reports them (get_usage,
-- get_context_usage), in a float.
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local draw = require("claudenova.core.render")
local keytable = require("claudenova.services.keys")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")

local M = {}

local function money(x)
  return ("$%.4f"):format(tonumber(x) or 0)
end

local function secs(ms)
  return ("%.1f s"):format((tonumber(ms) or 0) / 1000)
end

local function thousands(n)
  n = tonumber(n) or 0
  if n >= 10000 then
    return ("%.1fk"):format(n / 1000)
  end
  return tostring(math.floor(n))
end

--- The float's lines for a get_usage answer.
function M.lines(label, u)
  local s = u.session or {}
  local out = {
    label,
    "",
    ("Cost        %s"):format(money(s.total_cost_usd)),
    ("Time        %s in the API, %s in all"):format(secs(s.total_api_duration_ms), secs(s.total_duration_ms)),
    ("Lines       +%d −%d"):format(tonumber(s.total_lines_added) or 0, tonumber(s.total_lines_removed) or 0),
  }
  local names = vim.tbl_keys(s.model_usage or {})
  table.sort(names)
  for _, name in ipairs(names) do
    local m = s.model_usage[name]
    table.insert(
      out,
      ("Model       %s: %s in, %s out, %s cached · %s"):format(
        name,
        thousands(m.inputTokens),
        thousands(m.outputTokens),
        thousands((m.cacheReadInputTokens or 0) + (m.cacheCreationInputTokens or 0)),
        money(m.costUSD)
      )
    )
  end
  if type(u.context) == "table" and (u.context.max or 0) > 0 then
    -- What fills the context window (get_context_usage), largest first.
    local c = u.context
    table.insert(out, "")
    table.insert(
      out,
      ("Context     %s of %s tokens (%d%%)"):format(
        thousands(c.tokens),
        thousands(c.max),
        math.floor((c.percent or 0) + 0.5)
      )
    )
    local cats = vim.deepcopy(c.categories or {})
    table.sort(cats, function(a, b)
      return (a.tokens or 0) > (b.tokens or 0)
    end)
    for _, cat in ipairs(cats) do
      if (cat.tokens or 0) > 0 then
        table.insert(
          out,
          ("  %-22s %8s%s"):format(
            cat.name,
            thousands(cat.tokens),
            (cat.kind == "free" or cat.kind == "buffer" or cat.kind == "deferred") and (" (" .. cat.kind .. ")") or ""
          )
        )
      end
    end
  end
  table.insert(out, "")
  if u.rate_limits_available and type(u.rate_limits) == "table" then
    for _, w in ipairs({
      { "five_hour", "5-hour limit" },
      { "seven_day", "7-day limit" },
      { "seven_day_opus", "7-day Opus" },
    }) do
      local r = u.rate_limits[w[1]]
      if type(r) == "table" and r.utilization ~= nil and r.utilization ~= vim.NIL then
        table.insert(
          out,
          ("%-11s %d%% used%s"):format(
            w[2],
            math.floor(r.utilization + 0.5),
            (r.resets_at and r.resets_at ~= vim.NIL) and (", resets " .. r.resets_at) or ""
          )
        )
      end
    end
  else
    table.insert(
      out,
      ("Plan limits none reported (%s)"):format(
        (u.subscription_type and u.subscription_type ~= vim.NIL) and u.subscription_type
          or "an API key has no plan limits"
      )
    )
  end
  return out
end

local ns = vim.api.nvim_create_namespace("claudenova_usage")

-- The names of the figures M.lines writes, at the start of their lines.
local LABELS =
  { "Cost", "Time", "Lines", "Model", "Context", "5-hour limit", "7-day limit", "7-day Opus", "Plan limits" }

--- The float's highlights: its heading, and the name of each figure.
local function highlights(lines)
  local hls = { { 0, 0, -1, "Title" } }
  for i, l in ipairs(lines) do
    for _, name in ipairs(LABELS) do
      if i > 1 and vim.startswith(l, name .. " ") then
        table.insert(hls, { i - 1, 0, #name, "Label" })
        break
      end
    end
  end
  return hls
end

local function show(lines)
  local buf = vim.api.nvim_create_buf(false, true)
  draw.lines(buf, ns, lines, highlights(lines))
  vim.bo[buf].bufhidden = "wipe"
  vim.b[buf].claudenova_surface = "usage"
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l) + 1)
  end
  width = math.min(width, vim.o.columns - 4)
  -- The float wraps: its height is the screen lines its lines take.
  local height = 0
  for _, l in ipairs(lines) do
    height = height + math.max(1, math.ceil(vim.fn.strdisplaywidth(l) / width))
  end
  height = math.min(height, vim.o.lines - 4)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    title = " claude-nova: usage ",
    title_pos = "center",
  })
  vim.wo[win].wrap = true
  for _, lhs in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", lhs, function()
      errors.try(vim.api.nvim_win_close, win, true)
    end, { buffer = buf, nowait = true, desc = "claude-nova: Close the usage" })
  end
  keytable.map(buf, "usage")
  return buf, win
end

--- Ask claude for the usage of a session (the current one by default) and
--- show it when it answers.
function M.open(session)
  local st = state
  local sid = session or st.current
  calls.request("usage", { session = sid or 0 }, function(ok, res)
    if not ok then
      notify.error(res)
      return
    end
    show(M.lines("Usage of " .. st.label(sid or 0), res or {}))
  end)
end

return M
