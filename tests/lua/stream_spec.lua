-- The host's event stream: numbered by the host's outbox when it delivers,
-- applied by the inbox in that order whatever order the batches come in, a
-- repeat dropped, a call's reply applied at its place in the stream.
local state = function()
  return require("claudenova.store.state")
end
local inbox = function()
  return require("claudenova.frontend.inbox")
end

-- The recording's events one by one, in a fixed shuffled order (seq 1 last:
-- nothing may apply before it).
local function shuffled(batches)
  local events = {}
  for _, b in ipairs(batches) do
    for _, ev in ipairs(b) do
      table.insert(events, ev)
    end
  end
  local first = table.remove(events, 1)
  -- A fixed permutation: odd positions backwards, then even ones forwards.
  local out = {}
  for i = #events, 1, -1 do
    if i % 2 == 1 then
      table.insert(out, events[i])
    end
  end
  for i = 1, #events do
    if i % 2 == 0 then
      table.insert(out, events[i])
    end
  end
  table.insert(out, first)
  return out
end

local function transcript_lines(id)
  local buf = require("claudenova.surfaces.transcript").bufs[id]
  return buf and vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or {}
end

-- What the user can know of the stream: sessions, pending requests, the
-- transcript's text.
local function observed()
  local sessions, requests = {}, {}
  for id, s in pairs(state().sessions) do
    sessions[tostring(id)] = { state = s.state, name = s.name, mode = s.mode }
  end
  for id, r in pairs(state().requests) do
    requests[id] = { tool = r.tool, target = r.target, surface = r.surface }
  end
  return { sessions = sessions, requests = requests, transcript = transcript_lines(1) }
end

-- A session as the host describes it.
local function session_info(t, id, name, st)
  return { id = id, name = name, state = st, cwd = t.project, folder = "project", mode = "default", tasks = 0 }
end

-- A session whose transcript the host dropped updates of: the front end
-- fetches it, and the fake host answers in the stream. The first fetch is
-- answered with first = { lines, seq }, after a resync naming op dropped_to
-- came in front of that reply (the host dropped more meanwhile); later ones
-- with { "old", "a", "b" } at op 3. Returns the count of fetches so far.
-- The fake host's answer to call token: a transcript of lines at op seq.
local function transcript_reply(token, lines, seq)
  return {
    event = "mark",
    data = { token = token, reply = { ok = true, result = { lines = lines, seq = seq, first = 0 } } },
  }
end

-- The fake host's transcript fetches: the first is held (the test answers
-- it with fetch.token), the later ones answered with lines at op seq;
-- fetch.n counts them.
local function hold_first_fetch(t, lines, seq)
  local fetch = { n = 0 }
  t.replies.transcript = function()
    fetch.n = fetch.n + 1
    if fetch.n == 1 then
      fetch.token = t.last_token
    else
      local reply = transcript_reply(t.last_token, lines, seq)
      vim.schedule(function()
        t:deliver({ reply })
      end)
    end
    return t.NO_MARK
  end
  return fetch
end

-- Session 1's transcript, shown in a window, being fetched (a resync).
local function show_fetching(t)
  local tr = require("claudenova.surfaces.transcript")
  t:deliver({ { event = "session", data = session_info(t, 1, "s", "running") } })
  local buf = tr.ensure(1)
  vim.cmd("split")
  vim.api.nvim_win_set_buf(0, buf)
  t:deliver({ { event = "resync", data = { session = 1, seq = 1 } } })
  return buf
end

-- A transcript op of session 1 that adds lines at index.
local function appended(prev, seq, index, ...)
  return {
    event = "transcript",
    data = { session = 1, ops = { { op = "set", prev = prev, seq = seq, index = index, count = 0, lines = { ... } } } },
  }
end

local function resync_while_fetching(t, first, dropped_to)
  local n = 0
  local function reply(lines, seq)
    return transcript_reply(t.last_token, lines, seq)
  end
  t.replies.transcript = function()
    n = n + 1
    local events = n == 1
        and {
          { event = "resync", data = { session = 1, seq = dropped_to } },
          reply(first[1], first[2]),
        }
      or { reply({ "old", "a", "b" }, 3) }
    vim.schedule(function()
      t:deliver(events)
    end)
    return t.NO_MARK
  end
  t:deliver({ { event = "session", data = session_info(t, 1, "s", "running") } })
  require("claudenova.surfaces.transcript").ensure(1)
  t:deliver({ { event = "resync", data = { session = 1, seq = 1 } } })
  return function()
    return n
  end
end

return {
  ["the harness's settle drains the queue, however deep callbacks schedule"] = {
    run = function(t)
      -- What the cases rely on: after settle(), nothing the front end
      -- scheduled is still waiting (a fetch that schedules its drawing,
      -- which schedules a picker…).
      local ran = 0
      local function chain(n)
        ran = ran + 1
        if n > 1 then
          vim.schedule_wrap(chain)(n - 1)
        end
      end
      vim.schedule(function()
        chain(8)
      end)
      t:settle()
      t:eq(ran, 8, "callbacks run")
    end,
  },
  ["batches out of order are applied in the host's order"] = {
    run = function(t)
      local batches = t:recording("bash")
      local events = shuffled(batches)
      for i = 1, #events - 1 do
        inbox().apply(vim.json.encode({ events[i] }))
      end
      t:eq(next(state().sessions), nil, "a session before the stream's first event")
      t:eq(inbox().stream_state().ahead, #events - 1, "events waiting for the first")
      inbox().apply(vim.json.encode({ events[#events] }))
      t:eq(inbox().stream_state(), { next = #events + 1, ahead = 0 }, "the stream after its first event")
      local shuffled_view = observed()
      t:screen("bash-done")

      -- The same recording in order, in a fresh stream, is the same world.
      for id in pairs(state().sessions) do
        state().sessions[id] = nil
      end
      inbox().reset_stream()
      t:replay("bash")
      t:eq(observed().sessions, shuffled_view.sessions, "sessions")
      t:eq(observed().requests, shuffled_view.requests, "requests")
    end,
  },
  ["a repeated batch is dropped"] = {
    run = function(t)
      local batches = t:replay("bash", 6)
      local before = transcript_lines(1)
      t:ok(#before > 0, "the transcript has text")
      inbox().apply(vim.json.encode(batches[6]))
      inbox().apply(vim.json.encode(batches[2]))
      t:eq(transcript_lines(1), before, "the transcript after a repeat")
      t:eq(inbox().stream_state().ahead, 0, "nothing waits")
    end,
  },
  ["a pending request is shown once, and leaves when it is answered"] = {
    widths = { 60, 100 },
    run = function(t)
      t:replay("bash", 7)
      local ids = vim.tbl_keys(state().requests)
      t:eq(#ids, 1, "pending requests")
      t:eq(state().requests[ids[1]].tool, "Bash", "the request's tool")
      t:eq(state().sessions[1].state, "waiting", "the session's state")
      t:screen("bash-panel")
      t:replay_from("bash", 8, 8)
      t:eq(next(state().requests), nil, "pending requests after the answer")
    end,
  },
  ["a batch that shows a panel draws it first, and its transcript text right after"] = {
    run = function(t)
      -- The command's transcript lines, its row and its panel in one batch,
      -- the panel named as added (as the host sends a request it just added).
      local batches = t:replay("bash", 5)
      local before = transcript_lines(1)
      local events = vim.deepcopy(batches[6])
      for _, ev in ipairs(batches[7]) do
        if ev.event == "present" then
          ev = { seq = ev.seq, event = "present", data = { id = ev.data.id, as_added = true } }
        end
        table.insert(events, ev)
      end
      t:deliver_raw(events)
      t:eq(#t:floats(), 1, "the panel, open when the batch's call returns")
      t:eq(require("claudenova.surfaces.panel").current.r.tool, "Bash", "the request it shows")
      t:eq(transcript_lines(1), before, "the transcript, before the screen showed the panel")
      -- The next batch comes before the timer ran: the held text goes first.
      t:deliver_raw({
        {
          seq = events[#events].seq + 1,
          event = "transcript",
          data = { session = 1, ops = { { op = "set", prev = 4, seq = 5, index = 9, count = 0, lines = { "after" } } } },
        },
      })
      local now = transcript_lines(1)
      t:eq(now[#now], "after", "the next batch's line, last")
      t:ok(vim.tbl_contains(now, "  │ $ touch hello.txt"), "the held lines, before it")
    end,
  },
  ["a panel's transcript text comes once the screen showed the panel"] = {
    run = function(t)
      local batches = t:replay("bash", 5)
      local events = vim.deepcopy(batches[6])
      vim.list_extend(events, batches[7])
      t:deliver_raw(events)
      t:wait(function()
        return vim.tbl_contains(transcript_lines(1), "  │ $ touch hello.txt")
      end, "the command's lines in the transcript")
    end,
  },
  ["a present of a request added but never delivered opens nothing"] = {
    run = function(t)
      t:replay("bash", 6)
      local present
      for _, ev in ipairs(t:recording("bash")[7]) do
        if ev.event == "present" then
          present = ev
        end
      end
      -- Its request_added was lost (the host's resync follows): no surface.
      t:deliver_raw({
        { seq = present.seq - 2, event = "resync", data = {} },
        { seq = present.seq - 1, event = "notify", data = { msg = "x" } },
        { seq = present.seq, event = "present", data = { id = present.data.id, as_added = true } },
      })
      t:eq(#t:floats(), 0, "floating windows")
    end,
  },
  ["a call's reply is applied after the events before it"] = {
    run = function(t)
      local host = require("claudenova.channel.host")
      local seen
      -- The host sends the session's event, then the reply (its mark) — here
      -- the mark comes first, and waits for the event.
      t.replies.probe = function()
        vim.schedule(function()
          local mark_seq, event_seq = t.seq + 2, t.seq + 1
          t.seq = t.seq + 2
          t:deliver_raw({
            {
              seq = mark_seq,
              event = "mark",
              data = { token = t.last_token, reply = { ok = true, result = { id = 7 } } },
            },
          })
          t:ok(seen == nil, "the reply applied before the event ahead of it")
          t:deliver_raw({
            {
              seq = event_seq,
              event = "session",
              data = session_info(t, 7, "late", "idle"),
            },
          })
        end)
        return t.NO_MARK
      end
      local result
      host.request("probe", {}, function(ok, res)
        t:ok(ok, "the call answered")
        result = res
        seen = state().sessions[res.id] and state().sessions[res.id].name or "missing"
      end)
      t:wait(function()
        return result ~= nil
      end, "the reply")
      t:eq(result, { id = 7 }, "the call's result")
      t:eq(seen, "late", "the session when the reply was applied")
    end,
  },
  ["a new session's reply never takes back a newer state an event gave"] = {
    run = function(t)
      local inbox_mod = inbox()
      -- The host answered "new" with the session starting, then claude said
      -- it was idle (read when delivered) before the reply's mark.
      t.replies.new = function()
        vim.schedule(function()
          t.seq = t.seq + 2
          t:deliver_raw({
            {
              seq = t.seq - 1,
              event = "session",
              data = session_info(t, 9, "s", "idle"),
            },
            {
              seq = t.seq,
              event = "mark",
              data = {
                token = t.last_token,
                reply = {
                  ok = true,
                  result = session_info(t, 9, "s", "starting"),
                },
              },
            },
          })
        end)
        return t.NO_MARK
      end
      inbox_mod.session_started(require("claudenova.channel.host").request("new", {}))
      t:eq(state().sessions[9].state, "idle", "the session's state")
      t:eq(state().current, 9, "the session in view")
    end,
  },
  ["a delivery the host gave up comes back as a resync: the stream goes on and the state is asked again"] = {
    run = function(t)
      local batches = t:recording("bash")
      -- Batch 2 (a reply) never comes: what follows waits for its numbers.
      inbox().apply(vim.json.encode(batches[1]))
      for i = 3, 7 do
        inbox().apply(vim.json.encode(batches[i]))
      end
      t:eq(next(state().requests), nil, "requests while the stream waits for the gap")
      t.replies.sessions = function()
        return { vim.tbl_extend("force", state().sessions[1], { name = "from the host" }) }
      end
      t.replies.pending = function()
        for _, b in ipairs(batches) do
          for _, ev in ipairs(b) do
            if ev.event == "request_added" then
              return { ev.data }
            end
          end
        end
        return {}
      end
      -- The host's repair: batch 2's numbers, each a resync.
      local repair = {}
      for _, ev in ipairs(batches[2]) do
        table.insert(repair, { seq = ev.seq, event = "resync", data = vim.empty_dict() })
      end
      inbox().apply(vim.json.encode(repair))
      t:wait(function()
        return #t:calls_of("pending") == 1
      end, "the state asked again")
      t:settle()
      t:eq(#t:calls_of("pending"), 1, "the state asked once")
      t:eq(inbox().stream_state().ahead, 0, "events waiting")
      t:eq(vim.tbl_count(state().requests), 1, "the pending request")
      t:eq(state().sessions[1].name, "from the host", "the session as the host has it")
    end,
  },
  ["a new host starts a new stream"] = {
    run = function(t)
      t:replay("bash", 3)
      t:ok(inbox().stream_state().next > 1, "the stream moved")
      local host = require("claudenova.channel.host")
      host.epoch = (host.epoch or 0) + 1
      t.seq = 1
      t:deliver_raw({
        {
          seq = 1,
          event = "session",
          data = session_info(t, 2, "after a restart", "idle"),
        },
      })
      t:eq(state().sessions[2] and state().sessions[2].name, "after a restart", "the new host's first event")
      t:eq(inbox().stream_state().next, 2, "the new stream's next number")
    end,
  },
  ["a resync that comes while a transcript is fetched fetches it again"] = {
    run = function(t)
      -- The snapshot of the first fetch predates what the host dropped.
      local fetches = resync_while_fetching(t, { { "old", "a" }, 2 }, 3)
      t:wait(function()
        return fetches() == 2 and not require("claudenova.surfaces.transcript").syncing[1]
      end, "a second fetch, answered")
      t:eq(transcript_lines(1), { "old", "a", "b" }, "the transcript")
    end,
  },
  ["a resync the fetched snapshot already holds fetches nothing more"] = {
    run = function(t)
      local fetches = resync_while_fetching(t, { { "old", "a", "b" }, 3 }, 3)
      t:wait(function()
        return fetches() == 1 and not require("claudenova.surfaces.transcript").syncing[1]
      end, "the fetch, answered")
      t:settle()
      t:eq(fetches(), 1, "fetches")
      t:eq(transcript_lines(1), { "old", "a", "b" }, "the transcript")
    end,
  },
  ["ops that come while a transcript is fetched, made after its snapshot, are not lost"] = {
    run = function(t)
      -- The host takes the snapshot, then its session writes (the command
      -- line, claude's exit) before the reply is queued: those ops come in
      -- front of a snapshot that lacks them, and nothing comes after them.
      local tr = require("claudenova.surfaces.transcript")
      local fetch = hold_first_fetch(t, {}, 0)
      t:deliver({ { event = "session", data = session_info(t, 1, "s", "running") } })
      tr.ensure(1)
      t:wait(function()
        return fetch.token ~= nil
      end, "the fetch")
      t:deliver({ appended(0, 1, 0, "$ claude -p"), appended(1, 2, 1, "claude exited unexpectedly") })
      t:deliver({ transcript_reply(fetch.token, {}, 0) })
      t:settle()
      t:eq(transcript_lines(1), { "$ claude -p", "claude exited unexpectedly" }, "the transcript")
      t:eq(tr.syncing[1], false, "synced")
      -- Ops the snapshot holds are not put twice.
      fetch = hold_first_fetch(t, {}, 0)
      t:deliver({ { event = "resync", data = { session = 1 } } })
      t:wait(function()
        return fetch.token ~= nil
      end, "the second fetch")
      t:deliver({ appended(2, 3, 2, "held") })
      t:deliver({ transcript_reply(fetch.token, { "$ claude -p", "claude exited unexpectedly", "held" }, 3) })
      t:settle()
      t:eq(transcript_lines(1), { "$ claude -p", "claude exited unexpectedly", "held" }, "once")
    end,
  },
  ["a transcript wiped while its fetch is answered is fetched again when re-created"] = {
    run = function(t)
      local tr = require("claudenova.surfaces.transcript")
      local fetch = hold_first_fetch(t, { "old", "a" }, 2) -- answered after the wipe below
      t:deliver({ { event = "session", data = session_info(t, 1, "s", "running") } })
      tr.ensure(1)
      t:wait(function()
        return fetch.token ~= nil
      end, "the first fetch")
      vim.api.nvim_buf_delete(tr.bufs[1], { force = true })
      t:deliver({ transcript_reply(fetch.token, { "old" }, 1) })
      -- The next op re-creates the buffer, which catches up.
      t:deliver({
        {
          event = "transcript",
          data = { session = 1, ops = { { op = "set", prev = 1, seq = 2, index = 1, count = 0, lines = { "a" } } } },
        },
      })
      t:wait(function()
        return fetch.n == 2 and not tr.syncing[1]
      end, "a second fetch, answered")
      t:eq(transcript_lines(1), { "old", "a" }, "the re-created transcript")
    end,
  },
  ["a large snapshot goes into a shown transcript a slice at a time, and the ops after it follow it"] = {
    run = function(t)
      local tr = require("claudenova.surfaces.transcript")
      local slice = tr.SLICE
      tr.SLICE = 3
      local first = hold_first_fetch(t, {}, 0)
      show_fetching(t)
      t:wait(function()
        return first.token ~= nil
      end, "the fetch")
      local snapshot = {}
      for i = 1, 10 do
        snapshot[i] = "line " .. i
      end
      -- The snapshot, and in the same batch an op made after it.
      t:deliver({
        transcript_reply(first.token, snapshot, 5),
        appended(5, 6, 10, "after"),
      })
      -- One slice in this turn of the editor's loop; the op waits for the rest.
      t:eq(transcript_lines(1), { "line 1", "line 2", "line 3" }, "the first slice")
      t:eq(tr.syncing[1], true, "still syncing")
      t:settle()
      tr.SLICE = slice
      local want = vim.deepcopy(snapshot)
      table.insert(want, "after")
      t:eq(transcript_lines(1), want, "the whole snapshot, then the op")
      t:eq(tr.syncing[1], false, "synced")
      t:eq(tr.putting[1], nil, "nothing left to put")
      -- The next op applies at once.
      t:deliver({ appended(6, 7, 11, "next") })
      t:eq(transcript_lines(1)[12], "next", "the op after")
      -- The window follows the end across a snapshot longer than a slice
      -- when its cursor was on the last line, as with one at once.
      t:eq(vim.api.nvim_win_get_cursor(0)[1], 12, "the cursor on the last line")
      tr.SLICE = 3
      local fetch = hold_first_fetch(t, {}, 0)
      t:deliver({ { event = "resync", data = { session = 1, seq = 7 } } })
      t:wait(function()
        return fetch.token ~= nil
      end, "the second fetch")
      local longer = {}
      for i = 1, 20 do
        longer[i] = "again " .. i
      end
      t:deliver({ transcript_reply(fetch.token, longer, 9) })
      t:settle()
      tr.SLICE = slice
      t:eq(#transcript_lines(1), 20, "the second snapshot")
      t:eq(vim.api.nvim_win_get_cursor(0)[1], 20, "the window followed")
    end,
  },
  ["a shown transcript wiped while its snapshot goes in is fetched again when made again"] = {
    run = function(t)
      local tr = require("claudenova.surfaces.transcript")
      local slice = tr.SLICE
      tr.SLICE = 2
      local fetch = hold_first_fetch(t, { "old", "a" }, 2) -- answered after the wipe below
      local buf = show_fetching(t)
      t:wait(function()
        return fetch.token ~= nil
      end, "the first fetch")
      t:deliver({ transcript_reply(fetch.token, { "x1", "x2", "x3", "x4", "x5" }, 1) })
      t:eq(tr.putting[1] ~= nil, true, "going in")
      vim.api.nvim_buf_delete(buf, { force = true })
      t:settle()
      t:eq(tr.syncing[1], false, "the wiped buffer's putting ended")
      -- The next op makes the buffer again, which catches up.
      t:deliver({ appended(1, 2, 1, "a") })
      t:wait(function()
        return fetch.n == 2 and not tr.syncing[1]
      end, "a second fetch, answered")
      tr.SLICE = slice
      t:eq(transcript_lines(1), { "old", "a" }, "the re-created transcript")
    end,
  },
  ["a transcript shown again in its window has its folds computed once, and right"] = {
    run = function(t)
      local tr = require("claudenova.surfaces.transcript")
      t:deliver({
        { event = "session", data = session_info(t, 1, "a", "idle") },
        { event = "session", data = session_info(t, 2, "b", "idle") },
      })
      -- A tool's line, its nested details, its details.
      local lines = {}
      for i = 1, 300 do
        lines[i] = ({ "▸ tool", "  │   │ nested", "  │ detail" })[(i - 1) % 3 + 1]
      end
      local function put(id, from, to, new)
        local buf = tr.ensure(id)
        vim.bo[buf].modifiable = true
        vim.api.nvim_buf_set_lines(buf, from, to, false, new)
        vim.bo[buf].modifiable = false
      end
      put(1, 0, -1, lines)
      put(2, 0, -1, lines)
      local calls, orig = 0, tr.foldexpr
      tr.foldexpr = function()
        calls = calls + 1
        return orig()
      end
      -- Each shown once in the window (folds computed: foldclosed), then
      -- the first again: Neovim asks each line's level once.
      local win = tr.open(1)
      vim.fn.foldclosed(1)
      tr.open(2)
      vim.fn.foldclosed(1)
      calls = 0
      tr.open(1)
      vim.api.nvim_win_call(win, function()
        vim.fn.foldclosed(1)
      end)
      tr.foldexpr = orig
      t:eq(calls > 0 and calls <= #lines + 10, true, ("one pass over %d lines: %d calls"):format(#lines, calls))
      local function levels(...)
        local out, want = {}, { ... }
        vim.api.nvim_win_call(win, function()
          for _, l in ipairs(want) do
            table.insert(out, vim.fn.foldlevel(l))
          end
        end)
        return out
      end
      t:eq(levels(1, 2, 3, 299, 300), { 0, 2, 1, 2, 1 }, "the levels")
      -- A change: the levels are the new text's.
      put(1, 0, 1, { "  │   │   │ deeper" })
      put(1, 299, 300, { "▸ a last tool" })
      t:eq(levels(1, 2, 300), { 3, 2, 0 }, "after a change")
    end,
  },
}
