-- :ClaudeNova changes round: everything Claude changed since the review
-- baseline (the last review sent, or the session's start), every file from
-- its content then to now, in the changes view (ui.changes): undo or keep
-- a hunk, comment on a line for the next review.
local actions = require("claudenova.store.actions")
local changes = require("claudenova.surfaces.changes")
local comments = require("claudenova.surfaces.comments")
local host = require("claudenova.channel.host")

local M = {}

--- Open the open round of a session (the one in view by default).
function M.open(session)
  session = session or actions.session_in_view() or 0
  local view = host.request("review_round", { session = session })
  comments.ensure()
  pcall(comments.load) -- the comments show in the view at once
  return changes.show(view)
end

return M
