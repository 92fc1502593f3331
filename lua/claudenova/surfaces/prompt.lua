-- A small multi-line input for prompts: <C-s> or :w sends it. What it shows
-- is what is sent: queued file references (:ClaudeNova add) and a sent
-- selection are lines of the prompt (delete a line to drop it); a reference
-- to a buffer with unsaved changes is marked, its editor text goes with it.
-- @ at the start of a word completes the session folder's files, / at the
-- start of the prompt claude's slash commands (claudenova.surfaces.complete: by
-- itself as you type, or <C-x><C-o>); nothing is inserted you did not pick.
local actions = require("claudenova.store.actions")
local complete = require("claudenova.surfaces.complete")
local config = require("claudenova.setup.config")
local context = require("claudenova.services.context")
local errors = require("claudenova.core.errors")
local images = require("claudenova.setup.images")
local keytable = require("claudenova.services.keys")
local labels = require("claudenova.setup.labels")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")

local M = {}

local ns = vim.api.nvim_create_namespace("claudenova_prompt")

-- Drafts of prompts closed unsent, per session ("new": the next session),
-- restored when the input opens again: closing never throws text away.
M.drafts = {} ---@type table<string, string[]>

local function draft_key(session)
  return tostring(session or "new")
end

--- The draft kept for a session's input (nil when none).
function M.draft(session)
  return M.drafts[draft_key(session)]
end

local function cfg()
  return config.get()
end

-- Mark the lines whose @reference names a buffer with unsaved changes.
local function mark_unsaved(buf, cwd)
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find("@", 1, true) and #context.unsaved_refs(l, cwd) > 0 then
      vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, {
        virt_text = { { "unsaved: its text in the editor is sent", "ClaudeNovaNote" } },
        virt_text_pos = "eol",
      })
    else
      -- A reference to an image file goes to Claude as an image.
      local ref = l:match("^@(%S+)$") or l:match('^@"(.-)"$')
      if ref and images.kind(ref) then
        local path = ref:sub(1, 1) == "/" and ref or (cwd .. "/" .. ref)
        vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, {
          virt_text = { { images.describe(path) .. ", sent as an image", "ClaudeNovaNote" } },
          virt_text_pos = "eol",
        })
      end
    end
  end
end

--- Open the input. opts.context: lines after the prompt (a selection);
--- queued references follow them.
function M.open(session, opts)
  opts = opts or {}
  -- Where the input was opened from: the cursor goes back there, in the
  -- mode it was in, when the input closes (sent or not).
  local origin, origin_mode = vim.api.nvim_get_current_win(), vim.api.nvim_get_mode().mode
  local origin_buf = vim.api.nvim_get_current_buf()
  local cwd = context.cwd(session)
  local extra = vim.list_extend(vim.deepcopy(opts.context or {}), context.take(cwd))
  local key = draft_key(session)
  local draft = M.drafts[key]
  M.drafts[key] = nil
  -- One input per session: a second open goes to the one already open.
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.b[b].claudenova_surface == "prompt" and draft_key(vim.b[b].claudenova_prompt_session) == key then
      vim.api.nvim_set_current_win(w)
      if #extra > 0 then
        vim.api.nvim_buf_set_lines(b, -1, -1, false, extra)
      end
      return b, w
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, ("claudenova://prompt/%s/%d"):format(session or "new", buf))
  labels.set(buf, function()
    return "Prompt · " .. (session and state.label(session) or "a new session")
  end)
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].omnifunc = "v:lua.require'claudenova.surfaces.complete'.omnifunc"
  vim.b[buf].claudenova_surface = "prompt"
  vim.b[buf].claudenova_prompt_session = session
  local lines
  if draft then
    -- The draft comes back as it was (its references included).
    lines = draft
    if opts.prompt and opts.prompt ~= "" then
      lines[1] = opts.prompt .. (lines[1] ~= "" and (" " .. lines[1]) or "")
    end
    vim.list_extend(lines, extra)
  else
    lines = { opts.prompt or "" }
    if #extra > 0 then
      table.insert(lines, "")
      vim.list_extend(lines, extra)
    end
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modified = false
  local width = math.max(20, math.min(100, vim.o.columns - 4))
  local height = math.max(6, math.min(#lines + 2, math.floor(vim.o.lines / 2)))
  local label = session and state.label(session) or "a new session"
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.max(0, vim.o.lines - height - 6),
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    border = "rounded",
    title = (" Prompt for %s — <C-s> or :w sends "):format(label),
    title_pos = "center",
  })
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  -- Back to where the input was opened, in the mode it was in: at once when
  -- the input closes itself (sent, or its close key), after the fact when
  -- it was closed some other way (:q).
  local returned = false
  local function go_back()
    if returned then
      return
    end
    returned = true
    if not vim.api.nvim_win_is_valid(origin) or vim.api.nvim_win_get_buf(origin) ~= origin_buf then
      -- Its window went (a layout change): the one showing its buffer.
      origin = nil
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        if vim.api.nvim_win_get_buf(w) == origin_buf then
          origin = w
        end
      end
      if not origin then
        return
      end
    end
    vim.api.nvim_set_current_win(origin)
    if origin_mode:sub(1, 1) == "i" then
      vim.cmd("startinsert")
    elseif vim.api.nvim_get_mode().mode:sub(1, 1) == "i" then
      vim.cmd("stopinsert")
    end
  end
  local function close_input()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    go_back()
  end
  vim.api.nvim_create_autocmd("WinClosed", {
    pattern = tostring(win),
    once = true,
    desc = "claude-nova: back to where the prompt input was opened",
    callback = function()
      vim.schedule(function()
        -- Closed by something else: unless the user went on elsewhere.
        local cur = vim.api.nvim_get_current_win()
        if
          not returned
          and vim.api.nvim_win_get_config(cur).relative == ""
          and not vim.b[vim.api.nvim_win_get_buf(cur)].claudenova_surface
        then
          go_back()
        end
        returned = true
      end)
    end,
  })
  mark_unsaved(buf, cwd)
  local sent = false
  local function send(steer)
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    if vim.trim(text) == "" then
      -- Said where it is seen: in the input's border (-- INSERT -- covers
      -- the message line), and as a message.
      errors.try(
        vim.api.nvim_win_set_config,
        win,
        { title = " Nothing to send: write a prompt first ", title_pos = "center" }
      )
      notify.warn("empty prompt: nothing to send")
      return
    end
    local ok, err
    -- The input of a new session (none in view, or the one it was opened
    -- for exited, maybe meanwhile) starts one, and says so.
    local ui = actions
    local to = ui.sendable(session)
    if not to then
      ok, err = pcall(function()
        return ui.new({ prompt = context.build(text, {}, cwd) })
      end)
      if ok then
        ui.started_for_prompt(err.id, opts.instead_of or session)
      end
    elseif steer == true then
      ok, err = pcall(ui.steer, text, to)
      if ok then
        notify.info(err.message)
      end
    else
      ok, err = pcall(ui.send, text, to)
    end
    if not ok then
      -- Nothing is lost: the input stays open with the text.
      notify.error(err)
      return
    end
    sent = true
    vim.bo[buf].modified = false
    vim.cmd("stopinsert")
    close_input()
  end
  local keys = cfg().keymaps.prompt
  if keys.send then
    vim.keymap.set({ "n", "i" }, keys.send, function()
      send()
    end, { buffer = buf, desc = "claude-nova: Send the prompt" })
  end
  if keys.steer then
    vim.keymap.set({ "n", "i" }, keys.steer, function()
      send(true)
    end, { buffer = buf, desc = "claude-nova: Interrupt the turn and send the prompt at once" })
  end
  if keys.withdraw then
    vim.keymap.set("n", keys.withdraw, function()
      errors.guard(function()
        actions.withdraw_queued(session)
      end)()
    end, { buffer = buf, desc = "claude-nova: Withdraw the session's last queued prompt" })
  end
  if keys.close then
    vim.keymap.set("n", keys.close, close_input, { buffer = buf, desc = "claude-nova: Close the prompt" })
  end
  keytable.map(buf, "prompt")
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    buffer = buf,
    desc = "claude-nova: :w sends the prompt",
    callback = function()
      send()
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    desc = "claude-nova: a prompt closed unsent is kept as a draft",
    callback = function()
      if sent then
        return
      end
      local left = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      if vim.trim(table.concat(left, "\n")) ~= "" then
        M.drafts[key] = left
        vim.schedule(function()
          notify.info("prompt kept as a draft: :ClaudeNova prompt opens it again")
        end)
      end
    end,
  })
  complete.setup_buffer(buf)
  -- The text as it opened (a draft brought back): no menu until you type.
  local opened = vim.b[buf].changedtick
  vim.api.nvim_create_autocmd({ "TextChangedI", "TextChangedP" }, {
    buffer = buf,
    desc = "claude-nova: complete @files and /commands as they are typed",
    callback = function()
      if vim.b[buf].changedtick == opened then
        return
      end
      complete.request(buf, session, cwd)
    end,
  })
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    buffer = buf,
    desc = "claude-nova: mark references to unsaved buffers",
    callback = function()
      mark_unsaved(buf, cwd)
    end,
  })
  vim.api.nvim_win_set_cursor(win, { 1, #lines[1] })
  vim.cmd("startinsert!")
  return buf, win
end

return M
