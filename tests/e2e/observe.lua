-- What a test observes in its Neovim: every notification, request events
-- with what was on screen at that moment, and a scripted picker. Loaded by
-- the test init (tests/e2e/init.lua) and, with -c, after another init (make
-- demo's), so a test can drive that Neovim as it drives its own.
_G.claudenova_test = { notes = {} }
local real_notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(_G.claudenova_test.notes, { msg = tostring(msg), level = level or vim.log.levels.INFO })
  if _G.claudenova_test.echo then
    -- Tests of what a person sees (hit-enter prompts) use the real one.
    real_notify(msg, level, opts)
  end
end

-- Record request events with what was on screen at that moment (not in
-- the benchmarks, CLAUDENOVA_TEST_EVENTS=off: a listener is the user's
-- cost, not the plugin's, and the plugin has none).
_G.claudenova_test.events = {}
if os.getenv("CLAUDENOVA_TEST_EVENTS") ~= "off" then
  vim.api.nvim_create_autocmd("User", {
    pattern = { "ClaudeNovaRequestAdded", "ClaudeNovaRequestDecided" },
    callback = function(ev)
      local panel = package.loaded["claudenova.surfaces.panel"]
      table.insert(_G.claudenova_test.events, {
        kind = ev.match,
        id = ev.data.id,
        outcome = ev.data.outcome,
        panel_open = (panel and panel.current and panel.current.id == ev.data.id) and true or false,
        in_state = require("claudenova.store.state").requests[ev.data.id] ~= nil,
      })
    end,
  })
end

-- A scripted picker: tests queue the labels to choose ("CANCEL" cancels) and
-- the texts to type; prompts are recorded. It stands in for the user's picker
-- plugin, which is exactly what vim.ui.select lets take over.
function _G.claudenova_test.stub_ui()
  local t = _G.claudenova_test
  t.selects, t.inputs, t.prompts, t.choices = {}, {}, {}, {}
  vim.ui.select = function(items, opts, cb)
    table.insert(t.prompts, opts.prompt or "")
    table.insert(t.choices, vim.tbl_map(opts.format_item or tostring, items))
    local want = table.remove(t.selects, 1)
    if want == nil then
      t.waiting_select = { items = items, opts = opts, cb = cb }
      return
    end
    t.waiting_select = nil
    if want == "CANCEL" then
      return cb(nil, nil)
    end
    -- An item that starts with the label first, then one that holds it:
    -- "1 · " is the first prompt, not the "14:01 · " in another's time.
    local fmt = opts.format_item or tostring
    for i, it in ipairs(items) do
      if vim.startswith(fmt(it), want) then
        return cb(it, i)
      end
    end
    for i, it in ipairs(items) do
      if fmt(it):find(want, 1, true) then
        return cb(it, i)
      end
    end
    error("stub select: no item matches " .. want)
  end
  vim.ui.input = function(opts, cb)
    table.insert(t.prompts, opts.prompt or "")
    local v = table.remove(t.inputs, 1)
    if v == "CANCEL" then
      v = nil
    end
    cb(v)
  end
end
