-- What the question and form surfaces share: a request asked as a row of
-- pickers, one at a time (vim.ui.select, so the user's picker takes over,
-- or the float picker), where leaving a picker leaves the request pending
-- and a request withdrawn meanwhile stops the row.
local picker = require("claudenova.core.picker")
local scheduler = require("claudenova.services.scheduler")

local M = {}

--- Pick one of items (each with its .text): cb(item) or cb(nil). The
--- picker's grace ends once it is answered.
---@param opts { prompt: string, kind: string, float?: boolean }
function M.select(items, opts, cb)
  cb = scheduler.picked(cb)
  local o = {
    prompt = opts.prompt,
    kind = opts.kind,
    format_item = function(it)
      return it.text
    end,
  }
  if opts.float then
    picker.select(items, o, cb)
  else
    vim.ui.select(items, o, cb)
  end
end

--- A label ticked or not: "[x] label", "[ ] label".
function M.ticked(on, label)
  return (on and "[x] " or "[ ] ") .. label
end

--- Choose several of labels, then Done: done(indices) with the chosen
--- ones (1-based, in order), or done(nil) when the user left the picker.
--- extra(): items shown after Done (each with .text and .kind; one with
--- .before_done comes before it);
--- on_extra(it, again, finish) handles one of them (again() asks anew,
--- finish(v) ends with v); return false from accept(indices) to ask again.
---@param opts { prompt: string, kind: string, float?: boolean, labels: string[], extra?: fun(): table[], on_extra?: fun(it: table, again: fun(), finish: fun(v: any)), accept?: fun(chosen: integer[]): boolean }
function M.several(opts, done)
  local chosen = {}
  local function loop()
    local items = {}
    for i, label in ipairs(opts.labels) do
      table.insert(items, { kind = "choice", index = i, text = M.ticked(chosen[i], label) })
    end
    local extra = opts.extra and opts.extra() or {}
    for _, it in ipairs(extra) do
      if it.before_done then
        table.insert(items, it)
      end
    end
    table.insert(items, { kind = "done", text = "Done" })
    for _, it in ipairs(extra) do
      if not it.before_done then
        table.insert(items, it)
      end
    end
    M.select(
      items,
      { prompt = opts.prompt .. " (choose several, then Done)", kind = opts.kind, float = opts.float },
      function(it)
        if not it then
          return done(nil)
        end
        if it.kind == "choice" then
          chosen[it.index] = not chosen[it.index]
          return vim.schedule(loop)
        end
        if it.kind == "done" then
          local out = {}
          for i = 1, #opts.labels do
            if chosen[i] then
              table.insert(out, i)
            end
          end
          if opts.accept and not opts.accept(out) then
            return vim.schedule(loop)
          end
          return done(out)
        end
        opts.on_extra(it, function()
          vim.schedule(loop)
        end, done)
      end
    )
  end
  loop()
end

--- Ask n things in a row for request id, while owner.active is id:
--- ask_one(i, answer) asks the i-th and calls answer(v) (nil: the user left,
--- and left() is called); when all n are answered, finish() is called.
function M.row(owner, id, n, ask_one, finish, left)
  local function step(i)
    if owner.active ~= id then
      return -- withdrawn meanwhile
    end
    if i > n then
      return finish()
    end
    ask_one(i, function(v)
      if owner.active ~= id then
        return
      end
      if v == nil then
        return left()
      end
      vim.schedule(function()
        step(i + 1)
      end)
    end)
  end
  step(1)
end

--- A withdrawn request is no longer asked (the row stops at its next step).
function M.withdraw(owner, id)
  if owner.active == id then
    owner.active = nil
  end
end

return M
