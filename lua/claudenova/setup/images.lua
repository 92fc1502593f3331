-- Images in prompts: claude turns an @reference to an image file into an
-- image block, so an image is added like any file; this says so (with its
-- size), and pastes one from the clipboard into a file first.
local errors = require("claudenova.core.errors")
local away = require("claudenova.setup.away")

local M = {}

local KINDS = { png = "png", jpg = "jpeg", jpeg = "jpeg", gif = "gif", webp = "webp" }

--- The image kind of path by its extension ("png", "jpeg", …), or nil.
function M.kind(path)
  return KINDS[(path:match("%.([%w]+)$") or ""):lower()]
end

local function be16(s, i)
  return s:byte(i) * 256 + s:byte(i + 1)
end
local function be32(s, i)
  return be16(s, i) * 65536 + be16(s, i + 2)
end
local function le16(s, i)
  return s:byte(i) + s:byte(i + 1) * 256
end

--- Width and height of an image file from its header (nil when unknown).
function M.size(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local head = f:read(65536) or ""
  f:close()
  if head:sub(1, 8) == "\137PNG\r\n\26\n" and #head >= 24 then
    return be32(head, 17), be32(head, 21)
  end
  if (head:sub(1, 6) == "GIF87a" or head:sub(1, 6) == "GIF89a") and #head >= 10 then
    return le16(head, 7), le16(head, 9)
  end
  if head:sub(1, 4) == "RIFF" and head:sub(9, 12) == "WEBP" and #head >= 30 then
    local chunk = head:sub(13, 16)
    if chunk == "VP8X" then
      local w = head:byte(25) + head:byte(26) * 256 + head:byte(27) * 65536 + 1
      local h = head:byte(28) + head:byte(29) * 256 + head:byte(30) * 65536 + 1
      return w, h
    elseif chunk == "VP8 " then
      return le16(head, 27) % 16384, le16(head, 29) % 16384
    end
    return nil
  end
  if head:sub(1, 2) == "\255\216" then
    -- JPEG: walk the segments to a start-of-frame.
    local i = 3
    while i + 9 <= #head do
      if head:byte(i) ~= 255 then
        return nil
      end
      local marker = head:byte(i + 1)
      local len = be16(head, i + 2)
      if marker >= 0xC0 and marker <= 0xCF and marker ~= 0xC4 and marker ~= 0xC8 and marker ~= 0xCC then
        return be16(head, i + 7), be16(head, i + 5)
      end
      i = i + 2 + len
    end
  end
  return nil
end

--- "image: shot.png 1280×720" (the size when the header says it).
function M.describe(path)
  local w, h = M.size(path)
  local name = vim.fn.fnamemodify(path, ":t")
  if w then
    return ("image: %s %d×%d"):format(name, w, h)
  end
  return "image: " .. name
end

-- The clipboard tools tried, in order: the command and the MIME types it
-- lists (what the clipboard offers) or reads. pngpaste (macOS) reads PNG.
local TOOLS = {
  {
    name = "wl-paste",
    list = { "wl-paste", "--list-types" },
    read = function(t)
      return { "wl-paste", "--no-newline", "--type", t }
    end,
  },
  {
    name = "xclip",
    list = { "xclip", "-selection", "clipboard", "-t", "TARGETS", "-o" },
    read = function(t)
      return { "xclip", "-selection", "clipboard", "-t", t, "-o" }
    end,
  },
  {
    name = "pngpaste",
    read = function()
      return { "pngpaste", "-" }
    end,
  },
}

local NO_TOOL = "no clipboard tool for images here (wl-paste, xclip or pngpaste)"

local function save(dir, data, ext)
  vim.fn.mkdir(dir, "p", tonumber("700", 8))
  local path = ("%s/clipboard-%s.%s"):format(dir, os.date("%Y%m%d-%H%M%S"), ext == "jpeg" and "jpg" or ext)
  local f = assert(io.open(path, "wb"))
  f:write(data)
  f:close()
  return path
end

--- Write the clipboard's image to a file in dir, off the editor's loop:
--- cb(path) or cb(nil, why, no_tool) (no tool, or no image in the
--- clipboard), scheduled.
function M.paste(dir, cb)
  cb = vim.schedule_wrap(cb)
  for _, tool in ipairs(TOOLS) do
    if vim.fn.executable(tool.name) == 1 then
      local function read(mime)
        vim.system(tool.read(mime), {}, function(res)
          if res.code ~= 0 or not res.stdout or res.stdout == "" then
            return cb(nil, ("%s could not read the image: %s"):format(tool.name, vim.trim(res.stderr or "")))
          end
          vim.schedule(function()
            local ok, path = pcall(save, dir, res.stdout, mime:match("^image/(%w+)") or "png")
            if ok then
              cb(path)
            else
              cb(nil, "the image could not be saved: " .. tostring(path))
            end
          end)
        end)
      end
      if not tool.list then
        return read("image/png")
      end
      vim.system(tool.list, { text = true }, function(types)
        local mime
        for t in (types.stdout or ""):gmatch("[^\r\n]+") do
          if t == "image/png" or (not mime and t:match("^image/")) then
            mime = t
          end
        end
        if not mime then
          local offers = vim.trim((types.stdout or ""):gsub("\n", ", "))
          return cb(
            nil,
            ("the clipboard holds no image (%s offers: %s)"):format(tool.name, offers ~= "" and offers or "nothing")
          )
        end
        read(mime)
      end)
      return
    end
  end
  cb(nil, NO_TOOL .. ": install wl-clipboard (Wayland), xclip (X11) or pngpaste (macOS)", true)
end

--- Ask the terminal for its clipboard (OSC 52): cb(text) or cb(nil) when
--- it does not answer within timeout ms (many terminals refuse reads;
--- tmux answers with its paste buffer under set-clipboard on). Nothing
--- waits on the editor's loop meanwhile.
function M.osc52_read(cb, timeout)
  local route = away.route()
  if not route then
    return cb(nil)
  end
  local done = false
  local timer = vim.uv.new_timer()
  local id
  local function finish(text)
    if done then
      return
    end
    done = true
    timer:stop()
    timer:close()
    errors.try(vim.api.nvim_del_autocmd, id)
    cb(text)
  end
  id = vim.api.nvim_create_autocmd("TermResponse", {
    desc = "claude-nova: the terminal's answer to an OSC 52 clipboard read",
    callback = function(ev)
      local seq = type(ev.data) == "table" and ev.data.sequence or ev.data
      local enc = type(seq) == "string" and seq:match("\027%]52;%w*;([A-Za-z0-9+/=]*)")
      if enc then
        local ok, text = pcall(vim.base64.decode, enc)
        vim.schedule(function()
          finish(ok and text or nil)
        end)
        return true
      end
    end,
  })
  timer:start(
    timeout or 2000,
    0,
    vim.schedule_wrap(function()
      finish(nil)
    end)
  )
  local q = "\027]52;c;?\027\\"
  if route == "ui_send" then
    vim.api.nvim_ui_send(q)
  else
    vim.api.nvim_chan_send(2, q)
  end
end

--- The clipboard's image as a file in dir: cb(path) or cb(nil, why). With
--- no clipboard tool here (Neovim on a server, in a container), the
--- terminal's clipboard is read through OSC 52: terminals pass only text,
--- so it holds an image when that text is the path of an image file here or
--- a data:image/…;base64 URL; else a message says what to do instead.
function M.paste_async(dir, cb)
  M.paste(dir, function(path, why, no_tool)
    if path or not no_tool then
      return cb(path, why)
    end
    M.osc52(dir, cb)
  end)
end

-- The terminal's clipboard (OSC 52) where no clipboard tool is: the path of
-- an image file, or a data:image URL.
function M.osc52(dir, cb)
  M.osc52_read(function(text)
    local hint = "copy the image's path on this machine instead, or :ClaudeNova add {path} of an image file here"
    if not text then
      return cb(
        nil,
        ("%s, and the terminal did not answer an OSC 52 clipboard read (it carries text only anyway): %s"):format(
          NO_TOOL,
          hint
        )
      )
    end
    text = vim.trim(text)
    local file = vim.fn.expand(text)
    if M.kind(file) and vim.fn.filereadable(file) == 1 then
      return cb(vim.fn.fnamemodify(file, ":p"))
    end
    local ext, b64 = text:match("^data:image/(%w+);base64,([A-Za-z0-9+/=]+)$")
    if b64 then
      local ok, data = pcall(vim.base64.decode, b64)
      if ok and data ~= "" then
        return cb(save(dir, data, ext))
      end
    end
    cb(nil, ("%s; the terminal's clipboard (OSC 52) holds text, not an image: %s"):format(NO_TOOL, hint))
  end)
end

return M
