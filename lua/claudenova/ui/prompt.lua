-- A small multi-line input for prompts: <C-s> or :w sends it.
local M = {}

local function cfg()
  return require("claudenova.config").get()
end

function M.open(session)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, ("claudenova://prompt/%s/%d"):format(session or "new", buf))
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "markdown"
  vim.b[buf].claudenova_surface = "prompt"
  local width = math.min(100, vim.o.columns - 8)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = vim.o.lines - 12,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = 6,
    border = "rounded",
    title = (" Prompt for Claude%s — <C-s> or :w sends "):format(session and (" (session " .. session .. ")") or ""),
    title_pos = "center",
  })
  local function send()
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    if vim.trim(text) == "" then
      require("claudenova.ui.notify").warn("empty prompt: nothing was sent")
      return
    end
    vim.bo[buf].modified = false
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    vim.cmd("stopinsert")
    local ok, err = pcall(require("claudenova").send, text, session)
    if not ok then
      require("claudenova.ui.notify").error(err)
    end
  end
  local keys = cfg().keymaps.prompt
  if keys.send then
    vim.keymap.set({ "n", "i" }, keys.send, send, { buffer = buf, desc = "claude-nova: Send the prompt" })
  end
  if keys.close then
    vim.keymap.set("n", keys.close, function()
      vim.api.nvim_win_close(win, true)
    end, { buffer = buf, desc = "claude-nova: Close the prompt" })
  end
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    buffer = buf,
    desc = "claude-nova: :w sends the prompt",
    callback = send,
  })
  vim.cmd("startinsert")
  return buf, win
end

return M
