-- Where the plugin and its host binary are: the checkout's root, the
-- binary, the stamp a build or download of the plugin's leaves beside it,
-- and the checkout's git revision (read from .git, no process).
local M = {}

---@return string root folder of the plugin (where bin/ and rplugin/ live)
function M.root()
  local src = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(src, ":p:h:h:h:h") -- lua/claudenova/core/paths.lua
end

function M.bin()
  return M.root() .. "/bin/claudenova"
end

--- Where a build made by the plugin records how it was made (JSON: the
--- plugin's revision, when, why).
function M.stamp_path()
  return M.root() .. "/bin/claudenova.stamp"
end

--- The stamp of the last build the plugin made (nil when it made none).
function M.stamp()
  local ok, lines = pcall(vim.fn.readfile, M.stamp_path())
  if not ok or #lines == 0 then
    return nil
  end
  local dok, s = pcall(vim.json.decode, table.concat(lines, "\n"))
  return dok and type(s) == "table" and s or nil
end

--- The plugin checkout's git revision (nil when it is not a git checkout),
--- read from .git without running git.
function M.revision()
  local git = M.root() .. "/.git"
  local function read(p)
    local ok, l = pcall(vim.fn.readfile, p, "", 1)
    return ok and l[1] and vim.trim(l[1]) or nil
  end
  local head = read(git .. "/HEAD")
  if not head then
    return nil
  end
  local ref = head:match("^ref: (.+)$")
  if not ref then
    return head
  end
  local rev = read(git .. "/" .. ref)
  if rev then
    return rev
  end
  local ok, packed = pcall(vim.fn.readfile, git .. "/packed-refs")
  for _, l in ipairs(ok and packed or {}) do
    local sha, name = l:match("^(%x+) (.+)$")
    if name == ref then
      return sha
    end
  end
  return nil
end

return M
