-- Completion in the prompt input: @ at the start of a word completes a file
-- of the session's folder, / at the very start of the prompt one of claude's
-- slash commands. The choices come from the host, which keeps each folder's
-- file list and ranks it with a fuzzy match off the editor's loop: typing
-- sends what is under the cursor (a notification), and the answer
-- (a completion event) opens the menu, if the text is still the same.
-- Nothing is ever inserted that the user did not pick: the input's
-- 'completeopt' has noinsert and noselect (the user's own is untouched).
local errors = require("claudenova.core.errors")
local context = require("claudenova.services.context")
local calls = require("claudenova.services.calls")

local M = {}

local token = 0
M.waiting = nil ---@type {token: integer, buf: integer, row: integer, col: integer, kind: string, query: string}|nil

--- The completion options of the prompt input: the user's, with menuone,
--- noinsert and noselect, and without what would insert or select.
function M.completeopt(global)
  local out = {}
  for _, o in ipairs(vim.split(global or vim.o.completeopt, ",", { trimempty = true })) do
    if o ~= "longest" and o ~= "noinsert" and o ~= "noselect" and o ~= "menuone" and o ~= "fuzzy" then
      table.insert(out, o)
    end
  end
  vim.list_extend(out, { "menuone", "noinsert", "noselect" })
  if not vim.tbl_contains(out, "menu") then
    table.insert(out, 1, "menu")
  end
  return table.concat(out, ",")
end

--- Set buf's completion options (local where Neovim has a local value,
--- 0.11+; else the global one while the cursor is in buf, restored after).
function M.setup_buffer(buf)
  local opt = M.completeopt()
  if errors.try(function()
    vim.bo[buf].completeopt = opt
  end) then
    return
  end
  local saved
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertEnter" }, {
    buffer = buf,
    desc = "claude-nova: the prompt input completes without inserting",
    callback = function()
      if saved == nil then
        saved = vim.o.completeopt
        vim.o.completeopt = M.completeopt(saved)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ "BufLeave", "BufWipeout" }, {
    buffer = buf,
    desc = "claude-nova: the user's completeopt back",
    callback = function()
      if saved ~= nil then
        vim.o.completeopt = saved
        saved = nil
      end
    end,
  })
  if vim.api.nvim_get_current_buf() == buf then
    saved = vim.o.completeopt
    vim.o.completeopt = M.completeopt(saved)
  end
end

--- What is being completed at the cursor: kind ("@" or "/"), the text typed
--- after it, and the 0-based byte column where that text starts; nil when
--- nothing is (a / inside a sentence, an @ inside a word).
function M.at_cursor()
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_get_current_line():sub(1, col)
  local start = col
  while start > 0 and not line:sub(start, start):match("%s") do
    start = start - 1
  end
  local word = line:sub(start + 1)
  local lead = word:sub(1, 1)
  if lead == "@" then
    return "@", word:sub(2), start + 1, row
  end
  if lead == "/" and row == 1 and start == 0 then
    return "/", word:sub(2), 1, row
  end
  return nil
end

--- Ask the host for what completes the text at the cursor (typing in the
--- prompt input calls this).
function M.request(buf, session, cwd)
  if vim.fn.pumvisible() == 1 and (vim.fn.complete_info({ "selected" }).selected or -1) ~= -1 then
    return -- the user walks the menu: what it put there is theirs
  end
  local kind, query, col, row = M.at_cursor()
  if not kind then
    M.waiting = nil
    return
  end
  if not calls.running() and kind == "/" then
    return -- no session: no commands to offer
  end
  token = token + 1
  M.waiting = { token = token, buf = buf, row = row, col = col, kind = kind, query = query }
  errors.try(calls.notify, "complete", { session = session or 0, cwd = cwd, kind = kind, query = query, token = token })
end

--- The host's answer: the menu opens when the cursor is still where it was
--- asked and the text the same.
function M.completed(c)
  local w = M.waiting
  if not w or c.token ~= w.token then
    return
  end
  M.waiting = nil
  if vim.api.nvim_get_current_buf() ~= w.buf or vim.fn.mode() ~= "i" or #(c.items or {}) == 0 then
    return
  end
  local kind, query, col, row = M.at_cursor()
  if kind ~= w.kind or query ~= w.query or col ~= w.col or row ~= w.row then
    return -- typed on meanwhile: a newer answer comes
  end
  vim.fn.complete(col + 1, c.items)
end

--- omnifunc of the prompt input (<C-x><C-o>): asks the host, and the menu
--- opens with its answer.
function M.omnifunc(findstart, _)
  if findstart == 1 then
    local buf = vim.api.nvim_get_current_buf()
    vim.schedule(function()
      if vim.api.nvim_buf_is_valid(buf) then
        M.request(buf, vim.b[buf].claudenova_prompt_session, context.cwd(vim.b[buf].claudenova_prompt_session))
      end
    end)
    return -3
  end
  return {}
end

return M
