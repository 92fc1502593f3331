-- make docs: regenerate the generated sections of doc/claudenova.txt from
-- the code that defines them: "Commands" from lua/claudenova/commands.lua,
-- "Configuration" from the schema in lua/claudenova/setup/config.lua (and its keys
-- of every surface from lua/claudenova/services/keys.lua, the table g? shows),
-- "Highlights" from lua/claudenova/setup/highlights.lua; and the host's names of
-- those groups, rplugin/ui/hlgroups.go (Go constants), from the same list;
-- the options as LuaCATS classes (lua/claudenova/core/types.lua) from the schema.
--   nvim --headless -u NONE -l scripts/gendocs.lua [--check]
-- With --check nothing is written; it exits 1 when the file is stale.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
local doc_path = root .. "/doc/claudenova.txt"
local WIDTH = 78

local function wrap(text, indent, width)
  local out, line = {}, indent
  for word in tostring(text):gmatch("%S+") do
    if #line > #indent and vim.fn.strdisplaywidth(line .. " " .. word) > width then
      table.insert(out, line)
      line = indent .. word
    else
      line = (#line > #indent) and (line .. " " .. word) or (line .. word)
    end
  end
  if #line > #indent then
    table.insert(out, line)
  end
  return out
end

-- A heading line with its tag(s) right-aligned.
local function heading(title, tags)
  local pad = WIDTH - vim.fn.strdisplaywidth(title) - vim.fn.strdisplaywidth(tags)
  return title .. string.rep(" ", math.max(1, pad)) .. tags
end

local function commands_section()
  local cmds = require("claudenova.commands")
  local lines = { heading("3. Commands", "*claudenova-commands* *:ClaudeNova*"), "" }
  vim.list_extend(lines, wrap(cmds.doc.intro, "", WIDTH))
  table.insert(lines, "")
  local col = 32
  local function entry(usage, text)
    local head = ":ClaudeNova" .. (usage ~= "" and (" " .. usage) or "")
    local body = wrap(text, string.rep(" ", col), WIDTH)
    if vim.fn.strdisplaywidth(head) < col - 1 then
      body[1] = head .. body[1]:sub(vim.fn.strdisplaywidth(head) + 1)
    else
      table.insert(lines, head)
    end
    vim.list_extend(lines, body)
  end
  entry("", cmds.doc.bare)
  for _, name in ipairs(cmds.order) do
    local c = cmds.subcommands[name]
    entry(c.usage or name, c.desc)
  end
  table.insert(lines, "")
  for _, para in ipairs(cmds.doc.outro) do
    vim.list_extend(lines, wrap(para, "", WIDTH))
    table.insert(lines, "")
  end
  return lines
end

local function show(v)
  if type(v) == "string" then
    return ('"%s"'):format(v)
  elseif type(v) == "table" then
    return vim.tbl_isempty(v) and "{}" or vim.inspect(v, { newline = " ", indent = "" })
  end
  return tostring(v)
end

local function config_section()
  local config = require("claudenova.setup.config")
  local lines = { heading("9. Configuration", "*claudenova-config*"), "" }
  vim.list_extend(lines, wrap(config.doc_intro, "", WIDTH))
  table.insert(lines, "")
  -- Every surface's keys, from the table g? shows (lua/claudenova/services/keys.lua).
  table.insert(lines, heading("Keys of every surface", "*claudenova-keys*"))
  vim.list_extend(
    lines,
    wrap(
      "g? in any of them lists the same, with the keys you set. Change them with the keymaps options below.",
      "",
      WIDTH
    )
  )
  table.insert(lines, "")
  vim.list_extend(lines, require("claudenova.services.keys").doc(wrap, WIDTH))
  table.insert(lines, heading("Options", "*claudenova-options*"))
  table.insert(lines, "")
  local function walk(schema, prefix)
    local keys = vim.tbl_keys(schema)
    table.sort(keys)
    for _, k in ipairs(keys) do
      local spec, path = schema[k], prefix .. k
      if spec.fields then
        table.insert(lines, heading(path, ("*claudenova-opt-%s*"):format(path)))
        vim.list_extend(lines, wrap(spec.desc, "    ", WIDTH))
        table.insert(lines, "")
        walk(spec.fields, path .. ".")
      else
        table.insert(lines, heading(path, ("*claudenova-opt-%s*"):format(path)))
        local kind = spec.enum and table.concat(vim.tbl_map(show, spec.enum), " | ") or spec.type
        if spec.type == "key" then
          kind = "key (a string, or false to disable)"
        end
        local default = spec.default_doc or show(spec.default)
        vim.list_extend(lines, wrap(("%s, default %s"):format(kind, default), "    ", WIDTH))
        vim.list_extend(lines, wrap(spec.desc, "    ", WIDTH))
        table.insert(lines, "")
      end
    end
  end
  walk(config.schema, "")
  return lines
end

local function highlights_section()
  local groups = require("claudenova.setup.highlights").groups
  local names = vim.tbl_keys(groups)
  table.sort(names)
  local lines = { heading("11. Highlights", "*claudenova-highlights*"), "" }
  vim.list_extend(
    lines,
    wrap(
      "All are |:hi-default| links, so a colorscheme or your own :highlight wins. Generated from lua/claudenova/setup/highlights.lua.",
      "",
      WIDTH
    )
  )
  table.insert(lines, "")
  for _, name in ipairs(names) do
    local g = groups[name]
    table.insert(lines, heading(name, "*hl-" .. name .. "*"))
    vim.list_extend(lines, wrap(("%s (default link: %s)"):format(g.desc, g.link), "    ", WIDTH))
  end
  return lines
end

-- Replace the body of the section whose heading starts with title, up to
-- the next separator line.
local function replace(lines, title, body)
  local first, last
  for i, l in ipairs(lines) do
    if not first and vim.startswith(l, title) then
      first = i
    elseif first and l:match("^=+$") then
      last = i - 1
      break
    end
  end
  assert(first and last, "section not found: " .. title)
  local out = vim.list_slice(lines, 1, first - 1)
  vim.list_extend(out, body)
  table.insert(out, "")
  vim.list_extend(out, vim.list_slice(lines, last + 1))
  return out
end

-- The highlight groups as Go constants (rplugin/ui/hlgroups.go): the host
-- names them in the marks it sends, from the one list the front end defines.
local function hlgroups_go()
  local groups = require("claudenova.setup.highlights").groups
  local names = vim.tbl_keys(groups)
  table.sort(names)
  local out = {
    "// Code generated by scripts/gendocs.lua (make docs) from lua/claudenova/setup/highlights.lua; DO NOT EDIT.",
    "",
    "package ui",
    "",
    "// The highlight groups the front end defines (each a default link), by",
    "// the names the host uses in the marks it sends.",
    "const (",
  }
  for i, name in ipairs(names) do
    local g = groups[name]
    if i > 1 then
      table.insert(out, "")
    end
    local short = "Hl" .. name:gsub("^ClaudeNova", "")
    local comment = ("%s: %s (default link %s)."):format(short, g.desc, g.link)
    for _, l in ipairs(wrap(comment, "\t// ", 76)) do
      table.insert(out, l)
    end
    table.insert(out, ("\t%s = %q"):format(short, name))
  end
  vim.list_extend(out, { ")", "", "// HlGroups is every group, sorted.", "var HlGroups = []string{" })
  for _, name in ipairs(names) do
    table.insert(out, ("\t%q,"):format(name))
  end
  table.insert(out, "}")
  return out
end

-- The options as LuaCATS classes (lua/claudenova/core/types.lua), so that
-- setup({…}) completes and is checked in lua_ls: one class per table of
-- options, each option optional, its type and the first sentence of its
-- description with its default.
local function types_lua()
  local config = require("claudenova.setup.config")
  local out = {
    "---@meta",
    "-- Generated by scripts/gendocs.lua (make docs) from the schema in",
    "-- lua/claudenova/setup/config.lua; do not edit. Annotations only, for lua_ls",
    "-- (setup({…}) completes and is checked): nothing requires this module.",
  }
  -- Up to the first full stop outside parentheses that ends no "e.g.".
  local function first_sentence(desc)
    local one = tostring(desc):gsub("%s+", " ")
    local depth = 0
    for i = 1, #one do
      local c = one:sub(i, i)
      if c == "(" then
        depth = depth + 1
      elseif c == ")" then
        depth = math.max(0, depth - 1)
      elseif c == "." and depth == 0 and one:sub(i + 1, i + 1) == " " then
        local before = one:sub(math.max(1, i - 3), i)
        if before ~= "e.g." and before ~= "i.e." then
          return one:sub(1, i)
        end
      end
    end
    return one
  end
  local function class_name(path)
    local parts = { "claudenova.Config" }
    for _, p in ipairs(path) do
      table.insert(parts, (p:gsub("^%l", string.upper):gsub("_(%l)", string.upper)))
    end
    return table.concat(parts, ".")
  end
  local function type_of(spec)
    if spec.enum then
      return table.concat(vim.tbl_map(show, spec.enum), "|")
    end
    return ({ list = "string[]", map = "table<string, string>", key = "string|false", commands = "string[]|string" })[spec.type]
      or spec.type
  end
  local function class(schema, path, desc)
    local keys = vim.tbl_keys(schema)
    table.sort(keys)
    local body, nested = {}, {}
    for _, k in ipairs(keys) do
      local spec = schema[k]
      local sub = vim.list_extend(vim.deepcopy(path), { k })
      if spec.fields then
        local name = class_name(sub)
        table.insert(
          body,
          ("---@field %s? %s %s"):format(k, name .. (spec.off and "|false" or ""), first_sentence(spec.desc))
        )
        table.insert(nested, { spec.fields, sub, spec.desc })
      else
        local default = spec.default_doc or show(spec.default)
        table.insert(
          body,
          ("---@field %s? %s %s (default %s)"):format(k, type_of(spec), first_sentence(spec.desc), default)
        )
      end
    end
    table.insert(out, "")
    table.insert(out, "--- " .. first_sentence(desc))
    table.insert(out, "---@class " .. class_name(path))
    vim.list_extend(out, body)
    for _, n in ipairs(nested) do
      class(n[1], n[2], n[3])
    end
  end
  class(config.schema, {}, "The options of require('claudenova').setup(); every one is optional.")
  return out
end

local outputs = {}

local old = vim.fn.readfile(doc_path)
local new = replace(old, "3. Commands", commands_section())
new = replace(new, "9. Configuration", config_section())
new = replace(new, "11. Highlights", highlights_section())
-- A section's own trailing blank line before the separator, once.
local tidy = {}
for i, l in ipairs(new) do
  if not (l == "" and tidy[#tidy] == "" and (new[i + 1] or ""):match("^=+$")) then
    table.insert(tidy, l)
  end
end
new = tidy
table.insert(outputs, { path = doc_path, lines = new })
table.insert(outputs, { path = root .. "/rplugin/ui/hlgroups.go", lines = hlgroups_go() })
table.insert(outputs, { path = root .. "/lua/claudenova/core/types.lua", lines = types_lua() })

if vim.tbl_contains(arg, "--check") then
  local stale = false
  for _, o in ipairs(outputs) do
    local have = vim.fn.filereadable(o.path) == 1 and vim.fn.readfile(o.path) or {}
    if table.concat(have, "\n") ~= table.concat(o.lines, "\n") then
      io.stderr:write(("%s is stale: run `make docs`\n"):format(o.path:sub(#root + 2)))
      stale = true
    end
  end
  os.exit(stale and 1 or 0)
end
for _, o in ipairs(outputs) do
  vim.fn.writefile(o.lines, o.path)
  print("wrote " .. o.path)
end
