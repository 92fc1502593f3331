-- Elicitation: one of the user's MCP servers asks the user for input,
-- through claude. A form is asked one field at a time (vim.ui.select for
-- choices and yes/no, vim.ui.input for text and numbers), so the user's
-- picker takes over; a URL request offers to open the URL. The user
-- answers, declines or cancels; leaving a picker with <Esc> leaves the
-- request pending (answer it later with <CR> on its row). Go checks the
-- answers against the server's schema: a wrong one asks again.
local asking = require("claudenova.services.asking")
local actions = require("claudenova.store.actions")
local notify = require("claudenova.setup.notify")
local state = require("claudenova.store.state")

local M = {}

local KIND = "claudenova.elicit"

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
  local ok, err = pcall(actions.answer, r.id, "elicit", { action = action, content = content or vim.empty_dict() })
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
  local function label(k, v)
    return (f.labels and f.labels[k]) or v
  end
  if f.type == "array" then
    -- Several choices: tick them, then Done.
    local choices = f.choices or {}
    local labels = {}
    for k, v in ipairs(choices) do
      table.insert(labels, label(k, v))
    end
    asking.several({ prompt = prompt, kind = KIND, labels = labels }, function(chosen)
      if chosen == nil then
        return cb(nil)
      end
      cb(vim.tbl_map(function(k)
        return choices[k]
      end, chosen))
    end)
    return
  end
  local items
  if f.type == "boolean" then
    items = { { value = "yes", text = "yes" }, { value = "no", text = "no" } }
  elseif f.choices and #f.choices > 0 then
    items = {}
    for k, v in ipairs(f.choices) do
      table.insert(items, { value = v, text = label(k, v) })
    end
  end
  if items then
    if not f.required then
      table.insert(items, { value = "", text = SKIP })
    end
    asking.select(items, { prompt = prompt, kind = KIND }, function(it)
      cb(it and it.value)
    end)
    return
  end
  local default = f.default ~= nil and f.default ~= vim.NIL and tostring(f.default) or nil
  vim.ui.input({ prompt = prompt .. ": ", default = default }, function(txt)
    cb(txt)
  end)
end

local function fill(r)
  local fields = r.form.fields or {}
  local content = {}
  asking.row(M, r.id, #fields, function(i, answered)
    ask(fields[i], i, #fields, function(v)
      if v ~= nil then
        content[fields[i].name] = v ~= "" and v or nil
      end
      answered(v)
    end)
  end, function()
    if not send(r, "accept", content) then
      -- A wrong answer: the form is asked again, from the start.
      M.active = r.id
      vim.schedule(function()
        fill(r)
      end)
    end
  end, function()
    left_pending(r)
  end)
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
  asking.select(items, { prompt = ("%s asks: %s"):format(who, msg), kind = KIND }, function(it)
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
  asking.withdraw(M, id)
end

return M
