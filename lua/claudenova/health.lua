-- :checkhealth claudenova
local errors = require("claudenova.core.errors")

local M = {}

local function version(s)
  local a, b, c = (s or ""):match("(%d+)%.(%d+)%.(%d+)")
  if a then
    return { tonumber(a), tonumber(b), tonumber(c) }
  end
end

local function compare(v, w)
  for i = 1, 3 do
    if v[i] ~= w[i] then
      return v[i] < w[i] and -1 or 1
    end
  end
  return 0
end

--- Where the version in `claude --version`'s words stands against the
--- supported window: "older", "inside", "newer", or nil (no version).
function M.window_place(said)
  local v = version(said)
  if not v then
    return nil
  end
  local window = require("claudenova.core.window")
  if compare(v, version(window.oldest)) < 0 then
    return "older"
  elseif compare(v, version(window.newest)) > 0 then
    return "newer"
  end
  return "inside"
end

function M.check()
  local h = vim.health
  h.start("claude-nova")
  if vim.fn.has("nvim-0.10") == 1 then
    h.ok("Neovim " .. tostring(vim.version()))
  else
    h.error("Neovim 0.10 or newer is required, this is " .. tostring(vim.version()))
  end

  local host = require("claudenova.channel.host")
  local install = require("claudenova.setup.install")
  local problem, kind = host.check_now()
  local plan, no_download = install.plan()
  if problem and kind then
    if plan then
      h.warn(problem, {
        ("The first :ClaudeNova command downloads v%s (%s) from %s and checks its SHA-256 against the checkout's release manifest"):format(
          plan.version,
          plan.file,
          plan.url
        ),
      })
    elseif vim.fn.executable("go") == 1 then
      h.warn(problem, {
        ("The first :ClaudeNova command builds it with Go (%s); no download: %s"):format(
          vim.fn.exepath("go"),
          no_download
        ),
      })
    else
      h.error(install.missing_message(no_download))
    end
  elseif problem then
    h.error(problem)
  else
    h.ok("host binary " .. host.bin() .. " (version " .. require("claudenova.core.version") .. ")")
    -- How it was obtained: downloaded or built by the plugin (its stamp),
    -- else by make or go build.
    local st = host.stamp()
    local res = vim.system({ host.bin(), "-build-info" }, { text = true }):wait(5000)
    local bi = res.code == 0 and errors.try(vim.json.decode, res.stdout) and vim.json.decode(res.stdout) or {}
    if st and st.how == "download" then
      local m = install.manifest()
      local a = m and m.assets[install.platform() or ""]
      local fst = vim.uv.fs_stat(host.bin())
      if a and a.sha256 == st.sha256 and fst and fst.size == a.size then
        h.ok(
          ("downloaded v%s (%s, revision %s) on %s: sha256 ok (%s, the checkout's release manifest's)"):format(
            st.version or "?",
            st.asset or "?",
            (st.release_revision or "?"):sub(1, 12),
            st.built or "?",
            st.sha256
          )
        )
      else
        h.warn(
          ("downloaded v%s with sha256 %s, which the checkout's release manifest no longer names"):format(
            st.version or "?",
            tostring(st.sha256)
          ),
          { ":ClaudeNova build installs the one it names" }
        )
      end
    elseif st then
      h.info(
        ("built by the plugin (%s) on %s with %s%s"):format(
          st.why or "?",
          st.built or "?",
          st.go or bi.go or "go",
          st.revision and (" from revision " .. st.revision:sub(1, 12)) or ""
        )
      )
    elseif bi.release then
      h.info(
        ("a release build of v%s (revision %s), installed by hand"):format(bi.release, (bi.revision or "?"):sub(1, 12))
      )
    else
      h.info(("built outside the plugin (make or go build) with %s"):format(bi.go or "go"))
    end
  end
  if plan then
    h.info(("download: v%s for %s from %s (%s)"):format(plan.version, plan.key, plan.url, plan.via))
  else
    h.info("download: " .. no_download)
  end
  h.info("host " .. require("claudenova.setup.register").describe())

  local cfg = require("claudenova.setup.config").get()
  -- Split cmd exactly as the host will run it (shell quoting, no shell).
  local words
  if not problem then
    local res = vim.system({ host.bin(), "-split-cmd", cfg.cmd }, { text = true }):wait(5000)
    if res.code == 0 then
      words = vim.json.decode(res.stdout)
    else
      h.error(("option cmd = %q cannot be run: %s"):format(cfg.cmd, vim.trim(res.stderr or "")))
      return
    end
  else
    words = vim.split(vim.trim(cfg.cmd), "%s+")
  end
  local exe = words[1]
  if not exe or vim.fn.executable(exe) ~= 1 then
    h.error(("claude command %q not found on PATH (option cmd = %q)"):format(exe or "", cfg.cmd), {
      "Install Claude Code: npm install -g @anthropic-ai/claude-code",
      'or set cmd, e.g. cmd = "npx @anthropic-ai/claude-code"',
    })
  else
    local argv = vim.list_extend(vim.deepcopy(words), { "--version" })
    local ok, res = pcall(function()
      return vim.system(argv, { text = true }):wait(15000)
    end)
    if ok and res.code == 0 then
      local said = vim.trim(res.stdout or "")
      local where = M.window_place(said)
      local window = require("claudenova.core.window")
      local span = ("%s to %s"):format(window.oldest, window.newest)
      if where == "older" then
        h.warn(("claude: %s (%s) is older than claude-nova supports (%s)"):format(said, vim.fn.exepath(exe), span), {
          "Update it: npm install -g @anthropic-ai/claude-code",
          "or point the cmd option at a newer claude",
        })
      else
        h.ok(("claude: %s (%s)"):format(said, vim.fn.exepath(exe)))
        if where == "newer" then
          h.info(
            ("claude %s is newer than claude-nova was tested with (%s); it is expected to work"):format(
              said:match("%d+%.%d+%.%d+"),
              span
            )
          )
        elseif where == "inside" then
          h.info(("supported claude versions: %s"):format(span))
        else
          h.info(("`%s` names no version; claude-nova supports claude %s"):format(table.concat(argv, " "), span))
        end
      end
    else
      h.warn(("`%s` failed: %s"):format(table.concat(argv, " "), ok and vim.trim(res.stderr or "") or tostring(res)))
    end
  end

  -- The settings files claude reads for this folder, and whether they parse
  -- (claude ignores a malformed one without a word). Where claude keeps its
  -- state ($CLAUDE_CONFIG_DIR, else ~/.claude) is the host's one answer,
  -- for claude's environment (the env option over Neovim's).
  local home = (cfg.env and cfg.env.HOME) or vim.env.HOME or ""
  local claude_dir = home .. "/.claude"
  if not problem then
    local res = vim.system({ host.bin(), "-claude-home" }, { text = true, env = cfg.env }):wait(5000)
    local ok, dirs = pcall(vim.json.decode, res.stdout or "")
    if res.code == 0 and ok and type(dirs) == "table" and dirs.dir then
      claude_dir = dirs.dir
    end
  end
  h.info("claude's config folder: " .. claude_dir)
  for _, f in ipairs({
    { "user", claude_dir .. "/settings.json" },
    { "project, shared", vim.fn.getcwd() .. "/.claude/settings.json" },
    { "project, just you", vim.fn.getcwd() .. "/.claude/settings.local.json" },
  }) do
    local path = f[2]
    if vim.fn.filereadable(path) == 1 then
      local text = table.concat(vim.fn.readfile(path), "\n")
      local ok, val = pcall(vim.json.decode, text)
      if vim.trim(text) == "" then
        h.info(("settings (%s): %s is empty"):format(f[1], path))
      elseif ok and type(val) == "table" then
        local p = type(val.permissions) == "table" and val.permissions or {}
        h.ok(
          ("settings (%s): %s (%d allow, %d deny rules)"):format(
            f[1],
            path,
            type(p.allow) == "table" and #p.allow or 0,
            type(p.deny) == "table" and #p.deny or 0
          )
        )
      else
        h.error(("settings (%s): %s is not valid JSON; claude ignores the whole file"):format(f[1], path))
      end
    else
      h.info(("settings (%s): %s (none)"):format(f[1], path))
    end
  end

  local dir = cfg.storage
  local okdir = vim.fn.mkdir(dir, "p") == 1 or vim.fn.isdirectory(dir) == 1
  local probe = dir .. "/.health"
  if okdir and errors.try(vim.fn.writefile, { "ok" }, probe) and vim.fn.filereadable(probe) == 1 then
    os.remove(probe)
    h.ok("storage is writable: " .. dir)
  else
    h.error("storage is not writable: " .. dir)
  end
  local away = require("claudenova.setup.away").describe()
  h.info("a request that waits while you are away (no focus, no UI): " .. (away or "no signal (notify_away = false)"))
  h.info("log: " .. host.log_path())
  M.editor_tools(cfg)
  M.boundary()
  M.mcp()
  M.notes(cfg)
end

--- The authorship notes (option provenance) of the current folder's
--- repository: what they say of prompts, whether git itself copies them
--- on an amend or a rebase (notes.rewriteRef), whether the ref reads.
function M.notes(cfg)
  local h = vim.health
  local ref = "refs/notes/ai"
  h.start("claude-nova: authorship notes (" .. ref .. ")")
  local p = cfg.provenance or {}
  if p.enabled == false then
    h.info("provenance.enabled = false: no note is written (blame still reads the notes that exist)")
    return
  end
  if p.prompts == "text" then
    h.info('a note holds each prompt\'s text (provenance.prompts = "text"); :ClaudeNova provenance push publishes it')
  else
    h.ok('a note names each prompt by reference only, never its text (provenance.prompts = "ref")')
  end
  local function git(...)
    local res = vim.system({ "git", ... }, { text = true, cwd = vim.fn.getcwd() }):wait(5000)
    return res.code == 0, vim.trim(res.stdout or ""), vim.trim(res.stderr or "")
  end
  local inside, top = git("rev-parse", "--show-toplevel")
  if not inside then
    h.info("the current folder is in no git repository: nothing more to check here")
    return
  end
  local _, rewrite = git("config", "--get-all", "notes.rewriteRef")
  local copies = false
  for _, r in ipairs(vim.split(rewrite, "\n", { trimempty = true })) do
    if r == ref or (r:sub(-2) == "/*" and vim.startswith(ref, r:sub(1, -2))) then
      copies = true
    end
  end
  if copies then
    h.ok("notes.rewriteRef is " .. ref .. " in " .. top .. ": git itself copies a note when you amend or rebase")
  else
    h.warn(
      ("notes.rewriteRef does not name %s in %s: an amended or rebased commit keeps its note only while the host runs"):format(
        ref,
        top
      ),
      {
        "git config notes.rewriteRef "
          .. ref
          .. " (this repository), or git config --global --add notes.rewriteRef "
          .. ref
          .. ": git copies the notes on every amend and rebase",
      }
    )
  end
  if git("rev-parse", "-q", "--verify", ref) then
    local readable, _, err = git("notes", "--ref=" .. ref, "list")
    if not readable then
      h.error(("%s cannot be read in %s: %s"):format(ref, top, err), {
        ("git update-ref %s-unreadable %s && git update-ref -d %s (keeps it aside, starts afresh)"):format(
          ref,
          ref,
          ref
        ),
      })
    end
  end
end

--- Each running session's MCP servers as its claude reports them: one
--- that is not connected is a warning with the CLI's error.
function M.mcp()
  local h = vim.health
  h.start("claude-nova: MCP servers")
  local host = require("claudenova.channel.host")
  if not host.running() then
    h.info("no session runs: a session's MCP servers (.mcp.json, claude mcp add, plugins) are listed once it starts")
    return
  end
  local ok, list = pcall(host.request, "mcp_all", {})
  if not ok then
    h.warn(tostring(list))
    return
  end
  if #(list or {}) == 0 then
    h.info("no session runs")
  end
  local world = require("claudenova.services.world")
  for _, v in ipairs(list or {}) do
    local who = ("session %d · %s"):format(v.session, v.name or "")
    local w = v.world or {}
    if #(w.mcp or {}) == 0 then
      h.info(("%s: %s"):format(who, w.asked and "no MCP server" or "claude has not reported its MCP servers yet"))
    end
    for _, m in ipairs(w.mcp or {}) do
      local line = ("%s: %s"):format(who, world.server_line(m))
      if m.status == "connected" or m.status == "disabled" then
        h.ok(line)
      else
        h.warn(
          line .. (m.error and m.error ~= "" and (": " .. m.error) or ""),
          { ":ClaudeNova mcp shows it; r there reconnects it once its command is fixed" }
        )
      end
    end
    for _, e in ipairs(w.errors or {}) do
      h.warn(
        ("%s: %s %s did not load: %s"):format(who, e.kind == "plugin" and "plugin" or "MCP server", e.name, e.message)
      )
    end
  end
end

--- What the editor's tools may give Claude unasked: each session's folders.
function M.boundary()
  local h = vim.health
  h.start("claude-nova: the editor tools' boundary")
  h.info(
    "A tool's answer that would carry text from outside a session's folders is not given unasked: it is a request in the sidebar (allow once, for the session, or deny). claude's own Read rules are obeyed."
  )
  local host = require("claudenova.channel.host")
  if not host.running() then
    h.info(
      "no session runs: a session's folders are its working directory, its --add-dir folders and claude's permissions.additionalDirectories"
    )
    return
  end
  local ok, list = pcall(host.request, "boundaries", {})
  if not ok then
    h.warn(tostring(list))
    return
  end
  if #(list or {}) == 0 then
    h.info("no session runs")
  end
  for _, b in ipairs(list or {}) do
    local who = ("session %d · %s"):format(b.session, b.name or "")
    h.ok(("%s: counted as inside: %s"):format(who, table.concat(b.folders or {}, ", ")))
    if #(b.granted or {}) > 0 then
      h.info(("%s: you allowed for this session: %s"):format(who, table.concat(b.granted, ", ")))
    end
    if #(b.allow or {}) > 0 then
      h.info(("%s: Read allow rules obeyed: %s"):format(who, table.concat(b.allow, ", ")))
    end
    if #(b.deny or {}) > 0 then
      h.info(("%s: Read deny rules obeyed: %s"):format(who, table.concat(b.deny, ", ")))
    end
  end
end

--- The file buffer the user was in before :checkhealth opened its own.
local function user_buf()
  local best
  local log = vim.fs.normalize(require("claudenova.channel.host").log_path())
  for _, info in ipairs(vim.fn.getbufinfo({ buflisted = 1 })) do
    local b = info.bufnr
    -- A file of the user's: not the plugin's own log (:ClaudeNova log), not a
    -- claude-nova surface.
    if
      vim.bo[b].buftype == ""
      and info.name ~= ""
      and vim.bo[b].filetype ~= "checkhealth"
      and vim.fs.normalize(info.name) ~= log
      and not vim.b[b].claudenova_surface
    then
      if not best or info.lastused > best.lastused then
        best = info
      end
    end
  end
  return best and best.bufnr
end

--- The editor's tools for Claude and the language servers that serve them.
function M.editor_tools(cfg)
  local h = vim.health
  h.start('claude-nova: editor tools (MCP server "nvim")')
  local et = cfg.editor_tools
  if not et.enabled then
    h.info("editor_tools.enabled = false: Claude is not offered the editor's tools")
  elseif #et.tools == 0 then
    h.warn("editor_tools.tools is empty: Claude is offered no editor tool")
  else
    h.ok(
      ("offered to Claude as mcp__nvim__<tool>: %s (%s)"):format(
        table.concat(et.tools, ", "),
        et.ask and "each call asks first (editor_tools.ask)" or "read-only, answered without a prompt"
      )
    )
  end
  if cfg.feedback.diagnostics then
    h.ok(
      ("feedback.diagnostics: after each change Claude makes, it is told the new errors and warnings (waiting up to %d ms)"):format(
        cfg.feedback.diagnostics_wait
      )
    )
  else
    h.info("feedback.diagnostics = false: Claude is not told what its changes broke")
  end
  local b = user_buf()
  if not b then
    h.info("no file buffer open: open one to see which language servers serve it")
    return
  end
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":~:.")
  local servers = require("claudenova.services.tools").servers(b)
  if #servers == 0 then
    h.info(
      ("%s: no language server attached (the lsp_* and symbol tools will say so; diagnostics still come from vim.diagnostic)"):format(
        name
      )
    )
  end
  for _, s in ipairs(servers) do
    h.ok(
      ("%s: %s serves %s"):format(
        name,
        s.name,
        #s.serves > 0 and table.concat(s.serves, ", ") or "none of the tools' methods"
      )
    )
  end
end

return M
