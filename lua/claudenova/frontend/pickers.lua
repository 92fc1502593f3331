-- Pickers of sessions: switch to one, resume an earlier one of this folder
-- (from claude's own session store).
local state = require("claudenova.store.state")
local notify = require("claudenova.setup.notify")
local actions = require("claudenova.store.actions")
local errors = require("claudenova.core.errors")
local calls = require("claudenova.services.calls")

local M = {}

--- One line per session for pickers: "2 · fix the login test · running ·
--- acceptEdits"; an attempt of a best of N by its label first, its prompt
--- last: "3 · fix-login #2 · idle · default · fix the login test".
function M.session_line(s)
  local label = s.label and s.label ~= "" and s.label or nil
  local line = ("%d · %s · %s · %s"):format(s.id, label or s.name or "", s.state or "", s.mode or "default")
  if label and s.name and s.name ~= "" then
    line = line .. " · " .. s.name
  end
  return line
end

function M.pick_session()
  local sessions = actions.sessions()
  if #sessions == 0 then
    notify.info("no sessions")
    return
  end
  vim.ui.select(sessions, {
    prompt = "Claude sessions",
    format_item = M.session_line,
  }, function(s)
    if s then
      errors.guard(function()
        calls.request("select", { session = s.id })
        state.current = s.id
        actions.open_transcript(s.id, { focus = true })
      end)()
    end
  end)
end

--- Pick one of this folder's earlier sessions (from claude's own session
--- store) and continue it; its transcript shows the earlier conversation.
function M.pick_resume()
  local list = calls.request("resumable", { cwd = vim.fn.getcwd() }) or {}
  if list.note then
    notify.warn(list.note)
  end
  local items = list.sessions or {}
  if #items == 0 then
    notify.info("no earlier sessions in this folder (claude's session store); :ClaudeNova resume {id} resumes by id")
    return
  end
  -- Sessions that run in this editor already: resuming one switches to it.
  local here = {}
  for sid, info in pairs(state.sessions) do
    if info.claude_id and info.claude_id ~= "" and info.state ~= "exited" then
      here[info.claude_id] = sid
    end
  end
  vim.ui.select(items, {
    prompt = "Resume which session?",
    format_item = function(s)
      local mark = here[s.id] and ("● runs here as session %d · "):format(here[s.id]) or ""
      if s.worktree and s.worktree ~= "" then
        mark = mark .. "⎇ " .. s.worktree .. " · " -- it goes back to its worktree
      end
      if not s.known then
        return ("%s%s ago · %s"):format(mark, s.ago, s.id)
      end
      local first = s.first_prompt or ""
      if s.title and s.title ~= "" and first ~= "" and first ~= s.title then
        return ("%s%s ago · %s · %s"):format(mark, s.ago, s.name, first)
      end
      return ("%s%s ago · %s"):format(mark, s.ago, s.name ~= "" and s.name or s.id)
    end,
  }, function(s)
    if s then
      errors.guard(function()
        local info = actions.resume(s.id)
        actions.open_transcript(info.id)
      end)()
    end
  end)
end

return M
