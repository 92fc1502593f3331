-- :ClaudeNova changes round: everything Claude changed since the review
-- baseline (the last review sent, or the session's start), every file from
-- its content then to now, listed in the files view (surfaces/files.lua),
-- each opened in the changes view: undo or keep a hunk, comment on a line
-- for the next review. :ClaudeNova changes branch: a worktree session's
-- branch the same way.
local errors = require("claudenova.core.errors")
local actions = require("claudenova.store.actions")
local comments = require("claudenova.surfaces.comments")
local files = require("claudenova.surfaces.files")
local calls = require("claudenova.services.calls")
local notify = require("claudenova.setup.notify")

local M = {}

--- Open the open round of a session (the one in view by default).
function M.open(session)
  session = session or actions.session_in_view() or 0
  local view = calls.request("review_round", { session = session })
  comments.ensure()
  errors.try(comments.load) -- the comments show in the view at once
  return files.show(view)
end

--- Open the branch of a worktree session (the one in view by default) as
--- a pull request: every file it changed since its base. The host diffs
--- the branch in the background: the view opens when it answers, and the
--- editor waits for nothing meanwhile.
function M.branch(session)
  session = session or actions.session_in_view() or 0
  calls.request(
    "branch_changes",
    { session = session },
    vim.schedule_wrap(function(ok, view)
      if not ok then
        notify.error(view)
        return
      end
      comments.ensure()
      errors.try(comments.load)
      files.show(view)
    end)
  )
end

return M
