-- AskUserQuestion: one question at a time through vim.ui.select (so the
-- user's picker takes over) or a float of our own. Cancelling leaves the
-- request pending; nothing is answered that the user did not choose. A
-- question can be skipped, the rest dismissed, or declined for the chat:
-- the host tells claude which (annotations, when claude can hear them).
local asking = require("claudenova.services.asking")
local config = require("claudenova.setup.config")
local actions = require("claudenova.store.actions")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")
local textutil = require("claudenova.core.text")

local M = {}

M.active = nil ---@type string|nil id of the request being asked

local OTHER = "Other…"
local DECLINE = "Decline: I'd rather answer in chat"
local SKIP = "Skip this question"
local DISMISS = "Dismiss: close the questions unanswered"
local KIND = "claudenova.question"

local function cfg()
  return config.get()
end

local function left_pending(r)
  M.active = nil
  notify.info(("question left pending: <CR> on its row in :ClaudeNova answers it (%s)"):format(state.request_label(r)))
end

local function float()
  return cfg().questions.ui == "float"
end

local function describe(q, opt)
  local s = opt.label
  if opt.description and opt.description ~= "" then
    s = s .. " — " .. opt.description
  end
  return s
end

--- Ask question q; cb(answer) with {selected = {...}, other = "..."} (or
--- {unanswered = "skipped"}) or nil when cancelled, or "decline", or
--- "dismiss".
-- A prompt typed into (vim.ui.input) leaves its line on the screen: the
-- next picker starts on a fresh one.
local function fresh_line()
  vim.api.nvim_echo({ { "" } }, false, {})
  vim.cmd("redraw")
end

local function ask(r, idx, q, cb)
  local total = #r.input.questions
  local prompt = ("[%d/%d] %s%s"):format(
    idx,
    total,
    q.header and q.header ~= "" and (q.header .. ": ") or "",
    q.question
  )
  if idx == 1 and r.said and r.said ~= "" then
    -- Why Claude asks, in its words, above its first question.
    prompt = "Claude: " .. r.said:gsub("%s*\n%s*", " ") .. "\n" .. prompt
  end
  -- The built-in picker prints the prompt in the message area, which wraps
  -- inside words: wrap it at spaces to the screen's width first.
  local wrapped = {}
  for _, l in ipairs(vim.split(prompt, "\n", { plain = true })) do
    vim.list_extend(wrapped, textutil.wrap(l, vim.o.columns - 1))
  end
  prompt = table.concat(wrapped, "\n")
  local opts = q.options or {}
  if not q.multiSelect then
    local items = {}
    for i, o in ipairs(opts) do
      table.insert(items, { kind = "option", index = i, text = describe(q, o) })
    end
    table.insert(items, { kind = "other", text = OTHER })
    table.insert(items, { kind = "skip", text = SKIP })
    table.insert(items, { kind = "decline", text = DECLINE })
    table.insert(items, { kind = "dismiss", text = DISMISS })
    asking.select(items, { prompt = prompt, kind = KIND, float = float() }, function(it)
      if not it then
        return cb(nil)
      end
      if it.kind == "skip" then
        return cb({ unanswered = "skipped" })
      end
      if it.kind == "decline" or it.kind == "dismiss" then
        return cb(it.kind)
      end
      if it.kind == "other" then
        vim.ui.input({ prompt = q.question .. " (your answer): " }, function(txt)
          fresh_line()
          if txt == nil or vim.trim(txt) == "" then
            return cb(nil)
          end
          cb({ selected = {}, other = txt })
        end)
        return
      end
      cb({ selected = { it.index - 1 } })
    end)
    return
  end
  -- Multi-select: tick options until Done.
  local other
  local labels = {}
  for _, o in ipairs(opts) do
    table.insert(labels, describe(q, o))
  end
  asking.several({
    prompt = prompt,
    kind = KIND,
    float = float(),
    labels = labels,
    extra = function()
      return {
        {
          kind = "other",
          before_done = true,
          text = other and ("[x] Other: " .. other) or asking.ticked(false, OTHER),
        },
        { kind = "skip", text = SKIP },
        { kind = "decline", text = DECLINE },
        { kind = "dismiss", text = DISMISS },
      }
    end,
    on_extra = function(it, again, finish)
      if it.kind == "decline" or it.kind == "dismiss" or it.kind == "skip" then
        return finish(it.kind)
      end
      if other then -- untick it
        other = nil
        return again()
      end
      vim.ui.input({ prompt = q.question .. " (other): " }, function(txt)
        fresh_line()
        if txt and vim.trim(txt) ~= "" then
          other = txt
        end
        again()
      end)
    end,
    accept = function(chosen)
      if #chosen == 0 and not other then
        notify.warn("choose at least one option")
        return false
      end
      return true
    end,
  }, function(chosen)
    if chosen == "skip" then
      return cb({ unanswered = "skipped" })
    end
    if chosen == nil or chosen == "decline" or chosen == "dismiss" then
      return cb(chosen)
    end
    cb({
      selected = vim.tbl_map(function(i)
        return i - 1
      end, chosen),
      other = other,
    })
  end)
end

-- Send the answers; the questions without one are left unanswered in
-- the way `how` says (other: the user's message for Claude, if any).
local function send(r, answers, how, other)
  for i = 1, #r.input.questions do
    answers[i] = answers[i] or { selected = {}, other = other or "", unanswered = how }
  end
  local ok, err = pcall(actions.answer, r.id, "answer", { answers = answers })
  if not ok then
    notify.error(err)
  end
end

-- The user would rather answer in chat: an optional message for Claude
-- goes with the questions not answered yet (a claude that cannot hear
-- "unanswered" gets a deny with it, as always).
local function decline(r, answers)
  vim.ui.input({ prompt = "Message for Claude (optional): " }, function(msg)
    if msg == nil then
      return left_pending(r)
    end
    send(r, answers, "replied_in_chat", msg)
  end)
end

function M.open(r)
  if M.active == r.id then
    return
  end
  local questions = r.input and r.input.questions or {}
  if #questions == 0 then
    notify.error("the question request has no questions")
    return
  end
  M.active = r.id
  local answers = {}
  asking.row(M, r.id, #questions, function(i, answered)
    ask(r, i, questions[i], function(ans)
      if ans == "decline" or ans == "dismiss" then
        if M.active == r.id then
          M.active = nil
          if ans == "decline" then
            decline(r, answers)
          else
            send(r, answers, "dismissed")
          end
        end
        return
      end
      if ans ~= nil then
        answers[i] = { selected = ans.selected or {}, other = ans.other or "", unanswered = ans.unanswered }
      end
      answered(ans)
    end)
  end, function()
    M.active = nil
    send(r, answers)
  end, function()
    left_pending(r)
  end)
end

function M.withdraw(id)
  asking.withdraw(M, id)
end

return M
