-- The offer once a merge is over (every file of :ClaudeNova merge applied
-- or skipped): remove the worktree and its branch, stopping the session
-- first when it still runs, or keep them. A picker like a question's (the
-- float one when questions.ui = "float"), opened when the user pauses;
-- withdrawn when the worktree goes another way (merge remove).
local actions = require("claudenova.store.actions")
local asking = require("claudenova.services.asking")
local errors = require("claudenova.core.errors")
local config = require("claudenova.setup.config")
local calls = require("claudenova.services.calls")
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
  calls.request(
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

--- One worktree as a picker line: its name first, then what it changed,
--- its session and whether it was merged.
function M.worktree_line(w)
  local parts = { w.branch }
  if w.gone then
    table.insert(parts, "folder gone")
  elseif w.error and w.error ~= "" then
    table.insert(parts, "unreadable")
  else
    table.insert(parts, ("%d file%s"):format(w.files or 0, (w.files or 0) == 1 and "" or "s"))
  end
  table.insert(parts, (w.session or 0) ~= 0 and ("session %d"):format(w.session) or "no session")
  if w.merged then
    table.insert(parts, "merged")
  end
  return table.concat(parts, " · ")
end

-- The resumable claude session that worked in worktree w (nil: none known).
local function claude_session_of(w)
  local list = calls.request("resumable", { cwd = vim.fn.getcwd() }) or {}
  local name = vim.fn.fnamemodify(w.path, ":t")
  for _, s in ipairs(list.sessions or {}) do
    if s.worktree == name then
      return s.id
    end
  end
  return nil
end

--- What to do with worktree w: merge, resume its session, remove it.
function M.act_on(w)
  local choices = {
    {
      text = "Merge it into your checkout",
      run = function()
        notify.info(actions.merge(w.branch).message)
      end,
    },
  }
  if (w.session or 0) == 0 then
    table.insert(choices, {
      text = "Resume its session",
      run = function()
        local id = claude_session_of(w)
        if not id then
          notify.warn(
            ("%s: claude keeps no session for it; :ClaudeNova merge %s brings it over"):format(w.branch, w.branch)
          )
          return
        end
        actions.resume(id)
      end,
    })
  end
  table.insert(choices, {
    text = "Remove it (only if nothing exists there alone)",
    run = function()
      calls.request(
        "merge_remove",
        { branch = w.branch, cwd = vim.fn.getcwd(), stop = true },
        vim.schedule_wrap(function(ok, res)
          if ok then
            notify.info(res)
          else
            notify.warn(res)
          end
        end)
      )
    end,
  })
  vim.ui.select(choices, {
    prompt = M.worktree_line(w),
    format_item = function(c)
      return c.text
    end,
  }, function(c)
    if c then
      errors.guard(c.run)()
    end
  end)
end

--- :ClaudeNova worktrees: the repository's worktrees, sessions or not.
function M.pick_worktrees()
  local list = actions.worktrees(vim.fn.getcwd()) or {}
  if #list == 0 then
    notify.info("no worktrees of claude's in this repository (:ClaudeNova new --worktree makes one)")
    return
  end
  vim.ui.select(list, { prompt = "Worktrees of this repository", format_item = M.worktree_line }, function(w)
    if w then
      vim.schedule(function()
        M.act_on(w)
      end)
    end
  end)
end

return M
