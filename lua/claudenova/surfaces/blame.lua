-- :ClaudeNova blame: a sign per line of a file's buffer saying who wrote it:
-- Claude (which session, prompt and time), Claude amended by you in the
-- proposal, or you. The host keeps who wrote what (per session folder, on
-- disk) from every change Claude made; this module asks it for the buffer
-- as it is (lines that differ from what the host knows are yours), draws
-- the signs, and refreshes them as edits land. <CR> on a line shows the
-- turn and its prompt; resting on a line shows its author at the line's
-- end (review.hover).
local comments = require("claudenova.surfaces.comments")
local render = require("claudenova.core.render")
local config = require("claudenova.setup.config")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")
local text = require("claudenova.core.text")

local M = {}

local notify = require("claudenova.setup.notify")

local ns = vim.api.nvim_create_namespace("claudenova_blame")
local hover_ns = vim.api.nvim_create_namespace("claudenova_blame_hover")
M.ns = ns

-- The signs: what each kind of author looks like.
M.SIGNS = {
  claude = { text = "▌", hl = "ClaudeNovaBlameClaude" },
  amended = { text = "▚", hl = "ClaudeNovaBlameAmended" },
  you = { text = "┆", hl = "ClaudeNovaBlameYours" },
}

-- buf -> { path, view = the host's last answer, group }
M.on = {}

local function cfg()
  return config.get()
end

local function draw(buf, v)
  local count = vim.api.nvim_buf_line_count(buf)
  local signs = {}
  for i, a in ipairs(v.lines or {}) do
    if i > count then
      break
    end
    local au = v.authors[a + 1]
    local sign = M.SIGNS[au and au.kind or "you"] or M.SIGNS.you
    signs[i] = { i - 1, 0, { sign_text = sign.text, sign_hl_group = sign.hl, priority = 5 } }
  end
  render.marks(buf, ns, signs)
end

local function rel(path)
  return vim.fn.fnamemodify(path, ":~:.")
end

--- Ask the host who wrote each line of buf as it is, and draw the signs.
function M.refresh(buf, announce)
  local st = M.on[buf]
  if not st or not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    M.on[buf] = nil
    return
  end
  local args = comments.args({ path = st.path })
  if vim.bo[buf].modified then
    args.text = comments.buffer_text(buf)
  end
  local v = calls.request("blame", args)
  st.view = v
  draw(buf, v)
  if announce then
    if not v.known then
      notify.info(
        ("blame on: Claude has not changed %s here, every line is yours (signs follow when it does)"):format(
          rel(st.path)
        )
      )
    else
      local k = text.key(cfg().keymaps.review.blame_info)
      notify.info(
        ("blame: %s shows a line's prompt · %d by Claude, %d amended by you, %d yours"):format(
          k,
          v.claude,
          v.amended,
          v.yours
        )
      )
    end
  end
end

local function schedule(buf)
  local st = M.on[buf]
  if not st or st.queued then
    return
  end
  st.queued = true
  vim.schedule(function()
    if M.on[buf] then
      M.on[buf].queued = false
      errors.guard(M.refresh)(buf)
    end
  end)
end

--- Claude's changes to paths landed (the host's review event).
function M.landed(paths)
  local want = {}
  for _, p in ipairs(paths) do
    want[p] = true
  end
  for buf, st in pairs(M.on) do
    if want[st.path] then
      schedule(buf)
    end
  end
end

--- The author of line lnum of buf (nil when blame is off there).
function M.author(buf, lnum)
  local st = M.on[buf]
  local v = st and st.view
  local a = v and v.lines and v.lines[lnum]
  return a and v.authors[a + 1]
end

--- <CR>: who wrote the cursor's line, its turn and prompt, in a float.
function M.info()
  local buf = vim.api.nvim_get_current_buf()
  local au = M.author(buf, vim.api.nvim_win_get_cursor(0)[1])
  if not au then
    notify.info("blame is off here (:ClaudeNova blame)")
    return
  end
  local lines = { au.label }
  if au.kind == "you" then
    lines = { "Yours: Claude did not write this line (it was there before, or you wrote it)." }
  else
    if au.kind == "amended" then
      table.insert(lines, "Claude wrote it; you amended it in the proposal before it was applied.")
    end
    if au.name and au.name ~= "" then
      table.insert(lines, "Session: " .. au.name)
    end
    if au.claude_id and au.claude_id ~= "" and au.commit and au.commit ~= "" then
      table.insert(lines, "Claude session: " .. au.claude_id)
    end
    if au.model and au.model ~= "" then
      table.insert(lines, "Model: " .. au.model)
    end
    if au.commit and au.commit ~= "" then
      table.insert(
        lines,
        ("Commit: %s (its authorship note, :ClaudeNova provenance %s)"):format(au.commit:sub(1, 7), au.commit:sub(1, 7))
      )
    end
    if au.commit and au.commit ~= "" and (au.turn or 0) == 0 and (au.prompt or "") == "" then
      -- known from the note alone: nothing more to say
    elseif au.turn and au.turn > 0 then
      table.insert(lines, ("Prompt %d:"):format(au.turn))
      for _, l in ipairs(vim.split(au.prompt or "", "\n", { plain = true })) do
        if #lines >= 14 then
          table.insert(lines, "  …")
          break
        end
        table.insert(lines, "  " .. l)
      end
    else
      table.insert(lines, "A turn claude started by itself (a background task ended).")
    end
  end
  vim.lsp.util.open_floating_preview(lines, "", {
    border = "rounded",
    focus = false,
    max_width = math.max(30, math.floor(vim.o.columns * 0.7)),
    close_events = { "CursorMoved", "CursorMovedI", "BufLeave", "InsertEnter" },
  })
end

local function hover(buf)
  local marks = {}
  if cfg().review.hover and vim.api.nvim_get_current_buf() == buf then
    local lnum = vim.api.nvim_win_get_cursor(0)[1]
    local au = M.author(buf, lnum)
    if au and au.kind ~= "you" then
      marks[1] = {
        lnum - 1,
        0,
        { virt_text = { { "  " .. au.label, "ClaudeNovaBlameInfo" } }, virt_text_pos = "eol", hl_mode = "combine" },
      }
    end
  end
  render.marks(buf, hover_ns, marks)
end

--- Turn blame off in buf.
function M.off(buf)
  local st = M.on[buf]
  M.on[buf] = nil
  if not st then
    return
  end
  errors.try(vim.api.nvim_del_augroup_by_id, st.group)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.api.nvim_buf_clear_namespace(buf, hover_ns, 0, -1)
    if st.mapped then
      errors.try(vim.keymap.del, "n", st.mapped, { buffer = buf })
    end
  end
end

--- :ClaudeNova blame: toggle the signs in buf (the current buffer).
function M.toggle(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  if M.on[buf] then
    M.off(buf)
    notify.info("blame off")
    return false
  end
  local path = comments.path_of(buf)
  if not path then
    error("claude-nova: blame shows in a file's buffer (this one has no file)", 0)
  end
  comments.ensure()
  local group = vim.api.nvim_create_augroup("ClaudeNovaBlame" .. buf, { clear = true })
  local st = { path = path, group = group }
  M.on[buf] = st
  local ok, err = pcall(M.refresh, buf, true)
  if not ok then
    M.off(buf)
    error(err, 0)
  end
  vim.api.nvim_create_autocmd({ "TextChanged", "InsertLeave", "BufWritePost", "BufReadPost", "FileChangedShellPost" }, {
    group = group,
    buffer = buf,
    desc = "claude-nova: who wrote each line, again after an edit",
    callback = function()
      schedule(buf)
    end,
  })
  vim.api.nvim_create_autocmd("CursorHold", {
    group = group,
    buffer = buf,
    desc = "claude-nova: who wrote the cursor's line, at its end",
    callback = function()
      hover(buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "CursorMoved", "InsertEnter" }, {
    group = group,
    buffer = buf,
    desc = "claude-nova: clear the author at the line's end",
    callback = function()
      vim.api.nvim_buf_clear_namespace(buf, hover_ns, 0, -1)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    buffer = buf,
    once = true,
    desc = "claude-nova: blame off with the buffer",
    callback = function()
      M.on[buf] = nil
    end,
  })
  local lhs = cfg().keymaps.review.blame_info
  if lhs then
    local mine = vim.fn.maparg(text.key(lhs), "n", false, true)
    if not (mine and mine.buffer == 1) then
      vim.keymap.set(
        "n",
        lhs,
        errors.guard(M.info),
        { buffer = buf, desc = "claude-nova: Who wrote this line: its turn and prompt" }
      )
      st.mapped = lhs
    end
  end
  return true
end

comments.on_landed(function(paths)
  M.landed(paths)
end)

return M
