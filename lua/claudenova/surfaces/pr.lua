-- :ClaudeNova pr: the commit message of a worktree branch's pull request,
-- drafted by the host from the session's prompts, in a buffer to edit
-- (claudenova://pr/<branch>, filetype gitcommit). :w hands it to the host,
-- which commits the worktree's uncommitted files with it, pushes the
-- branch and opens the pull request (gh), and tells how that went; wiping
-- the buffer without :w cancels: nothing is committed, nothing pushed.
local errors = require("claudenova.core.errors")
local draw = require("claudenova.core.render")
local actions = require("claudenova.store.actions")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_pr")

--- The comment lines under the message: what :w does, with what (short
--- lines: the window may be narrow).
function M.footer(d)
  local out = { "" }
  local function add(s)
    table.insert(out, "# " .. s)
  end
  local n = #(d.dirty or {})
  if n > 0 then
    add((":w commits the %d uncommitted file%s below"):format(n, n == 1 and "" or "s"))
    add(("on %s with this message,"):format(d.branch))
  else
    local c = d.commits or 0
    add(("%s has nothing uncommitted: this message"):format(d.branch))
    add(("titles the pull request of its %d commit%s; :w"):format(c, c == 1 and "" or "s"))
  end
  if d.remote and d.remote ~= "" then
    add(("pushes the branch to %s%s"):format(d.remote, d.notes and " with the authorship notes" or ""))
    add(("and opens the pull request%s with gh."):format(d.base and d.base ~= "" and (" into " .. d.base) or ""))
  else
    add("and stops: this repository has no remote.")
  end
  add("Close it without :w to cancel.")
  add("Lines starting with # are dropped.")
  for _, f in ipairs(d.dirty or {}) do
    add("  " .. f)
  end
  return out
end

--- Open the draft d (require('claudenova').pr_draft's answer).
function M.open(d)
  local buf = vim.api.nvim_create_buf(false, false)
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  errors.try(vim.api.nvim_buf_set_name, buf, "claudenova://pr/" .. d.branch)
  labels.set(buf, "Pull request · " .. d.branch)
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.b[buf].claudenova_surface = "pr"
  local lines = vim.split(vim.trim(d.message or ""), "\n", { plain = true })
  vim.list_extend(lines, M.footer(d))
  local hls = {}
  for i, l in ipairs(lines) do
    if l:sub(1, 1) == "#" then
      table.insert(hls, { i - 1, 0, -1, "Comment" })
    end
  end
  draw.lines(buf, ns, lines, hls, { editable = true })
  vim.bo[buf].filetype = "gitcommit"
  vim.api.nvim_win_set_height(0, math.max(8, math.min(#lines + 1, math.floor(vim.o.lines / 2))))
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local sent = false
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    buffer = buf,
    desc = "claude-nova: commit, push and open the pull request",
    callback = function()
      local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
      local ok, res = pcall(actions.answer, d.id, "pr_commit", { message = text })
      if not ok then
        notify.error(res)
        return
      end
      sent = true
      vim.bo[buf].modified = false
      notify.info(res and res.message or "pushing…")
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(buf) then
          errors.try(vim.api.nvim_buf_delete, buf, { force = true })
        end
      end)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    desc = "claude-nova: a pull request not saved is cancelled",
    callback = function()
      if not sent then
        notify.info(("pull request of %s cancelled: nothing committed, nothing pushed"):format(d.branch))
      end
    end,
  })
  keytable.map(buf, "pr")
  return buf
end

return M
