-- Elicitation: one of the user's MCP servers asks the user for input,
-- through claude. A form is asked one field at a time (vim.ui.select for
-- choices and yes/no, vim.ui.input for text and numbers), so the user's
-- picker takes over; a URL request offers to open the URL. The user
-- answers, declines or cancels; leaving a picker with <Esc> leaves the
-- request pending (answer it later with <CR> on its row). Go checks the
-- answers against the server's schema: a wrong one asks again.
local notify = require("claudenova.setup.notify")
local host = require("claudenova.channel.host")
local scheduler = require("claudenova.services.scheduler")
local state = require("claudenova.store.state")

local M = {}

-- vim.ui.select, with the picker's grace ended once it is answered.
local function select(items, opts, cb)
  vim.ui.select(items, opts, scheduler.picked(cb))
end

M.active = nil ---@type string|nil id of the form being asked

local function left_pending(r)
  M.active = nil
  notify.info(
    ("form from %s left pending; answer it later with <CR> on its row in :ClaudeNova"):format(state.request_label(r))
  )
end

-- Send the user's answer; true when Go took it.
local function send(r, action, content)
  M.active = nil
  if not state.requests[r.id] then
    return true -- withdrawn meanwhile: nothing to answer
  end
  local ok, err = pcall(host.request, "elicit", { id = r.id, action = action, content = content or vim.empty_dict() })
  if not ok then
    notify.error(err)
    return false
  end
  return true
end

local function field_prompt(f, i, n)
  local p = ("[%d/%d] %s"):format(i, n, f.title ~= "" and f.title or f.name)
  if f.description and f.description ~= "" then
    p = p .. " — " .. f.description:gsub("\n", " ")
  end
  if f.required then
    p = p .. " (required)"
  end
  return p
end

local SKIP = "(leave empty)"

--- Ask field f; cb(value) with a string, a list of strings, "" to leave it
--- empty, or nil when the user cancelled.
local function ask(f, i, n, cb)
  local prompt = field_prompt(f, i, n)
  if f.type == "boolean" then
    local items = { "yes", "no" }
    if not f.required then
      table.insert(items, SKIP)
    end
    select(items, { prompt = prompt, kind = "claudenova.elicit" }, function(it)
      if it == nil then
        return cb(nil)
      end
      cb(it == SKIP and "" or it)
    end)
    return
  end
  if f.choices and #f.choices > 0 and f.type ~= "array" then
    local items = {}
    for k, v in ipairs(f.choices) do
      table.insert(items, { value = v, text = (f.labels and f.labels[k]) or v })
    end
    if not f.required then
      table.insert(items, { value = "", text = SKIP })
    end
    select(items, {
      prompt = prompt,
      kind = "claudenova.elicit",
      format_item = function(it)
        return it.text
      end,
    }, function(it)
      if it == nil then
        return cb(nil)
      end
      cb(it.value)
    end)
    return
  end
  if f.type == "array" then
    -- Several choices: toggle them, then Done.
    local chosen = {}
    local function loop()
      local items = {}
      for k, v in ipairs(f.choices or {}) do
        table.insert(items, { value = v, text = (chosen[v] and "[x] " or "[ ] ") .. ((f.labels and f.labels[k]) or v) })
      end
      table.insert(items, { done = true, text = "Done" })
      select(items, {
        prompt = prompt .. " (choose several, then Done)",
        kind = "claudenova.elicit",
        format_item = function(it)
          return it.text
        end,
      }, function(it)
        if it == nil then
          return cb(nil)
        end
        if it.done then
          local out = {}
          for _, v in ipairs(f.choices or {}) do
            if chosen[v] then
              table.insert(out, v)
            end
          end
          return cb(out)
        end
        chosen[it.value] = not chosen[it.value]
        vim.schedule(loop)
      end)
    end
    loop()
    return
  end
  local default = f.default ~= nil and f.default ~= vim.NIL and tostring(f.default) or nil
  vim.ui.input({ prompt = prompt .. ": ", default = default }, function(txt)
    cb(txt)
  end)
end

local function fill(r)
  local form = r.form
  local fields = form.fields or {}
  local content = {}
  local function step(i)
    if M.active ~= r.id then
      return -- withdrawn meanwhile
    end
    if i > #fields then
      if not send(r, "accept", content) then
        -- A wrong answer: the form is asked again, from the start.
        M.active = r.id
        vim.schedule(function()
          step(1)
        end)
      end
      return
    end
    ask(fields[i], i, #fields, function(v)
      if M.active ~= r.id then
        return
      end
      if v == nil then
        return left_pending(r)
      end
      if v ~= "" then
        content[fields[i].name] = v
      else
        content[fields[i].name] = nil
      end
      vim.schedule(function()
        step(i + 1)
      end)
    end)
  end
  step(1)
end

--- Open the form of request r.
function M.open(r)
  if M.active == r.id then
    return
  end
  local form = r.form or {}
  M.active = r.id
  local who = ("MCP server %s"):format(form.server or "?")
  local msg = (form.message or ""):gsub("\n", " ")
  local items
  if form.mode == "url" then
    items = {
      { action = "open", text = "Open " .. (form.url or "") .. " and continue there" },
      { action = "decline", text = "Decline" },
      { action = "cancel", text = "Cancel (answer nothing for now)" },
    }
  elseif form.unsupported and form.unsupported ~= "" then
    items = {
      { action = "decline", text = "Decline (this form cannot be filled here: " .. form.unsupported .. ")" },
      { action = "cancel", text = "Cancel" },
    }
  else
    items = {
      {
        action = "fill",
        text = ("Fill in (%d field%s)"):format(#(form.fields or {}), #(form.fields or {}) == 1 and "" or "s"),
      },
      { action = "decline", text = "Decline" },
      { action = "cancel", text = "Cancel" },
    }
  end
  select(items, {
    prompt = ("%s asks: %s"):format(who, msg),
    kind = "claudenova.elicit",
    format_item = function(it)
      return it.text
    end,
  }, function(it)
    if M.active ~= r.id then
      return
    end
    if it == nil then
      return left_pending(r)
    end
    if it.action == "fill" then
      vim.schedule(function()
        fill(r)
      end)
    elseif it.action == "open" then
      local ok, _, err = pcall(vim.ui.open, form.url)
      if not ok or err then
        notify.warn(("could not open %s (%s): open it yourself"):format(form.url, tostring(err or _)))
      end
      send(r, "accept")
    else
      send(r, it.action)
    end
  end)
end

function M.withdraw(id)
  if M.active == id then
    M.active = nil
  end
end

return M
