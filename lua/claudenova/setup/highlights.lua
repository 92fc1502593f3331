-- Highlight groups: all default links, so colorschemes and users win. The
-- one list: the host's names of them (rplugin/ui/hlgroups.go) and the help's
-- Highlights section are generated from it (make docs); tests fail on drift.
local M = {}

M.groups = {
  ClaudeNovaTitle = { link = "Title", desc = "Titles of the sidebar, panel and plan" },
  ClaudeNovaSession = { link = "Directory", desc = "Session headers in the sidebar" },
  ClaudeNovaStateWaiting = { link = "WarningMsg", desc = "A session waiting for you" },
  ClaudeNovaStateRunning = { link = "DiagnosticInfo", desc = "A running session" },
  ClaudeNovaWorking = {
    link = "DiagnosticInfo",
    desc = "Transcript: what Claude is doing while nothing new shows (✻ thinking · 12 s)",
  },
  ClaudeNovaStateIdle = { link = "Comment", desc = "An idle session" },
  ClaudeNovaStateExited = { link = "ErrorMsg", desc = "An exited session" },
  ClaudeNovaSessionExited = { link = "Comment", desc = "An exited session's row in the sidebar (dimmed)" },
  ClaudeNovaTool = { link = "Function", desc = "Tool names" },
  ClaudeNovaTarget = { link = "String", desc = "Request targets" },
  ClaudeNovaAge = { link = "Comment", desc = "Request ages" },
  ClaudeNovaAdded = { link = "DiffAdd", desc = "+N of a file change" },
  ClaudeNovaRemoved = { link = "DiffDelete", desc = "-M of a file change" },
  ClaudeNovaKey = { link = "Special", desc = "Keys in hints" },
  ClaudeNovaLabel = { link = "Label", desc = "Field labels in the panel" },
  ClaudeNovaReason = { link = "WarningMsg", desc = "Why a request is shown where it is" },
  ClaudeNovaWinbar = { link = "WinBar", desc = "Proposal and plan winbars" },
  ClaudeNovaWaiting = {
    link = "WarningMsg",
    desc = "The line that says a surface waits while you type in insert mode (the mode message covers the message line)",
  },
  ClaudeNovaNote = { link = "DiagnosticVirtualTextInfo", desc = "Your notes for Claude on a proposal's hunks" },
  ClaudeNovaHeading = { link = "Title", desc = "Transcript: ## You / ## Claude" },
  ClaudeNovaMdHeading = { link = "@markup.heading", desc = "Transcript: headings in Claude's text" },
  ClaudeNovaBold = { link = "@markup.strong", desc = "Transcript: **bold**" },
  ClaudeNovaItalic = { link = "@markup.italic", desc = "Transcript: *emphasis*" },
  ClaudeNovaInlineCode = { link = "@markup.raw", desc = "Transcript: `code`" },
  ClaudeNovaCode = {
    link = "@markup.raw.block",
    desc = "Transcript: fenced code (its language's highlights go on top)",
  },
  ClaudeNovaFence = { link = "Comment", desc = "Transcript: code fences" },
  ClaudeNovaListMarker = { link = "@markup.list", desc = "Transcript: list markers" },
  ClaudeNovaQuote = { link = "Comment", desc = "Transcript: notes and thinking" },
  ClaudeNovaToolLine = { link = "Special", desc = "Transcript: the ▸ of a tool call" },
  ClaudeNovaOk = { link = "DiagnosticOk", desc = "Transcript: ✓ a tool call that succeeded" },
  ClaudeNovaFail = { link = "DiagnosticError", desc = "Transcript: ✗ a tool call that failed" },
  ClaudeNovaDetail = { link = "Comment", desc = "Transcript: a tool call's input and result" },
  ClaudeNovaDetailBar = { link = "NonText", desc = "Transcript: the bar before a tool call's details" },
  ClaudeNovaFooter = { link = "Comment", desc = "Transcript: a turn's duration, tokens and cost" },
  ClaudeNovaMCPFailed = {
    link = "DiagnosticError",
    desc = "An MCP server that is not connected, a plugin that did not load (sidebar, :ClaudeNova mcp)",
  },
  ClaudeNovaSchedule = { link = "DiagnosticHint", desc = "A wake-up or cron job Claude scheduled (sidebar)" },
  ClaudeNovaTodo = { link = "Normal", desc = "An open item of Claude's checklist (sidebar)" },
  ClaudeNovaTodoDone = { link = "Comment", desc = "A done item of Claude's checklist (sidebar)" },
  ClaudeNovaBlocked = { link = "WarningMsg", desc = "Another Claude session that waits for you (sidebar)" },
  ClaudeNovaOther = { link = "Comment", desc = "Another Claude session of this machine (sidebar)" },
  ClaudeNovaComment = {
    link = "DiagnosticVirtualTextHint",
    desc = "Your review comments, as virtual lines under their lines",
  },
  ClaudeNovaBlameClaude = { link = "DiagnosticSignInfo", desc = "Blame: the sign of a line Claude wrote" },
  ClaudeNovaBlameAmended = {
    link = "DiagnosticSignWarn",
    desc = "Blame: the sign of a line Claude wrote and you amended in the proposal",
  },
  ClaudeNovaBlameYours = { link = "NonText", desc = "Blame: the sign of a line you wrote (or that was there before)" },
  ClaudeNovaBlameInfo = { link = "Comment", desc = "Blame: who wrote the cursor's line, at its end" },
  ClaudeNovaGroup = {
    link = "Directory",
    desc = "Sidebar: the repository heading over its sessions (several repositories)",
  },
  ClaudeNovaFilesViewed = { link = "DiagnosticSignOk", desc = "The files view: the mark of a file you viewed" },
}

local function apply()
  for name, spec in pairs(M.groups) do
    vim.api.nvim_set_hl(0, name, { link = spec.link, default = true })
  end
end

--- Define the groups (again after every colorscheme change, which clears them).
function M.setup()
  apply()
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = vim.api.nvim_create_augroup("ClaudeNovaHighlights", { clear = true }),
    desc = "claude-nova: restore default highlight links",
    callback = apply,
  })
end

return M
