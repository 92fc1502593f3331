-- Plan approval (ExitPlanMode): the plan opens as an editable markdown
-- buffer. Approve (into acceptEdits or default) or keep planning with
-- feedback; line comments (keymaps.plan.comment, shown as virtual lines
-- that follow the edits) go with either, quoted by the host with their
-- lines. Closing it leaves the request pending in the sidebar (and forgets
-- its comments).
local actions = require("claudenova.store.actions")
local draw = require("claudenova.core.render")
local config = require("claudenova.setup.config")
local header = require("claudenova.services.header")
local tabs = require("claudenova.core.tabs")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local scheduler = require("claudenova.services.scheduler")
local gesture = require("claudenova.core.gesture")
local state = require("claudenova.store.state")
local textutil = require("claudenova.core.text")
local comments = require("claudenova.surfaces.comments")
local errors = require("claudenova.core.errors")

local M = {}

---@class claudenova.PlanComment
---@field text string
---@field top integer|nil extmark of its first line
---@field bottom integer|nil extmark of its last line (carries the text)

---@type table<string, {buf: integer, tab: integer|nil, r: table, text: string, comments: claudenova.PlanComment[]}>
M.open_ = {}

local ns = vim.api.nvim_create_namespace("claudenova_plan_comments")
M.ns = ns

--- The comments of the plan in buf where they are now (their marks follow
--- the edits): { from, to, text } (1-based), in line order.
function M.comments_of(buf)
  local p = M.open_[vim.b[buf].claudenova_request or ""]
  local out = {}
  for _, c in ipairs(p and p.comments or {}) do
    local top = c.top and vim.api.nvim_buf_get_extmark_by_id(buf, ns, c.top, {})
    local bottom = c.bottom and vim.api.nvim_buf_get_extmark_by_id(buf, ns, c.bottom, {})
    if top and top[1] and bottom and bottom[1] then
      table.insert(out, { from = top[1] + 1, to = math.max(top[1], bottom[1]) + 1, text = c.text, c = c })
    end
  end
  return comments.by_line(out)
end

-- Draw the comments of plan p (kept at their marks' places).
local function draw_comments(p, places)
  local buf = p.buf
  local count = vim.api.nvim_buf_line_count(buf)
  local width = comments.text_width(buf)
  local placed, kept = {}, {}
  for _, at in ipairs(places) do
    local top = math.min(math.max(at.from, 1), count) - 1
    local bottom = math.min(math.max(at.to, at.from), count) - 1
    local vl = comments.virt_lines(at, "", width, "…")
    -- Lines put in above a commented line push its marks down with it.
    table.insert(placed, { top, 0, {} })
    table.insert(placed, { bottom, 0, { virt_lines = vl } })
    table.insert(kept, at.c or { text = at.text })
  end
  local ids = draw.marks(buf, ns, placed)
  for i, c in ipairs(kept) do
    c.top, c.bottom = ids[2 * i - 1], ids[2 * i]
  end
  p.comments = kept
end

--- Comment on lines l1-l2 of the plan in buf (the text asked when not
--- given). On a line that has a comment, the answer replaces its text; an
--- empty answer removes it.
function M.comment(buf, l1, l2, text)
  local p = M.open_[vim.b[buf].claudenova_request or ""]
  if not p then
    error("claude-nova: this buffer is not an open plan", 0)
  end
  local places = M.comments_of(buf)
  local hit
  for _, at in ipairs(places) do
    if l1 == l2 and at.from <= l1 and l1 <= at.to then
      hit = at
    end
  end
  local function go(t)
    if t == nil then
      return -- cancelled
    end
    t = vim.trim(t)
    if hit then
      for i, at in ipairs(places) do
        if at == hit then
          if t == "" then
            table.remove(places, i)
          else
            at.c.text, at.text = t, t
          end
        end
      end
    elseif t ~= "" then
      table.insert(places, { from = l1, to = l2, text = t })
    else
      notify.info("an empty comment is not kept")
    end
    draw_comments(p, places)
    vim.cmd("redrawstatus")
  end
  if text then
    return go(text)
  end
  local where = l2 > l1 and ("lines %d-%d"):format(l1, l2) or ("line %d"):format(l1)
  vim.ui.input({
    prompt = ("Comment on the plan's %s%s: "):format(where, hit and " (empty removes it)" or ""),
    default = hit and hit.text or nil,
  }, go)
end

--- The winbar of the plan window being drawn, fitted to its width: the
--- keys before whose plan it is (they are the only way to answer).
function M.winbar_of()
  local win, buf = textutil.drawn()
  local p = buf and M.open_[vim.b[buf].claudenova_request or ""]
  if not p then
    return ""
  end
  local keymaps = config.get().keymaps
  local keys = keymaps.plan
  local text = textutil
  local key = text.key
  if scheduler.in_grace(buf) then
    return "%#ClaudeNovaWinbar#"
      .. text.fit({ "Plan", "keys wait a moment", state.request_label(p.r) }, vim.api.nvim_win_get_width(win))
  end
  return "%#ClaudeNovaWinbar#"
    .. text.fit({
      "Plan",
      ("%s accept edits"):format(key(keys.accept_edits)),
      ("%s approve"):format(key(keys.approve)),
      ("%s keep planning"):format(key(keys.keep_planning)),
      keys.comment and ("%s comment"):format(key(keys.comment)) or nil,
      #p.comments == 1 and "1 comment" or #p.comments > 1 and ("%d comments"):format(#p.comments) or nil,
      state.request_label(p.r),
      keymaps.help and (key(keymaps.help) .. " keys") or nil,
    }, vim.api.nvim_win_get_width(win))
end

local function cfg()
  return config.get()
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

local function decide(r, buf, params)
  local edited = buffer_text(buf)
  local orig = M.open_[r.id] and M.open_[r.id].text or ""
  local notes = {}
  for _, at in ipairs(M.comments_of(buf)) do
    table.insert(notes, { from = at.from, to = at.to, text = at.text })
  end
  -- The comments name lines of the plan as the user sees it: it goes with
  -- them, edited or not.
  if #notes > 0 or vim.trim(edited) ~= vim.trim(orig) then
    params.plan = edited
  end
  if #notes > 0 then
    params.comments = notes
  end
  local ok, err = pcall(actions.answer, r.id, "plan", params)
  if not ok then
    notify.error(err)
  end
end

local function set_keymaps(buf, r)
  local keys = cfg().keymaps.plan
  keytable.map(buf, "plan")
  local maps = {
    accept_edits = {
      function()
        decide(r, buf, { approve = true, mode = "acceptEdits" })
      end,
      "Approve the plan and accept edits",
    },
    approve = {
      function()
        decide(r, buf, { approve = true, mode = "default" })
      end,
      "Approve the plan, ask for each edit",
    },
    keep_planning = {
      function()
        vim.ui.input({ prompt = "Keep planning — what should change? " }, function(fb)
          if fb == nil then
            return
          end
          decide(r, buf, { approve = false, feedback = fb })
        end)
      end,
      "Keep planning (send feedback)",
    },
    deny_stop = {
      function()
        actions.deny_stop(r.id, "surface")
      end,
      "Reject the plan and end the turn",
    },
  }
  if keys.comment then
    -- Commenting is no decision: no grace to wait out.
    vim.keymap.set("n", keys.comment, function()
      local l = vim.api.nvim_win_get_cursor(0)[1]
      errors.guard(M.comment)(buf, l, l)
    end, { buffer = buf, desc = "claude-nova plan: Comment on this line" })
    vim.keymap.set("x", keys.comment, function()
      local a, b = vim.fn.line("v"), vim.fn.line(".")
      vim.cmd("normal! \27")
      errors.guard(M.comment)(buf, math.min(a, b), math.max(a, b))
    end, { buffer = buf, desc = "claude-nova plan: Comment on the selected lines" })
  end
  for name, m in pairs(maps) do
    if keys[name] then
      -- Deciding keys wait out the grace period of a plan that opened on its own.
      vim.keymap.set(
        "n",
        keys[name],
        gesture.wrap(scheduler.guard(buf, m[1])),
        { buffer = buf, desc = "claude-nova plan: " .. m[2] }
      )
    end
  end
end

function M.open(r, opts)
  opts = opts or {}
  local existing = M.open_[r.id]
  if existing and vim.api.nvim_buf_is_valid(existing.buf) then
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(w) == existing.buf then
        vim.api.nvim_set_current_win(w)
        return
      end
    end
  end
  local text = r.plan ~= "" and r.plan or "(Claude did not write a plan.)"
  vim.cmd("tabnew")
  local buf = vim.api.nvim_get_current_buf()
  labels.name_buf(buf, "Plan · " .. state.request_label(r))
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modeline = false
  vim.b[buf].claudenova_request = r.id
  vim.b[buf].claudenova_surface = "plan"
  draw.lines(buf, nil, vim.split(text, "\n", { plain = true }), nil, { editable = true })
  vim.bo[buf].filetype = "markdown"
  vim.wo.winbar = "%!v:lua.require'claudenova.core.text'.winbar('plan')"
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    buffer = buf,
    desc = "claude-nova: the plan is sent with your approval, not written",
    callback = function()
      vim.bo[buf].modified = false
      notify.info("your edits will be sent when you approve the plan")
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    desc = "claude-nova: closing the plan leaves it pending",
    callback = function()
      if M.open_[r.id] and M.open_[r.id].buf == buf then
        M.open_[r.id] = nil
      end
    end,
  })
  set_keymaps(buf, r)
  local hwin, hbuf = header.open(vim.api.nvim_get_current_win(), r.said)
  M.open_[r.id] = {
    buf = buf,
    tab = vim.api.nvim_get_current_tabpage(),
    r = r,
    text = text,
    header = hwin,
    header_buf = hbuf,
    comments = {},
  }
  if opts.grace then
    scheduler.start_grace(buf, function()
      vim.cmd("redrawstatus!")
    end)
  end
end

--- The request left the registry: close the plan, and its tab once only
--- claude-nova windows remain there.
function M.withdraw(id)
  local p = M.open_[id]
  if not p then
    return
  end
  M.open_[id] = nil
  tabs.close(p.tab, { p.buf, p.header_buf })
  header.close(p.header)
  tabs.wipe({ p.buf })
end

textutil.register_winbar("plan", M.winbar_of)

return M
