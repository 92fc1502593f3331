-- :ClaudeNova changes round: everything Claude changed since the review
-- baseline (the last review sent, or the session's start), every file from
-- its content then to now, in the changes view (ui.changes): undo or keep
-- a hunk, comment on a line for the next review.
local M = {}

--- Open the open round of a session (the one in view by default).
function M.open(session)
  session = session or require("claudenova.ui").session_in_view() or 0
  local view = require("claudenova.host").request("review_round", { session = session })
  local comments = require("claudenova.ui.comments")
  comments.ensure()
  pcall(comments.load) -- the comments show in the view at once
  return require("claudenova.ui.changes").show(view)
end

return M
