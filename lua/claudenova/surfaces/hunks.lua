-- Per-hunk review of a proposal: the hunks of Claude's change (the original
-- against Claude's proposal, computed by the host) are tracked through the
-- user's edits with extmarks. The user may put the original's lines back
-- for a hunk (reject), put Claude's back (restore), and attach a note for
-- Claude to a hunk. What the user did travels with the save (review()).
-- The buffer stays a normal editable buffer: do, dp, ]c and [c still work.
local blocks = require("claudenova.core.blocks")
local notify = require("claudenova.setup.notify")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_hunks")
local notes_ns = vim.api.nvim_create_namespace("claudenova_hunk_notes")

---@class claudenova.Hunk
---@field n integer number of the hunk, from 1
---@field mark integer extmark covering its lines in the proposal
---@field orig string[] the original's lines
---@field prop string[] Claude's lines
---@field from integer first line of the hunk in Claude's proposal
---@field note string|nil

--- Place the hunks in the proposal buffer p.buf (after it was loaded, or
--- reloaded by a rebase). Notes of hunks that are replaced are kept as
--- notes on the whole change.
function M.place(p, hunks)
  vim.api.nvim_buf_clear_namespace(p.buf, ns, 0, -1)
  for _, h in ipairs(p.hunks or {}) do
    if h.note then
      p.loose_notes = p.loose_notes or {}
      table.insert(p.loose_notes, h.note)
    end
  end
  p.hunks = {}
  p.hunk_review = hunks ~= nil
  local count = vim.api.nvim_buf_line_count(p.buf)
  for i, h in ipairs(hunks or {}) do
    local row = math.min(h.prop_start - 1, count)
    local end_row = math.min(row + #h.prop, count)
    local mark = vim.api.nvim_buf_set_extmark(p.buf, ns, row, 0, {
      end_row = end_row,
      end_col = 0,
      right_gravity = false,
      end_right_gravity = true,
      strict = false,
    })
    p.hunks[i] = { n = i, mark = mark, orig = h.orig or {}, prop = h.prop or {}, from = h.prop_start }
  end
  M.render(p)
end

-- The rows [start, end) a hunk covers now.
local function range(p, h)
  local m = vim.api.nvim_buf_get_extmark_by_id(p.buf, ns, h.mark, { details = true })
  if not m or not m[1] then
    return nil
  end
  return m[1], (m[3] and m[3].end_row) or m[1]
end

local function lines_of(p, h)
  local s, e = range(p, h)
  if not s then
    return nil
  end
  return vim.api.nvim_buf_get_lines(p.buf, s, e, false)
end

--- The hunk under the cursor (0-based row): one whose lines hold it, else a
--- deletion right there.
function M.at(p, row)
  local near
  for _, h in ipairs(p.hunks or {}) do
    local s, e = range(p, h)
    if s and row >= s and row < e then
      return h
    end
    if s and s == e and (row == s or row == s - 1) then
      near = near or h
    end
  end
  return near
end

local function put(p, h, lines)
  local s, e = range(p, h)
  vim.api.nvim_buf_set_lines(p.buf, s, e, false, lines)
  vim.api.nvim_buf_set_extmark(p.buf, ns, s, 0, {
    id = h.mark,
    end_row = s + #lines,
    end_col = 0,
    right_gravity = false,
    end_right_gravity = true,
    strict = false,
  })
end

local function same(a, b)
  if #a ~= #b then
    return false
  end
  for i = 1, #a do
    if a[i] ~= b[i] then
      return false
    end
  end
  return true
end

--- How a hunk stands now: "rejected" (the original's lines), "claude"
--- (Claude's lines) or "edited".
function M.state(p, h)
  local now = lines_of(p, h) or {}
  if same(now, h.orig) then
    return "rejected"
  elseif same(now, h.prop) then
    return "claude"
  end
  return "edited"
end

local function say(msg)
  notify.info(msg)
end

local function here(p)
  if not p.hunk_review then
    say("this proposal has too many hunks to review one by one; edit it as a whole")
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local h = M.at(p, row)
  if not h then
    say("no hunk of Claude's change under the cursor")
  end
  return h
end

--- Put the original's lines back for the hunk under the cursor.
function M.reject(p)
  local h = here(p)
  if h then
    put(p, h, h.orig)
    M.render(p)
  end
end

--- Put Claude's lines back for the hunk under the cursor.
function M.restore(p)
  local h = here(p)
  if h then
    put(p, h, h.prop)
    M.render(p)
  end
end

--- Attach (or edit, or with an empty text remove) a note for Claude to the
--- hunk under the cursor.
function M.note(p)
  local h = here(p)
  if not h then
    return
  end
  vim.ui.input({ prompt = ("Note for Claude on hunk %d: "):format(h.n), default = h.note or "" }, function(text)
    if text == nil then
      return
    end
    h.note = vim.trim(text) ~= "" and text or nil
    if vim.api.nvim_buf_is_valid(p.buf) then
      M.render(p)
    end
  end)
end

--- Counts for the winbar: hunks, rejected, notes.
function M.tally(p)
  local t = { hunks = #(p.hunks or {}), rejected = 0, notes = #(p.loose_notes or {}) }
  for _, h in ipairs(p.hunks or {}) do
    if M.state(p, h) == "rejected" then
      t.rejected = t.rejected + 1
    end
    if h.note then
      t.notes = t.notes + 1
    end
  end
  return t
end

--- Show notes as virtual lines above their hunks, and refresh the winbar.
function M.render(p)
  if not vim.api.nvim_buf_is_valid(p.buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(p.buf, notes_ns, 0, -1)
  local orig = p.orig and vim.api.nvim_buf_is_valid(p.orig) and p.orig
  if orig then
    vim.api.nvim_buf_clear_namespace(orig, notes_ns, 0, -1)
  end
  local count = vim.api.nvim_buf_line_count(p.buf)
  local drawn
  for _, h in ipairs(p.hunks or {}) do
    local s = range(p, h)
    if h.note and s then
      local above = s < count
      vim.api.nvim_buf_set_extmark(p.buf, notes_ns, math.min(s, count - 1), 0, {
        virt_lines = { { { "  ✎ " .. h.note:gsub("\n", " "), "ClaudeNovaNote" } } },
        virt_lines_above = above,
      })
      if orig then
        -- The original's side keeps in step with a blank line where it
        -- faces the note (below the line facing the one above it).
        drawn = drawn
          or blocks.of(
            table.concat(vim.api.nvim_buf_get_lines(orig, 0, -1, false), "\n"),
            table.concat(vim.api.nvim_buf_get_lines(p.buf, 0, -1, false), "\n")
          )
        local at = above and s or count -- the note sits below proposal line `at`
        blocks.pad(orig, notes_ns, at < 1 and 0 or blocks.facing(drawn, at), 1)
      end
    end
  end
  if p.on_change then
    p.on_change()
  end
end

local function range_of(h)
  return { hunk = h.n, from = h.from, to = h.from + #h.prop - 1 }
end

--- What the user did, for the host: notes (on a hunk, or on the whole
--- change) and the hunks that hold the original's lines.
function M.review(p)
  local r = { hunks = #(p.hunks or {}), notes = {}, rejected = {} }
  for _, text in ipairs(p.loose_notes or {}) do
    table.insert(r.notes, { hunk = 0, from = 0, to = 0, text = text })
  end
  for _, h in ipairs(p.hunks or {}) do
    if h.note then
      local n = range_of(h)
      n.text = h.note
      table.insert(r.notes, n)
    end
    if vim.api.nvim_buf_is_valid(p.buf) and M.state(p, h) == "rejected" then
      table.insert(r.rejected, range_of(h))
    end
  end
  if #r.notes == 0 then
    r.notes = vim.NIL -- encodes as null: no notes
  end
  if #r.rejected == 0 then
    r.rejected = vim.NIL
  end
  return r
end

return M
