-- The surfaces' (and the services') way to the host for what is not an
-- answer: reads (a transcript, the rules, the changes…) and commands (a rule
-- removed, a comment added…). A surface never requires the channel: it calls
-- here, and an answer to a request goes out by the front end's one door
-- instead (actions.answer, the gesture layer's answer(id, kind, payload)),
-- which maps each kind of answer to the host's method (ANSWERS) and is the
-- only sender of those methods.
local host = require("claudenova.channel.host")

local M = {}

--- The kinds of answer the door takes, and the host method each goes out
--- as (note: a notification, sent where a reply cannot be awaited, e.g.
--- while a buffer is wiped inside the host's event).
M.ANSWERS = {
  decide = { method = "decide" }, -- allow or deny a permission request
  answer = { method = "answer" }, -- a question's answers
  plan = { method = "plan" }, -- a plan approved or refused
  elicit = { method = "elicit" }, -- an MCP form filled in or declined
  apply = { method = "proposal_saved" }, -- a proposal applied by a gesture: the host's verdict
  saved = { method = "proposal_saved", note = true }, -- a proposal saved with :w
  wiped = { method = "proposal_wiped", note = true }, -- a proposal closed: rejected
  apply_clean = { method = "merge_apply" }, -- a merge's files without a conflict applied, as :w of each
  pr_commit = { method = "pr_commit" }, -- a pull request's message saved: commit, push, open it
}

local answer_methods = {}
for _, a in pairs(M.ANSWERS) do
  answer_methods[a.method] = true
end

local function not_an_answer(method)
  if answer_methods[method] then
    error(
      ("claude-nova: internal error: %s is an answer; it goes out through the front end's answer()"):format(method),
      3
    )
  end
end

--- Call a host method and have its result (see channel.host.request: with
--- on_reply it returns at once).
---@param method string
---@param args table|nil
---@param on_reply fun(ok: boolean, res: any)|nil
function M.request(method, args, on_reply)
  not_an_answer(method)
  return host.request(method, args, on_reply)
end

--- Send a host method without waiting.
---@param method string
---@param args table|nil
function M.notify(method, args)
  not_an_answer(method)
  return host.notify(method, args)
end

--- Whether the host runs (nothing is started).
function M.running()
  return host.running()
end

--- Which host this is (a number that changes when a host starts anew).
function M.epoch()
  return host.epoch
end

return M
