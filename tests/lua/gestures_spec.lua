-- Gestures on requests: which ones a gesture may answer, and what the user
-- is told otherwise, come from the host's view of each request (own,
-- own_refusal, no_always, no_batch_allow) and its replies: the front end
-- writes none of those rules again.
local function state()
  return require("claudenova.store.state")
end
local function gestures()
  return require("claudenova.frontend.gestures")
end

-- The messages shown while fn runs, whole (one cut to fit the screen is
-- kept whole in the host's log).
local function said(t, fn)
  local out, orig, logged = {}, vim.notify, #t.notes
  vim.notify = function(msg)
    table.insert(out, msg)
  end
  local ok, err = pcall(fn)
  vim.notify = orig
  assert(ok, err)
  for i = logged + 1, #t.notes do
    local n = t.notes[i]
    if n.method == "log" then
      for j, m in ipairs(out) do
        if m:sub(-3) == "…" and vim.startswith(n.args.msg, m:sub(1, -4)) then
          out[j] = n.args.msg
        end
      end
    end
  end
  return out
end

-- The recorded Bash request, and variants of it as the host would send
-- them (the words are the views', not the front end's).
local function requests(t)
  t:replay("bash", 7)
  local id = next(state().requests)
  local plain = state().requests[id]
  local function variant(suffix, fields)
    local r = vim.deepcopy(plain)
    r.id = id .. suffix
    return vim.tbl_extend("force", r, fields)
  end
  local own = variant("-own", {
    surface = "panel",
    own = true,
    own_refusal = "the host's words: only its surface answers it",
    no_always = "the host's words: no rule for it",
  })
  local careful = variant("-careful", {
    no_batch_allow = "the host's words: not by a batch",
    hints = { no_rules = false, deliberate = true, human_only = false, why = "claude asks for care" },
  })
  t:deliver({ { event = "request_added", data = own }, { event = "request_added", data = careful } })
  return plain, own, careful
end

-- The editor stays free while something waits for the host: a timer
-- started now runs.
local function timer_runs(t, what)
  local ticked = false
  vim.defer_fn(function()
    ticked = true
  end, 10)
  t:wait(function()
    return ticked
  end, what)
end

-- The host's later reply to the call of token, at its place in the stream.
local function reply(t, token, method, result)
  t:deliver({ { event = "mark", data = { token = token, method = method, reply = { ok = true, result = result } } } })
end

return {
  ["every answer leaves by one door, as the host method of its kind"] = {
    run = function(t)
      local actions = require("claudenova.store.actions")
      local calls = require("claudenova.services.calls")
      t.replies.plan = function()
        return {}
      end
      actions.answer("1:plan", "plan", { approve = false, feedback = "not yet" })
      t:eq(t:calls_of("plan"), { { id = "1:plan", approve = false, feedback = "not yet" } }, "the plan answer")
      actions.answer("1:edit", "wiped", { review = { kept = 1 } })
      local wiped = vim.tbl_filter(function(n)
        return n.method == "proposal_wiped"
      end, t.notes)
      t:eq(wiped[1] and wiped[1].args, { id = "1:edit", review = { kept = 1 } }, "the proposal closed")
      -- The surfaces' other way to the host sends no answer.
      for _, m in ipairs({ "decide", "answer", "plan", "elicit", "proposal_saved", "proposal_wiped" }) do
        local ok, err = pcall(calls.request, m, { id = "1:plan" })
        t:ok(not ok and tostring(err):find("answer()", 1, true), m .. " through services.calls: " .. tostring(err))
        ok = pcall(calls.notify, m, { id = "1:plan" })
        t:ok(not ok, m .. " notified through services.calls")
      end
      t:eq(#t:calls_of("plan"), 1, "plan calls")
      t:eq(#t:calls_of("decide"), 0, "decide calls")
    end,
  },
  ["an error a surface's withdraw raises is logged with its place"] = {
    run = function(t)
      local plain = requests(t)
      local panel = require("claudenova.surfaces.panel")
      local withdraw = panel.withdraw
      panel.withdraw = function()
        error("the withdraw broke")
      end
      t:deliver({ { event = "request_removed", data = { id = plain.id, session = 1, outcome = "allow" } } })
      panel.withdraw = withdraw
      local logged = vim.tbl_filter(function(n)
        return n.method == "log" and n.args.msg:find("the withdraw broke", 1, true) ~= nil
      end, t.notes)
      t:eq(#logged, 1, "log lines of the error")
      t:ok(logged[1].args.msg:find("frontend/inbox.lua:%d+"), "its place: " .. logged[1].args.msg)
      t:eq(logged[1].args.level, "error", "its level")
    end,
  },
  ["an error let go is kept in the host's log, at debug level, with its place"] = {
    run = function(t)
      local errors = require("claudenova.core.errors")
      local ok = errors.try(function()
        error("gone already")
      end)
      t:eq(ok, false, "what try returns")
      local logged = vim.tbl_filter(function(n)
        return n.method == "log" and n.args.msg:find("gone already", 1, true) ~= nil
      end, t.notes)
      t:eq(#logged, 1, "log lines")
      t:eq(logged[1].args.level, "debug", "its level")
      t:ok(logged[1].args.msg:find("gestures_spec.lua:%d+"), "its place: " .. logged[1].args.msg)
      -- While no host runs the lines wait, and the next host gets them.
      t.host.use_transport(nil)
      errors.try(function()
        error("while no host ran")
      end)
      local waiting = vim.tbl_filter(function(l)
        return l.msg:find("while no host ran", 1, true) ~= nil
      end, errors.unwritten())
      t:eq(#waiting, 1, "lines waiting for a host")
      t.host.use_transport(t.transport)
      local written = vim.tbl_filter(function(n)
        return n.method == "log" and n.args.msg:find("while no host ran", 1, true) ~= nil
      end, t.notes)
      t:eq(#written, 1, "written once a host runs")
      t:eq(#errors.unwritten(), 0, "lines still waiting")
    end,
  },
  ["a batch skips what the host says only a person or its surface answers"] = {
    run = function(t)
      local plain, own, careful = requests(t)
      t.replies.decide = function(args)
        return { decided = true, via = args.via }
      end
      local msgs = said(t, function()
        gestures().decide_many({ plain.id, own.id, careful.id, "1:gone" }, "allow")
      end)
      local decided = t:calls_of("decide")
      t:eq(#decided, 1, "requests the batch decided")
      t:eq({ decided[1].id, decided[1].via }, { plain.id, "batch" }, "the one decided")
      t:eq(msgs, {
        "claude-nova: allowed 1 request; 1 skipped: claude asks for care, answer it in its own panel;"
          .. " 1 plan, question or form row skipped: they need their own answer; 1 no longer pending",
      }, "what the user is told")
      -- A deny batch may deny what needs a person's allow.
      said(t, function()
        gestures().decide_many({ careful.id }, "deny")
      end)
      t:eq(#t:calls_of("decide"), 2, "decide calls after the deny batch")
    end,
  },
  ["a gesture from elsewhere opens a surface that answers itself, in the host's words"] = {
    run = function(t)
      local _, own = requests(t)
      t.replies.present = function()
        return vim.NIL
      end
      local ok, why = gestures().decide(own.id, "allow", nil, "sidebar")
      t:eq({ ok, why }, { false, own.own_refusal }, "a sidebar allow")
      t:eq(#t:calls_of("decide"), 0, "decide calls")
      local msgs = said(t, function()
        gestures().always(own.id)
      end)
      t:eq(msgs, { "claude-nova: " .. own.no_always }, "Always… on it")
    end,
  },
  ["a request this side does not hold: the host says why"] = {
    run = function(t)
      requests(t)
      t.replies.decide = function()
        return { decided = false, reason = "the host's words: gone" }
      end
      t.replies.present = function()
        error("the host's words: gone", 0)
      end
      local ok, why = gestures().decide("1:gone", "allow", nil, "command")
      t:eq({ ok, why }, { false, "the host's words: gone" }, "decide")
      local msgs = said(t, function()
        gestures().present("1:gone")
        gestures().always("1:gone")
      end)
      t:eq(msgs, { "claude-nova: the host's words: gone", "claude-nova: the host's words: gone" }, "present, always")
    end,
  },
  ["a gesture waiting for the host's reply leaves the editor free"] = {
    run = function(t)
      local plain = requests(t)
      local token
      t.replies.decide = function()
        token = t.last_token
        return t.NO_MARK
      end
      local result
      -- As a key of a surface runs it: the reply comes later, in the stream.
      require("claudenova.core.gesture").run(function()
        result = { gestures().decide(plain.id, "allow", nil, "sidebar") }
      end)
      t:eq(#t:calls_of("decide"), 1, "the call made")
      t:eq(result, nil, "the gesture, before the reply")
      -- The editor is free meanwhile: a timer runs, the stream is applied.
      timer_runs(t, "a timer while the gesture waits")
      reply(t, token, "decide", { decided = true })
      t:wait(function()
        return result ~= nil
      end, "the gesture, after the reply")
      t:eq(result, { true }, "what decide returned")
    end,
  },
  ["a command waiting for the host yields; the next one waits its turn; the wait is bounded"] = {
    run = function(t)
      requests(t)
      local tokens = {}
      t.replies.mode = function(args)
        table.insert(tokens, t.last_token)
        return t.NO_MARK
      end
      -- Typed one after the other while the host has not answered the first.
      vim.cmd("ClaudeNova mode plan")
      vim.cmd("ClaudeNova mode default")
      local commands = require("claudenova.commands")
      t:eq(#t:calls_of("mode"), 1, "calls before the first reply")
      -- The second will get no reply ever: it gives up after reply_timeout.
      local host = require("claudenova.channel.host")
      local was = host.reply_timeout
      host.reply_timeout = 50
      t:eq(commands.busy(), true, "commands busy")
      timer_runs(t, "a timer while the command waits")
      t:deliver({
        {
          event = "mark",
          data = {
            token = tokens[1],
            method = "mode",
            reply = { ok = true, result = { done = true, message = "one" } },
          },
        },
      })
      t:wait(function()
        return #t:calls_of("mode") == 2
      end, "the second command, after the first reply")
      t:eq(t:calls_of("mode")[2].mode, "default", "the second command's mode")
      local msgs = {}
      local orig = vim.notify
      vim.notify = function(msg)
        table.insert(msgs, msg)
      end
      t:wait(function()
        return not commands.busy()
      end, "the second command gives up")
      vim.notify = orig
      host.reply_timeout = was
      t:eq(msgs, { "claude-nova: the host did not reply to mode; see :ClaudeNova log" }, "what the user is told")
    end,
  },
  ["the API inside async waits for the host without holding the editor"] = {
    run = function(t)
      requests(t)
      local token
      t.replies.mode = function()
        token = t.last_token
        return t.NO_MARK
      end
      local result
      require("claudenova").async(function()
        result = require("claudenova").set_mode("plan")
      end)
      t:eq(result, nil, "set_mode, before the reply")
      reply(t, token, "mode", { done = true, message = "plan" })
      t:wait(function()
        return result ~= nil
      end, "set_mode, after the reply")
      t:eq(result, { done = true, message = "plan" }, "what set_mode returned")
    end,
  },
}
