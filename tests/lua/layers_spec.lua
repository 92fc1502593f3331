-- The front end's structure, read from its source: every module sits in the
-- folder of a layer (tests/lua/layers.lua) and requires only its own layer or
-- below, the requires go round in no circle, every require names a module (no
-- computed names), and no module reads or writes a global it does not mean to
-- (a misspelled or lost local is caught here, not by a user).
local root = os.getenv("CLAUDENOVA_TEST_ROOT")
local layers = dofile(root .. "/tests/lua/layers.lua")

local function modules()
  local out = {}
  for _, f in ipairs(vim.fn.globpath(root .. "/lua", "**/*.lua", false, true)) do
    local m = f:sub(#root + 6):gsub("%.lua$", ""):gsub("/init$", ""):gsub("/", ".")
    out[m] = f
  end
  return out
end

-- Every module src depends on: a require in either quote style, with or
-- without parentheses (also inside a 'winbar' or v:lua expression), and a
-- look into package.loaded, which is a require that hides itself.
local function requires(src)
  local deps = {}
  for _, pat in ipairs({
    "require%s*%(?%s*[\"']([%w%._]+)[\"']",
    "package%.loaded%s*%[%s*[\"']([%w%._]+)[\"']%s*%]",
  }) do
    for dep in src:gmatch(pat) do
      if dep:match("^claudenova") then
        deps[dep] = true
      end
    end
  end
  return deps
end

-- The globals the front end may use.
local allowed = {}
for _, g in ipairs({
  "vim",
  "require",
  "pairs",
  "ipairs",
  "type",
  "tostring",
  "tonumber",
  "pcall",
  "xpcall",
  "error",
  "assert",
  "select",
  "next",
  "setmetatable",
  "getmetatable",
  "rawset",
  "rawget",
  "rawequal",
  "unpack",
  "table",
  "string",
  "math",
  "os",
  "io",
  "debug",
  "coroutine",
  "package",
  "print",
  "loadstring",
  "load",
  "loadfile",
  "dofile",
  "_G",
  "jit",
  "bit",
  "collectgarbage",
  "newproxy",
}) do
  allowed[g] = true
end

-- The opcodes of a global read and write, found by compiling one of each.
local jutil = require("jit.util")
local function op_of(code, name)
  local fn = assert(loadstring(code))
  for pc = 1, jutil.funcinfo(fn).bytecodes - 1 do
    local ins = jutil.funcbc(fn, pc)
    local d = bit.rshift(ins, 16)
    if jutil.funck(fn, -d - 1) == name then
      return bit.band(ins, 0xff)
    end
  end
  error("no opcode for " .. code)
end
local GGET, GSET = op_of("return zz_probe_r", "zz_probe_r"), op_of("zz_probe_w = 1", "zz_probe_w")

local function globals(fn, out)
  local info = jutil.funcinfo(fn)
  for pc = 1, info.bytecodes - 1 do
    local ins, _ = jutil.funcbc(fn, pc)
    local op = bit.band(ins, 0xff)
    if op == GGET or op == GSET then
      local name = jutil.funck(fn, -bit.rshift(ins, 16) - 1)
      out[name] = (op == GSET and "written" or "read") .. " at line " .. (jutil.funcinfo(fn, pc).currentline or "?")
    end
  end
  for k = 1, info.gcconsts do
    local c = jutil.funck(fn, -k)
    if type(c) == "proto" then
      globals(c, out)
    end
  end
  return out
end

return {
  ["every module sits in a layer and requires nothing above it"] = {
    run = function(t)
      -- A module's layer is its folder: claudenova.<folder>.<name>; the
      -- top folder's modules (claudenova, claudenova.<name>) are the API's.
      local index = {}
      for i, l in ipairs(layers) do
        index[l.folder] = i
      end
      local layer_of = {}
      local bad, edges = {}, {}
      local present = modules()
      for m, f in pairs(present) do
        local parts = vim.split(m, ".", { plain = true })
        local folder = #parts == 3 and parts[2] or (#parts <= 2 and "" or nil)
        if #parts == 2 and vim.fn.isdirectory(root .. "/lua/claudenova/" .. parts[2]) == 1 then
          folder = parts[2] -- a folder's init.lua
        end
        layer_of[m] = folder and index[folder]
        if not layer_of[m] then
          table.insert(bad, f:sub(#root + 2) .. " is in no layer's folder (tests/lua/layers.lua)")
        end
      end
      for m, f in pairs(present) do
        local src = table.concat(vim.fn.readfile(f), "\n")
        -- Comment lines do not count (an example in a doc comment).
        edges[m] = requires((("\n" .. src):gsub("\n%s*%-%-[^\n]*", "\n")))
        for line in src:gmatch("[^\n]+") do
          if line:find("require%(%s*[%a_]") and not line:find("^%s*%-%-") then
            table.insert(bad, m .. " requires a computed name: " .. vim.trim(line))
          end
        end
        for d in pairs(edges[m]) do
          if layer_of[m] and layer_of[d] and layer_of[d] > layer_of[m] then
            table.insert(
              bad,
              ("%s (%s) requires %s (%s)"):format(m, layers[layer_of[m]].name, d, layers[layer_of[d]].name)
            )
          end
        end
      end
      local color = {}
      local function visit(m, path)
        if color[m] == 1 then
          table.insert(bad, "a circle: " .. table.concat(path, " -> ") .. " -> " .. m)
          return
        end
        if color[m] == 2 then
          return
        end
        color[m] = 1
        table.insert(path, m)
        for d in pairs(edges[m] or {}) do
          if d ~= m then
            visit(d, path)
          end
        end
        table.remove(path)
        color[m] = 2
      end
      for m in pairs(edges) do
        visit(m, {})
      end
      table.sort(bad)
      t:eq(bad, {}, "layering")
    end,
  },
  ["a surface reaches the host through the front end, never the channel"] = {
    run = function(t)
      -- Answers go out through the front end's one door (actions.answer),
      -- reads and commands through services.calls: a surface that requires
      -- the channel has a door of its own.
      local bad = {}
      for m, f in pairs(modules()) do
        if m:match("^claudenova%.surfaces%.") then
          local src = table.concat(vim.fn.readfile(f), "\n")
          for d in pairs(requires((("\n" .. src):gsub("\n%s*%-%-[^\n]*", "\n")))) do
            if d:match("^claudenova%.channel") then
              table.insert(bad, m .. " requires " .. d)
            end
          end
        end
      end
      table.sort(bad)
      t:eq(bad, {}, "surfaces that require the channel")
    end,
  },
  ["no module replaces another module's functions"] = {
    run = function(t)
      -- Every module loaded afresh; each one's functions are noted as its
      -- own load ends (before a module that requires it runs on). A
      -- function of a module that changed afterwards, and is not defined in
      -- the module's own file, was put there by another module. The
      -- gesture slots (store.actions) are the one table the front end
      -- fills: empty until it loads.
      local slots = { ["claudenova.store.actions"] = true }
      for name in pairs(package.loaded) do
        if name:match("^claudenova") then
          package.loaded[name] = nil
        end
      end
      local present = modules()
      local seen = {}
      local req = _G.require
      _G.require = function(name)
        local fresh = package.loaded[name] == nil
        local mod = req(name)
        if fresh and present[name] and type(mod) == "table" then
          local fns = {}
          for k, v in pairs(mod) do
            if type(v) == "function" then
              fns[k] = v
            end
          end
          seen[name] = { mod = mod, fns = fns }
        end
        return mod
      end
      local ok, err = pcall(function()
        local names = vim.tbl_keys(present)
        table.sort(names)
        for _, m in ipairs(names) do
          require(m)
        end
      end)
      _G.require = req
      t:ok(ok, "loading every module: " .. tostring(err))
      local bad = {}
      for name, s in pairs(seen) do
        if not slots[name] then
          for k, v in pairs(s.mod) do
            if type(v) == "function" and s.fns[k] ~= v then
              local src = debug.getinfo(v, "S").source
              if src:sub(-#present[name]) ~= present[name] then
                table.insert(bad, ("%s.%s (from %s)"):format(name, k, src:gsub("^@.*/lua/", "")))
              end
            end
          end
        end
      end
      table.sort(bad)
      t:eq(bad, {}, "functions put into another module")
    end,
  },
  ["every surface has a reference screen at 60 and 100 columns"] = {
    run = function(t)
      local dir = root .. "/tests/lua/screens/surfaces/"
      local missing = {}
      for _, f in ipairs(vim.fn.globpath(root .. "/lua/claudenova/surfaces", "*.lua", false, true)) do
        local name = vim.fn.fnamemodify(f, ":t:r")
        for _, w in ipairs({ 60, 100 }) do
          if #vim.fn.glob(dir .. name .. "-" .. w .. ".txt", false, true) == 0 then
            table.insert(missing, ("%s-%d"):format(name, w))
          end
        end
      end
      table.sort(missing)
      t:eq(missing, {}, "surfaces without a screen (tests/lua/screens/surfaces)")
    end,
  },
  ["no module drops an error: a pcall's error is looked at, or errors.try logs it"] = {
    run = function(t)
      -- A pcall whose results are thrown away (a statement), or whose error
      -- is (only its ok kept) lets an error go unseen: errors.try keeps it
      -- in the host's log with its place, at debug level.
      local bad = {}
      for m, f in pairs(modules()) do
        if m ~= "claudenova.core.errors" then
          for n, line in ipairs(vim.fn.readfile(f)) do
            if
              line:find("^%s*pcall%(")
              or line:find("local [%w_]+ = pcall%(")
              or line:find("^%s*[%w_]+ = pcall%(")
              or line:find("if not pcall%(")
              or line:find("if pcall%(")
              or line:find("and pcall%(")
            then
              table.insert(bad, ("%s:%d %s"):format(m, n, vim.trim(line)))
            end
          end
        end
      end
      table.sort(bad)
      t:eq(bad, {}, "errors dropped unseen")
    end,
  },
  ["init.lua describes the layers the test checks"] = {
    run = function(t)
      local src = table.concat(vim.fn.readfile(root .. "/lua/claudenova/init.lua"), "\n")
      local described = {}
      for name in src:gmatch("\n%-%-   (%a[%a ]-%a)%s%s+") do
        table.insert(described, name)
      end
      local checked = {}
      for _, l in ipairs(layers) do
        table.insert(checked, l.name)
      end
      t:eq(described, checked, "the layers at the top of lua/claudenova/init.lua")
    end,
  },
  ["no module uses a global it does not mean to"] = {
    run = function(t)
      local bad = {}
      for m, f in pairs(modules()) do
        local fn = assert(loadfile(f))
        for name, where in pairs(globals(fn, {})) do
          if not allowed[name] then
            table.insert(bad, ("%s: global %s %s"):format(m, name, where))
          end
        end
      end
      table.sort(bad)
      t:eq(bad, {}, "globals")
    end,
  },
  ["a surface draws through core.render"] = {
    run = function(t)
      -- Buffers written another way, and why: the transcript applies the
      -- host's numbered line ops; a proposal, the prompt and a file's copy
      -- on disk are the user's text; a proposal's hunks are ranges the
      -- user's edits move (their marks are kept by id).
      local own = {
        ["claudenova.surfaces.transcript"] = true,
        ["claudenova.surfaces.proposal"] = true,
        ["claudenova.surfaces.prompt"] = true,
        ["claudenova.surfaces.hunks"] = true,
        ["claudenova.services.disk"] = true,
        ["claudenova.core.render"] = true,
      }
      local bad = {}
      for m, f in pairs(modules()) do
        local layer = m:match("^claudenova%.(%a+)%.")
        if (layer == "surfaces" or layer == "services" or layer == "frontend") and not own[m] then
          for n, line in ipairs(vim.fn.readfile(f)) do
            for _, api in ipairs({
              "nvim_buf_set_lines",
              "nvim_buf_set_extmark",
              "nvim_buf_add_highlight",
              "nvim_buf_set_text",
            }) do
              if line:find(api, 1, true) and not line:find("^%s*%-%-") then
                table.insert(bad, ("%s:%d %s"):format(m, n, api))
              end
            end
          end
        end
      end
      table.sort(bad)
      t:eq(bad, {}, "buffers drawn outside core.render")
    end,
  },
}
