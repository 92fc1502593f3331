-- :ClaudeNova provenance [rev]: the authorship note of a commit, as a
-- person reads it, in a split: per file the lines Claude wrote (which
-- session, prompt, model) and the lines you amended in its proposals, then
-- the prompts. The host reads the note (refs/notes/ai, the Git AI
-- standard) and words it; this module shows it.
local errors = require("claudenova.core.errors")
local draw = require("claudenova.core.render")
local calls = require("claudenova.services.calls")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local state = require("claudenova.store.state")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_provenance")

--- The folder whose repository is meant: the current file's (for a
--- proposal, the real file's, not the staged copy's in storage; for a
--- transcript, its session's), else Neovim's.
function M.cwd()
  local r = state.requests[vim.b.claudenova_request or ""]
  local s = state.sessions[vim.b.claudenova_session or (r and r.session) or -1]
  local dirs = {}
  if r and r.path and r.path ~= "" then
    table.insert(dirs, vim.fn.fnamemodify(r.path, ":p:h"))
  end
  if s and s.cwd and s.cwd ~= "" then
    table.insert(dirs, s.cwd)
  end
  for _, dir in ipairs(dirs) do
    if vim.fn.isdirectory(dir) == 1 then
      return dir
    end
  end
  local name = vim.api.nvim_buf_get_name(0)
  if name ~= "" and vim.bo.buftype == "" and not vim.b.claudenova_surface then
    local dir = vim.fn.fnamemodify(name, ":p:h")
    if vim.fn.isdirectory(dir) == 1 then
      return dir
    end
  end
  return vim.fn.getcwd()
end

--- The highlights of the view's lines: headings, files, Claude's and
--- your lines, the prompts' text.
function M.highlights(lines)
  local hls = {}
  for i, l in ipairs(lines) do
    local row = i - 1
    if l:match("^Commit  ") or l:match("^Note    ") then
      table.insert(hls, { row, 0, 8, "Label" })
    elseif l == "Prompts" then
      table.insert(hls, { row, 0, -1, "Title" })
    elseif l:match("^  Claude  ") then
      table.insert(hls, { row, 2, 8, "ClaudeNovaBlameClaude" })
    elseif l:match("^  amended by you  ") then
      table.insert(hls, { row, 2, 16, "ClaudeNovaBlameAmended" })
    elseif l:match("^    > ") then
      table.insert(hls, { row, 4, -1, "Comment" })
    elseif l ~= "" and not l:match("^%s") and i > 2 then
      table.insert(hls, { row, 0, -1, "Directory" })
    end
  end
  return hls
end

--- Show the note of rev (default HEAD).
function M.open(rev)
  local v = calls.request("provenance", { rev = rev or "", cwd = M.cwd() })
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  errors.try(vim.api.nvim_buf_set_name, buf, "claude-nova://provenance/" .. (v.commit or "?"):sub(1, 12))
  labels.set(buf, "Provenance · " .. (v.commit or "?"):sub(1, 7))
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.b[buf].claudenova_surface = "provenance"
  draw.lines(buf, ns, v.lines or {}, M.highlights(v.lines or {}))
  vim.wo[0].wrap = true
  -- As tall as its lines wrapped in the window, up to half the screen.
  local width, rows = math.max(1, vim.api.nvim_win_get_width(0)), 0
  for _, l in ipairs(v.lines or {}) do
    rows = rows + math.max(1, math.ceil(vim.fn.strdisplaywidth(l) / width))
  end
  vim.api.nvim_win_set_height(0, math.max(5, math.min(rows, math.floor(vim.o.lines / 2))))
  vim.keymap.set("n", "q", function()
    errors.try(vim.api.nvim_win_close, 0, true)
  end, { buffer = buf, nowait = true, desc = "claude-nova: Close the note" })
  keytable.map(buf, "provenance")
  return buf
end

return M
