-- Plan approval (ExitPlanMode): the plan opens as an editable markdown
-- buffer. Approve (into acceptEdits or default) or keep planning with
-- feedback. Closing it leaves the request pending in the sidebar.
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

local M = {}

M.open_ = {} ---@type table<string, {buf: integer, tab: integer|nil, r: table, text: string}>

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
  if params.approve then
    local edited = buffer_text(buf)
    local orig = M.open_[r.id] and M.open_[r.id].text or ""
    if vim.trim(edited) ~= vim.trim(orig) then
      params.plan = edited
    end
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
  M.open_[r.id] =
    { buf = buf, tab = vim.api.nvim_get_current_tabpage(), r = r, text = text, header = hwin, header_buf = hbuf }
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
