-- The editor's tools as the host calls them (services.tools.call): what
-- the editor sends back.

-- A named buffer with diagnostics of the given severities, one per line
-- in that order; its number.
local function with_diagnostics(name, severities)
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(b, name)
  local lines, ds = {}, {}
  for i, sev in ipairs(severities) do
    lines[i] = ("local v%d = 1 -- ·"):format(i)
    ds[i] = { lnum = i - 1, col = 6, severity = sev, message = "d" .. i, source = "spec" }
  end
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.diagnostic.set(vim.api.nvim_create_namespace("tools_spec"), b, ds)
  return b
end

local function call(args)
  local out = require("claudenova.services.tools").call("t1", "diagnostics", vim.json.encode(args), 5000)
  local r = vim.json.decode(out)
  assert(r.ok, out)
  return r.result.diagnostics
end

-- The messages ("d7") of the items sent, in order.
local function sent(set)
  local out = {}
  for _, it in ipairs(set.items) do
    table.insert(out, it.message)
  end
  return table.concat(out, " ")
end

return {
  ["diagnostics past the answer's limit: a file's most severe in its order, every severity counted"] = {
    run = function(t)
      local sevs = {}
      for i = 1, 1000 do
        sevs[i] = (i % 4) + 1 -- 250 of each, mixed
      end
      local dir = vim.fn.tempname()
      local big = with_diagnostics(dir .. "/big.lua", sevs)
      local set = call({ path = vim.api.nvim_buf_get_name(big), limit = 200 })
      t:eq(#set.items, 200, "as many as the answer lists")
      t:eq(set.counts, { { 250, 250, 250, 250 } }, "every severity counted")
      local want = {}
      for i = 1, 1000 do
        if sevs[i] == 1 and #want < 200 then
          table.insert(want, "d" .. i)
        end
      end
      t:eq(sent(set), table.concat(want, " "), "the first 200 errors")

      -- Errors and warnings all, then the first hints: in the file's order.
      sevs = {}
      for i = 1, 660 do
        sevs[i] = i % 11 == 0 and 1 or (i % 11 == 1 and 2 or 4) -- 60 errors, 60 warnings, 540 hints
      end
      local mixed = with_diagnostics(dir .. "/mixed.lua", sevs)
      set = call({ path = vim.api.nvim_buf_get_name(mixed), limit = 200 })
      t:eq(set.counts, { { 60, 60, 0, 540 } }, "counted")
      want = {}
      local hints = 0
      for i = 1, 660 do
        if sevs[i] ~= 4 then
          table.insert(want, "d" .. i)
        elseif hints < 80 then
          hints = hints + 1
          table.insert(want, "d" .. i)
        end
      end
      t:eq(sent(set), table.concat(want, " "), "120 errors and warnings, then the first 80 hints")
      t:eq(set.items[1].col, 7, "a character column, 1-based")

      -- Every loaded buffer: each file cut on its own, its counts beside its path.
      local clean = with_diagnostics(dir .. "/clean.lua", {})
      set = call({ limit = 200 })
      t:eq(#set.paths, 2, "the buffer without diagnostics is not named: " .. vim.inspect(set.paths))
      t:eq(#set.counts, 2, "a count per path")
      t:eq(#set.items, 400, "each file's 200")

      -- Without a limit (the checks after a change): all of them, uncounted.
      set = call({ path = vim.api.nvim_buf_get_name(big) })
      t:eq(#set.items, 1000, "all")
      t:eq(set.counts, nil, "no counts")
      for _, b in ipairs({ big, mixed, clean }) do
        vim.api.nvim_buf_delete(b, { force = true })
      end
    end,
  },
}
