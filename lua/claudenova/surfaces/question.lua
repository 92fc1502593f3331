-- AskUserQuestion: one question at a time through vim.ui.select (so the
-- user's picker takes over) or a float of our own. Cancelling leaves the
-- request pending; nothing is answered that the user did not choose.
local config = require("claudenova.setup.config")
local host = require("claudenova.channel.host")
local notify = require("claudenova.setup.notify")
local picker = require("claudenova.core.picker")
local scheduler = require("claudenova.services.scheduler")
local state = require("claudenova.store.state")
local textutil = require("claudenova.core.text")

local M = {}

M.active = nil ---@type string|nil id of the request being asked

local OTHER = "Other…"
local DECLINE = "Decline: I'd rather answer in chat"
local DONE = "Done"

local function cfg()
  return config.get()
end

local function left_pending(r)
  M.active = nil
  notify.info(("question left pending: <CR> on its row in :ClaudeNova answers it (%s)"):format(state.request_label(r)))
end

local function select(items, opts, cb)
  cb = scheduler.picked(cb)
  if cfg().questions.ui == "float" then
    picker.select(items, opts, cb)
  else
    vim.ui.select(items, opts, cb)
  end
end

local function describe(q, opt)
  local s = opt.label
  if opt.description and opt.description ~= "" then
    s = s .. " — " .. opt.description
  end
  return s
end

--- Ask question q; cb(answer) with {selected = {...}, other = "..."} or nil
--- when cancelled, or "decline".
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
    table.insert(items, { kind = "decline", text = DECLINE })
    select(items, {
      prompt = prompt,
      kind = "claudenova.question",
      format_item = function(it)
        return it.text
      end,
    }, function(it)
      if not it then
        return cb(nil)
      end
      if it.kind == "decline" then
        return cb("decline")
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
  -- Multi-select: toggle options until Done.
  local chosen = {}
  local other
  local function loop()
    local items = {}
    for i, o in ipairs(opts) do
      table.insert(items, { kind = "option", index = i, text = (chosen[i] and "[x] " or "[ ] ") .. describe(q, o) })
    end
    table.insert(items, { kind = "other", text = (other and ("[x] Other: " .. other) or "[ ] " .. OTHER) })
    table.insert(items, { kind = "done", text = DONE })
    table.insert(items, { kind = "decline", text = DECLINE })
    select(items, {
      prompt = prompt .. " (choose several, then Done)",
      kind = "claudenova.question",
      format_item = function(it)
        return it.text
      end,
    }, function(it)
      if not it then
        return cb(nil)
      end
      if it.kind == "decline" then
        return cb("decline")
      elseif it.kind == "done" then
        local sel = {}
        for i = 1, #opts do
          if chosen[i] then
            table.insert(sel, i - 1)
          end
        end
        if #sel == 0 and not other then
          notify.warn("choose at least one option")
          return vim.schedule(loop)
        end
        return cb({ selected = sel, other = other })
      elseif it.kind == "other" then
        if other then
          other = nil
          return vim.schedule(loop)
        end
        vim.ui.input({ prompt = q.question .. " (other): " }, function(txt)
          fresh_line()
          if txt and vim.trim(txt) ~= "" then
            other = txt
          end
          vim.schedule(loop)
        end)
        return
      end
      chosen[it.index] = not chosen[it.index]
      vim.schedule(loop)
    end)
  end
  loop()
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
  local function step(i)
    if M.active ~= r.id then
      return -- withdrawn meanwhile
    end
    if i > #questions then
      M.active = nil
      local ok, err = pcall(host.request, "answer", { id = r.id, answers = answers })
      if not ok then
        notify.error(err)
      end
      return
    end
    ask(r, i, questions[i], function(ans)
      if M.active ~= r.id then
        return
      end
      if ans == nil then
        return left_pending(r)
      end
      if ans == "decline" then
        M.active = nil
        vim.ui.input({ prompt = "Message for Claude (optional): " }, function(msg)
          if msg == nil then
            return left_pending(r)
          end
          local ok, err = pcall(host.request, "decide", {
            id = r.id,
            behavior = "deny",
            via = "surface",
            message = msg ~= "" and msg or "The user declined to answer here and would rather answer in chat.",
          })
          if not ok then
            notify.error(err)
          end
        end)
        return
      end
      answers[i] = { selected = ans.selected or {}, other = ans.other or "" }
      vim.schedule(function()
        step(i + 1)
      end)
    end)
  end
  step(1)
end

function M.withdraw(id)
  if M.active == id then
    M.active = nil
  end
end

return M
