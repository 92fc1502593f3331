-- The offer once a merge is over (every file of :ClaudeNova merge applied
-- or skipped): remove the worktree and its branch, stopping the session
-- first when it still runs, or keep them. A picker like a question's (the
-- float one when questions.ui = "float"), opened when the user pauses;
-- withdrawn when the worktree goes another way (merge remove).
local asking = require("claudenova.services.asking")
local config = require("claudenova.setup.config")
local host = require("claudenova.channel.host")
local notify = require("claudenova.setup.notify")
local scheduler = require("claudenova.services.scheduler")

local M = {}

-- The offers not answered yet, by session.
M.open = {} ---@type table<integer, table>

local function id(session)
  return "merge:" .. session
end

--- The offer's question: what is merged, what removing it takes (files
--- only there still, a session that runs), then the question.
function M.prompt(offer)
  local parts = { offer.branch .. " is merged." }
  local kept = offer.kept or {}
  if #kept > 0 then
    table.insert(parts, ("Only there still: %s (lost if removed)."):format(table.concat(kept, ", ")))
  end
  if offer.running then
    table.insert(parts, "Its session still runs: removing stops it.")
  end
  table.insert(parts, "Remove its worktree and branch?")
  return table.concat(parts, " ")
end

--- The offer's choices: remove, keep.
function M.choices(offer)
  local remove = #(offer.kept or {}) > 0 and "Remove them all the same" or "Remove the worktree and its branch"
  return {
    { text = remove, remove = true },
    { text = "Keep them (:ClaudeNova merge remove later)" },
  }
end

--- Remove session's worktree and its branch, stopping the session first
--- when it runs (the host does, then waits for it to exit); force: with
--- work not brought over that the user was shown, named (the files by
--- name). Says what came of it.
function M.remove(session, force, named)
  host.request(
    "merge_remove",
    { session = session, force = force, stop = true, named = named or {} },
    vim.schedule_wrap(function(ok, res)
      if ok then
        notify.info(res)
      else
        notify.error(res)
      end
    end)
  )
end

local function ask(offer)
  if M.open[offer.session] ~= offer then
    return -- withdrawn, or a newer one
  end
  asking.select(M.choices(offer), {
    prompt = M.prompt(offer),
    kind = "claudenova.merged",
    float = config.get().questions.ui == "float",
  }, function(choice)
    if M.open[offer.session] ~= offer then
      return
    end
    M.open[offer.session] = nil
    if choice and choice.remove then
      M.remove(offer.session, #(offer.kept or {}) > 0, offer.kept)
    end
  end)
end

--- The host's offer (merge.Offer), or its withdrawal (removed).
function M.offer(offer)
  if offer.removed then
    M.open[offer.session] = nil
    scheduler.forget(id(offer.session))
    return
  end
  M.open[offer.session] = offer
  -- A picker never opens inside the host's call, nor while you type.
  vim.schedule(function()
    scheduler.show(id(offer.session), function()
      ask(offer)
    end, false, true)
  end)
end

return M
