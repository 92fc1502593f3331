#!/usr/bin/env bash
# testbed.sh - install the claude-nova.nvim test bed into a cache folder.
#
#   $CACHE/bin/nvim-0.10   Neovim 0.10.4 (Debian trixie build)
#   $CACHE/bin/nvim-0.12   Neovim 0.12.x (Debian sid build)
#   $CACHE/bin/claude      Claude Code CLI (npm @anthropic-ai/claude-code)
#   $CACHE/gopls/gopls     gopls (go install golang.org/x/tools/gopls), a real
#                          language server for the editor-tools tests
#   $CACHE/bin/stylua      StyLua (npm @johnnymorganz/stylua-bin), the Lua
#                          formatter make vet checks with
#   $CACHE/lazy.nvim       lazy.nvim, only from a local git copy named by
#                          $CLAUDENOVA_LAZY_SRC (the test bed reaches nothing but
#                          package registries); without it the install test
#                          runs lazy's build step itself (build.lua, as lazy does)
#   $CACHE/env             sourceable: exports NVIM_010, NVIM_012, CLAUDE_BIN, GOPLS, STYLUA
#                          (and LAZY_NVIM when lazy.nvim is there)
#
# CACHE=${CLAUDENOVA_TESTBED:-${XDG_CACHE_HOME:-$HOME/.cache}/claudenova-testbed}
#
# Neovim builds come from Debian's own archive without touching the system's
# apt state: a private apt configuration per suite (lists, cache and an empty
# dpkg status under $CACHE/apt/<suite>) points at the Debian mirror that the
# system's apt sources already use. The packages of the dependency closure of
# `neovim` are `apt-get download`ed and `dpkg -x`ed into $CACHE/nvim-<ver>/root.
# The nvim binary is then given that root's dynamic loader and an RPATH to its
# library folders (patchelf, itself taken from trixie), so it runs directly:
# v:progpath is the real binary (children spawned from it work) and jobs
# started by nvim see an untouched environment (no LD_LIBRARY_PATH).
#
# Idempotent: each component has a stamp under $CACHE/stamps; a warm run only
# checks stamps and files (no network). Concurrent runs serialise on
# $CACHE/.lock. Bump RECIPE to force a reinstall after changing this script.
set -euo pipefail

RECIPE=1
CLAUDE_CODE_VERSION=2.1.328
NVIM010_SUITE=trixie
NVIM010_WANT='0.10.4'   # Debian version must start with this
NVIM012_SUITE=sid
NVIM012_WANT='0.12.'    # whatever 0.12 sid currently has
STYLUA_VERSION=2.5.2     # the Lua formatter make vet checks with (npm @johnnymorganz/stylua-bin)
GOPLS_VERSION=v0.23.0   # v0.24 needs a newer Go than the test machines have
LAZY_VERSION=v11.17.5

CACHE=${CLAUDENOVA_TESTBED:-${XDG_CACHE_HOME:-$HOME/.cache}/claudenova-testbed}

log() { printf 'testbed: %s\n' "$*" >&2; }
die() { printf 'testbed: FAILED: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
CACHE=$(cd "$CACHE" && pwd -P)
BIN=$CACHE/bin
STAMPS=$CACHE/stamps

exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "waiting for another testbed run (lock $CACHE/.lock)"
  flock -w 1800 9 || die "timed out waiting for $CACHE/.lock"
fi

# ---------------------------------------------------------------- stamps

# stamp_ok NAME KEY FILE...: stamp's first line is KEY and every FILE is executable.
stamp_ok() {
  local name=$1 key=$2 line f
  shift 2
  [[ -r $STAMPS/$name ]] || return 1
  IFS= read -r line <"$STAMPS/$name" || return 1
  [[ $line == "$key" ]] || return 1
  for f in "$@"; do [[ -x $f ]] || return 1; done
}
# stamp_version NAME: second line of the stamp (the installed version).
stamp_version() { sed -n 2p "$STAMPS/$1"; }
stamp_write() {
  mkdir -p "$STAMPS"
  printf '%s\n%s\n' "$2" "$3" >"$STAMPS/$1.tmp"
  mv -f "$STAMPS/$1.tmp" "$STAMPS/$1"
}

# ---------------------------------------------------------------- platform

platform() {
  local arch
  arch=$(dpkg --print-architecture 2>/dev/null) || die "dpkg not found (need a Debian system)"
  DEB_ARCH=$arch
  case $arch in
    amd64) TRIPLET=x86_64-linux-gnu;  LOADER=ld-linux-x86-64.so.2 ;;
    arm64) TRIPLET=aarch64-linux-gnu; LOADER=ld-linux-aarch64.so.1 ;;
    *) die "unsupported architecture $arch" ;;
  esac
}

# ---------------------------------------------------------------- mirror

# Print "URI SIGNED_BY" (SIGNED_BY may be empty) of the main Debian archive
# entry of the system's apt sources: a deb entry whose suites contain the
# system's codename (not *-security / *-updates).
system_mirror() {
  local codename='' files=() f
  if [[ -r /etc/os-release ]]; then
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
  fi
  [[ -r /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] && files+=("$f")
  done
  ((${#files[@]})) || return 1
  awk -v codename="$codename" '
    function wanted(suites,   n, i, a) {
      n = split(suites, a, /[ \t]+/)
      for (i = 1; i <= n; i++) {
        if (a[i] == "") continue
        if (codename != "" && a[i] == codename) return 1
        if (codename == "" && a[i] !~ /-/) return 1
      }
      return 0
    }
    function emit(uri, sb) {
      if (uri ~ /security/ || found) return
      found = 1; print uri, sb
    }
    function flush() {
      if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^no/ && wanted(suites)) {
        split(uris, u, /[ \t]+/); emit(u[1], signedby)
      }
      types = uris = suites = signedby = enabled = ""
    }
    FNR == 1 { if (deb822) flush(); deb822 = (FILENAME ~ /\.sources$/) }
    deb822 {
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if ($0 ~ /^#/ || $0 ~ /^[ \t]/) next   # comment / continuation (inline key)
      key = tolower($0); sub(/:.*/, "", key)
      val = $0; sub(/^[^:]*:[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
      if (key == "types") types = val
      else if (key == "uris") uris = val
      else if (key == "suites") suites = val
      else if (key == "enabled") enabled = tolower(val)
      else if (key == "signed-by") signedby = (val ~ /^\//) ? val : ""
      next
    }
    {
      sub(/#.*/, "")
      if ($1 != "deb") next
      line = $0; sb = ""
      if (match(line, /\[[^]]*\]/)) {
        opts = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
        n = split(opts, o, /[ \t]+/)
        for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=/) { sb = o[i]; sub(/^signed-by=/, "", sb) }
      }
      split(line, w, /[ \t]+/)
      # w[1]="deb" (or "" if leading blanks)
      k = (w[1] == "") ? 2 : 1
      if (wanted(w[k + 2])) emit(w[k + 1], sb)
    }
    END { if (deb822) flush() }
  ' "${files[@]}"
}

MIRROR=''
MIRROR_SIGNED_BY=''
find_mirror() {
  [[ -n $MIRROR ]] && return 0
  local out
  out=$(system_mirror) || true
  [[ -n $out ]] || die "could not find the Debian mirror in /etc/apt/sources.list{,.d/*} (need a 'deb' entry for the system's suite)"
  MIRROR=${out%% *}
  MIRROR_SIGNED_BY=${out#* }
  [[ $MIRROR_SIGNED_BY == "$out" ]] && MIRROR_SIGNED_BY=''
  if [[ -n $MIRROR_SIGNED_BY && ! -r $MIRROR_SIGNED_BY ]]; then MIRROR_SIGNED_BY=''; fi
  log "Debian mirror from system apt config: $MIRROR"
}

# ---------------------------------------------------------------- private apt

declare -A APT_READY=()

# apt_setup SUITE: write the private apt config of SUITE and update its lists.
apt_setup() {
  local suite=$1 d=$CACHE/apt/$1 opt=''
  [[ -n ${APT_READY[$suite]:-} ]] && return 0
  find_mirror
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/state" "$d/empty.d" "$d/debs"
  : >"$d/status"
  [[ -n $MIRROR_SIGNED_BY ]] && opt="[signed-by=$MIRROR_SIGNED_BY] "
  printf 'deb %s%s %s main\n' "$opt" "$MIRROR" "$suite" >"$d/sources.list"
  {
    printf 'Dir::Etc::sourcelist "%s";\n' "$d/sources.list"
    printf 'Dir::Etc::sourceparts "%s";\n' "$d/empty.d"
    printf 'Dir::Etc::preferences "%s";\n' "$d/empty.d/none"
    printf 'Dir::Etc::preferencesparts "%s";\n' "$d/empty.d"
    printf 'Dir::State "%s";\n' "$d/state"
    printf 'Dir::State::lists "%s";\n' "$d/lists"
    printf 'Dir::State::status "%s";\n' "$d/status"
    printf 'Dir::Cache "%s";\n' "$d/cache"
    printf '#clear APT::Update::Pre-Invoke;\n'
    printf '#clear APT::Update::Post-Invoke;\n'
    printf '#clear APT::Update::Post-Invoke-Success;\n'
    printf '#clear APT::Architectures;\n'
    printf 'APT::Architecture "%s";\n' "$DEB_ARCH"
    printf 'APT::Architectures { "%s"; };\n' "$DEB_ARCH"
    printf 'Acquire::Languages "none";\n'
    printf 'Acquire::Retries "3";\n'
    printf 'Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";\n'
    printf 'Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";\n'
    printf 'Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";\n'
    printf 'Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled "false";\n'
    printf 'Acquire::IndexTargets::deb::CNF::DefaultEnabled "false";\n'
    # the private dirs may sit under a home folder that _apt cannot enter
    [[ $(id -u) == 0 ]] && printf 'APT::Sandbox::User "root";\n'
  } >"$d/apt.conf"
  log "apt: updating private package lists for $suite"
  if ! apt-get -c "$d/apt.conf" -q update >"$d/update.log" 2>&1 \
    || grep -Eq '^(E: |W: (Failed|GPG|Some index|The repository))' "$d/update.log"; then
    sed 's/^/  /' "$d/update.log" >&2
    die "apt-get update for suite $suite failed (log: $d/update.log)"
  fi
  APT_READY[$suite]=1
}

apt_c() { local suite=$1; shift; "$1" -c "$CACHE/apt/$suite/apt.conf" "${@:2}"; }

# candidate SUITE PKG: candidate version of PKG in SUITE.
candidate() {
  apt_c "$1" apt-cache policy "$2" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }'
}

# closure SUITE PKG...: PKG and everything it Depends/Pre-Depends on, recursively.
closure() {
  local suite=$1; shift
  apt_c "$suite" apt-cache depends --recurse --no-recommends --no-suggests \
    --no-conflicts --no-breaks --no-replaces --no-enhances "$@" \
    | grep -E '^[a-z0-9][a-z0-9+.-]*$' | sort -u
}

# fetch_into SUITE ROOT PKG...: download the closure of PKG... from SUITE and
# extract every package into ROOT (which must not exist yet).
# Sets FETCHED to the list of "name=version" downloaded.
FETCHED=''
fetch_into() {
  local suite=$1 root=$2; shift 2
  local d=$CACHE/apt/$suite pkgs deb
  pkgs=$(closure "$suite" "$@") || die "apt-cache depends failed for $* ($suite)"
  [[ -n $pkgs ]] || die "empty dependency closure for $* ($suite)"
  rm -rf "$d/debs" && mkdir -p "$d/debs"
  # shellcheck disable=SC2086
  if ! (cd "$d/debs" && apt_c "$suite" apt-get -q download $pkgs) >"$d/download.log" 2>&1; then
    sed 's/^/  /' "$d/download.log" >&2
    die "apt-get download from $suite failed: $(echo $pkgs)"
  fi
  mkdir -p "$root"
  FETCHED=''
  for deb in "$d/debs"/*.deb; do
    dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb failed"
    FETCHED+="$(dpkg-deb -f "$deb" Package)=$(dpkg-deb -f "$deb" Version) "
  done
  FETCHED=${FETCHED% }
  rm -rf "$d/debs"
}

# libdirs ROOT: colon-separated library folders of ROOT.
libdirs() {
  local root=$1 out='' dir
  for dir in "$root/usr/lib/$TRIPLET" "$root/lib/$TRIPLET" "$root/usr/lib" "$root/lib"; do
    [[ -d $dir && ! -L $dir ]] && out+="${out:+:}$dir"
  done
  printf '%s' "$out"
}

# loader_of ROOT: path of ROOT's dynamic loader.
loader_of() {
  local root=$1 p
  for p in "$root/usr/lib/$TRIPLET/$LOADER" "$root/lib/$TRIPLET/$LOADER" \
           "$root/usr/lib64/$LOADER" "$root/lib64/$LOADER"; do
    if [[ -e $p ]]; then readlink -f "$p"; return 0; fi
  done
  return 1
}

# ---------------------------------------------------------------- patchelf

PATCHELF=()
ensure_patchelf() {
  ((${#PATCHELF[@]})) && return 0
  local root=$CACHE/tools/root key="recipe=$RECIPE suite=trixie root=$CACHE/tools/root"
  if ! stamp_ok tools "$key" "$root/usr/bin/patchelf"; then
    apt_setup trixie
    log "tools: fetching patchelf from trixie"
    rm -rf "$CACHE/tools"
    fetch_into trixie "$root" patchelf
    stamp_write tools "$key" "$FETCHED"
  fi
  local ld
  ld=$(loader_of "$root") || die "no dynamic loader in $root"
  PATCHELF=("$ld" --library-path "$(libdirs "$root")" "$root/usr/bin/patchelf")
  "${PATCHELF[@]}" --version >/dev/null 2>&1 || die "patchelf from trixie does not run"
}

# ---------------------------------------------------------------- neovim

# install_nvim TAG SUITE WANT
install_nvim() {
  local tag=$1 suite=$2 want=$3
  local dir=$CACHE/nvim-$tag root=$CACHE/nvim-$tag/root wrapper=$BIN/nvim-$tag
  local key="recipe=$RECIPE suite=$suite root=$root"
  if stamp_ok "nvim-$tag" "$key" "$wrapper" "$root/usr/bin/nvim"; then
    log "nvim $(stamp_version "nvim-$tag" | sed 's/ .*//') ready ($suite, cached)"
    return 0
  fi

  apt_setup "$suite"
  local ver
  ver=$(candidate "$suite" neovim)
  [[ -n $ver && $ver != '(none)' ]] || die "no neovim package in Debian $suite"
  [[ $ver == "$want"* ]] || die "Debian $suite has neovim $ver, expected $want*"
  log "nvim $tag: installing neovim $ver from $suite"

  local new=$CACHE/nvim-$tag.new
  rm -rf "$new"
  fetch_into "$suite" "$new/root" neovim neovim-runtime
  local pkgs=$FETCHED
  log "nvim $tag: packages: $pkgs"

  # nvim from the .deb expects /usr/bin/nvim to be the binary (not a symlink)
  local nroot=$new/root bin=$new/root/usr/bin/nvim
  [[ -f $bin && ! -L $bin ]] || die "$suite neovim package has no usr/bin/nvim binary"
  [[ -d $nroot/usr/share/nvim/runtime ]] || die "$suite neovim-runtime has no usr/share/nvim/runtime"

  # Final paths (after the move below) go into the binary.
  local ld rpath
  ld=$(loader_of "$nroot") || die "$suite libc6 has no $LOADER"
  ld=$root${ld#"$nroot"}
  rpath=$(libdirs "$nroot")
  rpath=${rpath//"$nroot"/"$root"}
  ensure_patchelf
  "${PATCHELF[@]}" --set-interpreter "$ld" --force-rpath --set-rpath "$rpath" "$bin" \
    || die "patchelf of $suite nvim failed"

  rm -f "$wrapper" "$STAMPS/nvim-$tag"
  rm -rf "$dir"
  mv "$new" "$dir"

  mkdir -p "$BIN"
  cat >"$wrapper.tmp" <<EOF
#!/bin/sh
# Neovim $ver (Debian $suite), installed by scripts/testbed.sh
VIM='$root/usr/share/nvim'
VIMRUNTIME='$root/usr/share/nvim/runtime'
export VIM VIMRUNTIME
exec '$root/usr/bin/nvim' "\$@"
EOF
  chmod +x "$wrapper.tmp"
  mv -f "$wrapper.tmp" "$wrapper"

  verify_nvim "$tag" "$wrapper" "$ver"
  stamp_write "nvim-$tag" "$key" "$NVIM_VERSION $suite $ver | $pkgs"
  log "nvim $NVIM_VERSION ready ($suite $ver)"
}

# verify_nvim TAG WRAPPER DEBVER: --version, vim.uv, vim.lpeg, jobstart,
# and an --embed child (spawned from v:progpath) driven over msgpack-rpc.
NVIM_VERSION=''
verify_nvim() {
  local tag=$1 wrapper=$2 debver=$3 out v
  out=$(timeout 30 "$wrapper" --version 2>&1) || die "nvim $tag --version failed: $out"
  v=$(printf '%s\n' "$out" | sed -n '1s/^NVIM v\([0-9][^ ]*\).*/\1/p')
  [[ -n $v && $debver == "$v"* ]] || die "nvim $tag --version says '${out%%$'\n'*}', expected $debver"
  NVIM_VERSION=$v

  local tmp
  tmp=$(mktemp -d)
  cat >"$tmp/check.lua" <<'EOF'
local function fail(msg) io.stdout:write('FAIL ' .. msg .. '\n'); vim.cmd('cquit 1') end
local ok, err = pcall(function()
  assert(vim.uv and vim.uv.version() > 0, 'vim.uv missing')
  assert(vim.lpeg and vim.lpeg.match(vim.lpeg.P('ab'), 'abc') == 3, 'vim.lpeg missing')
  -- jobstart of a child process
  local lines = {}
  local job = vim.fn.jobstart({ 'sh', '-c', 'echo job-ok' }, {
    stdout_buffered = true,
    on_stdout = function(_, data) lines = data end,
  })
  assert(job > 0, 'jobstart failed: ' .. tostring(job))
  assert(vim.fn.jobwait({ job }, 10000)[1] == 0, 'job did not exit 0')
  assert(lines[1] == 'job-ok', 'job output: ' .. vim.inspect(lines))
  -- an embedded child (from v:progpath) driven over msgpack-rpc
  assert(vim.fn.executable(vim.v.progpath) == 1, 'v:progpath not executable: ' .. vim.v.progpath)
  local ch = vim.fn.jobstart({ vim.v.progpath, '--embed', '--headless', '-u', 'NONE', '-i', 'NONE', '-n' }, { rpc = true })
  assert(ch > 0, 'embed jobstart failed')
  local r = vim.rpcrequest(ch, 'nvim_eval', '40 + 2')
  assert(r == 42, 'embed nvim_eval returned ' .. tostring(r))
  local api = vim.rpcrequest(ch, 'nvim_get_api_info')
  assert(type(api) == 'table' and type(api[1]) == 'number', 'embed nvim_get_api_info failed')
  vim.fn.jobstop(ch)
  io.stdout:write(string.format('OK uv=%s lpeg=%s progpath=%s\n',
    vim.uv.version_string and vim.uv.version_string() or vim.uv.version(), tostring(vim.lpeg ~= nil), vim.v.progpath))
end)
if not ok then fail(tostring(err)) end
vim.cmd('qall!')
EOF
  out=$(cd "$tmp" && HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data \
        XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache NVIM_LOG_FILE=$tmp/nvim.log \
        timeout 60 "$wrapper" --headless -u NONE -i NONE -n -c "luafile $tmp/check.lua" 2>&1) \
    || { rm -rf "$tmp"; die "nvim $tag runtime check failed: $out"; }
  rm -rf "$tmp"
  [[ $out == *'OK uv='* ]] || die "nvim $tag runtime check failed: $out"
  log "nvim $tag check: ${out//$'\r'/}"
}

# ---------------------------------------------------------------- claude code

# install_claude VERSION [NAME]: the CLI into $CACHE/NAME (claude-code for
# the pinned version, claude-code-VERSION for another) with a wrapper
# $BIN/claude (pinned) or $BIN/claude-VERSION. Other versions are installed
# beside the pinned one, never over it: make test CLAUDE_VERSION=x.y.z and
# make test-window use them.
install_claude() {
  local version=$1 name=${2:-claude-code}
  local prefix=$CACHE/$name wrapper=$BIN/claude stamp=claude
  if [[ $name != claude-code ]]; then
    wrapper=$BIN/claude-$version stamp=claude-$version
  fi
  local key="recipe=$RECIPE claude-code=$version prefix=$prefix"
  if stamp_ok "$stamp" "$key" "$wrapper"; then
    log "claude $(stamp_version "$stamp") ready (cached)"
    return 0
  fi
  command -v npm >/dev/null || die "npm not found"
  log "claude: npm install @anthropic-ai/claude-code@$version"
  rm -f "$wrapper" "$STAMPS/$stamp"
  mkdir -p "$prefix"
  if ! npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
      "@anthropic-ai/claude-code@$version" >"$CACHE/$name-npm.log" 2>&1; then
    sed 's/^/  /' "$CACHE/$name-npm.log" >&2
    die "npm install @anthropic-ai/claude-code@$version failed (log: $CACHE/$name-npm.log)"
  fi

  local pkg=$prefix/node_modules/@anthropic-ai/claude-code target=''
  # Prefer the native binary (placed by the package's postinstall, or shipped
  # by the platform's optional dependency), else the package's own bin.
  if [[ -f $pkg/bin/claude.exe ]] && [[ $(head -c4 "$pkg/bin/claude.exe" | od -An -c | tr -d ' ') == '177ELF' ]]; then
    target=$pkg/bin/claude.exe
  else
    local f
    for f in "$prefix"/node_modules/@anthropic-ai/claude-code-linux-*/claude \
             "$prefix"/node_modules/@anthropic-ai/claude-code-linux-*/bin/claude*; do
      if [[ -f $f && $(head -c4 "$f" | od -An -c | tr -d ' ') == '177ELF' ]]; then target=$f; break; fi
    done
  fi
  if [[ -z $target ]]; then
    [[ -e $prefix/node_modules/.bin/claude ]] || die "claude-code package has no binary"
    target=$prefix/node_modules/.bin/claude
  fi
  [[ -x $target ]] || chmod +x "$target"

  mkdir -p "$BIN"
  cat >"$wrapper.tmp" <<EOF
#!/bin/sh
# Claude Code $version, installed by scripts/testbed.sh
: "\${DISABLE_AUTOUPDATER:=1}"
export DISABLE_AUTOUPDATER
exec '$target' "\$@"
EOF
  chmod +x "$wrapper.tmp"
  mv -f "$wrapper.tmp" "$wrapper"

  local out
  out=$(timeout 60 "$wrapper" --version 2>&1) || die "claude --version failed: $out"
  [[ $out == *"$version"* ]] || die "claude --version says '$out', expected $version"
  stamp_write "$stamp" "$key" "$version"
  log "claude $version ready ($out)"
}

# ---------------------------------------------------------------- gopls

# A real language server: `go install` builds it from the Go module proxy
# (about a minute on 2 cores) into a folder of its own, so other tools in
# the cache are never touched.
install_gopls() {
  local dir=$CACHE/gopls bin=$CACHE/gopls/gopls
  local key="recipe=$RECIPE gopls=$GOPLS_VERSION dir=$dir"
  if stamp_ok gopls "$key" "$bin"; then
    log "gopls $(stamp_version gopls) ready (cached)"
    return 0
  fi
  command -v go >/dev/null || die "go not found (needed to build gopls)"
  log "gopls: go install golang.org/x/tools/gopls@$GOPLS_VERSION"
  rm -f "$STAMPS/gopls"
  local new=$CACHE/gopls.new
  rm -rf "$new" && mkdir -p "$new"
  if ! GOBIN=$new go install "golang.org/x/tools/gopls@$GOPLS_VERSION" >"$CACHE/gopls-install.log" 2>&1; then
    sed 's/^/  /' "$CACHE/gopls-install.log" >&2
    rm -rf "$new"
    die "go install gopls@$GOPLS_VERSION failed (log: $CACHE/gopls-install.log)"
  fi
  local out
  out=$(timeout 60 "$new/gopls" version 2>&1) || die "gopls version failed: $out"
  [[ $out == *"$GOPLS_VERSION"* ]] || die "gopls version says '$out', expected $GOPLS_VERSION"
  rm -rf "$dir"
  mv "$new" "$dir"
  stamp_write gopls "$key" "$GOPLS_VERSION"
  log "gopls $GOPLS_VERSION ready"
}

# ---------------------------------------------------------------- stylua

# The Lua formatter `make vet` checks the front end with, from npm (the
# package ships the binary for this platform).
install_stylua() {
  local prefix=$CACHE/stylua bin=$BIN/stylua
  local key="recipe=$RECIPE stylua=$STYLUA_VERSION prefix=$prefix"
  if stamp_ok stylua "$key" "$bin"; then
    log "stylua $(stamp_version stylua) ready (cached)"
    return 0
  fi
  command -v npm >/dev/null || die "npm not found"
  log "stylua: npm install @johnnymorganz/stylua-bin@$STYLUA_VERSION"
  rm -f "$bin" "$STAMPS/stylua"
  mkdir -p "$prefix" "$BIN"
  if ! npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
      "@johnnymorganz/stylua-bin@$STYLUA_VERSION" >"$CACHE/stylua-npm.log" 2>&1; then
    sed 's/^/  /' "$CACHE/stylua-npm.log" >&2
    die "npm install @johnnymorganz/stylua-bin@$STYLUA_VERSION failed (log: $CACHE/stylua-npm.log)"
  fi
  local target=$prefix/node_modules/.bin/stylua
  [[ -e $target ]] || die "the stylua package has no binary"
  ln -sf "$target" "$bin"
  local out
  out=$(timeout 60 "$bin" --version 2>&1) || die "stylua --version failed: $out"
  [[ $out == *"$STYLUA_VERSION"* ]] || die "stylua --version says '$out', expected $STYLUA_VERSION"
  stamp_write stylua "$key" "$STYLUA_VERSION"
  log "stylua $STYLUA_VERSION ready"
}

# ---------------------------------------------------------------- lazy.nvim

# Optional: a tag of lazy.nvim cloned from a local git copy.
install_lazy() {
  local dir=$CACHE/lazy.nvim key="recipe=$RECIPE lazy=$LAZY_VERSION dir=$CACHE/lazy.nvim"
  if stamp_ok lazy "$key" && [[ -r $dir/lua/lazy/init.lua ]]; then
    log "lazy.nvim $LAZY_VERSION ready (cached)"
    return 0
  fi
  if [[ -z ${CLAUDENOVA_LAZY_SRC:-} ]]; then
    log "lazy.nvim: not installed (CLAUDENOVA_LAZY_SRC names no local git copy of it); the install test emulates its build step"
    return 0
  fi
  rm -f "$STAMPS/lazy"
  rm -rf "$dir.new"
  git clone --quiet "$CLAUDENOVA_LAZY_SRC" "$dir.new" \
    && git -C "$dir.new" -c advice.detachedHead=false checkout --quiet "$LAZY_VERSION" \
    || { rm -rf "$dir.new"; die "lazy.nvim $LAZY_VERSION from $CLAUDENOVA_LAZY_SRC failed"; }
  rm -rf "$dir"
  mv "$dir.new" "$dir"
  stamp_write lazy "$key" "$LAZY_VERSION"
  log "lazy.nvim $LAZY_VERSION ready"
}

# ---------------------------------------------------------------- env file

write_env() {
  local f=$CACHE/env content
  content=$(
    printf '# generated by scripts/testbed.sh\n'
    printf 'export NVIM_010=%q\n' "$BIN/nvim-0.10"
    printf 'export NVIM_012=%q\n' "$BIN/nvim-0.12"
    printf 'export CLAUDE_BIN=%q\n' "$BIN/claude"
    printf 'export GOPLS=%q\n' "$CACHE/gopls/gopls"
    printf 'export STYLUA=%q\n' "$BIN/stylua"
    if [[ -r $CACHE/lazy.nvim/lua/lazy/init.lua ]]; then
      printf 'export LAZY_NVIM=%q\n' "$CACHE/lazy.nvim"
    fi
  )
  if [[ ! -f $f ]] || [[ $(<"$f") != "$content" ]]; then
    printf '%s\n' "$content" >"$f.tmp"
    mv -f "$f.tmp" "$f"
  fi
}

# ---------------------------------------------------------------- main

# testbed.sh claude VERSION: install that claude beside the pinned one and
# print its wrapper's path (nothing else on stdout).
if [[ ${1:-} == claude ]]; then
  [[ ${2:-} =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "usage: testbed.sh claude X.Y.Z (a version of @anthropic-ai/claude-code on npm)"
  if [[ $2 == "$CLAUDE_CODE_VERSION" ]]; then
    install_claude "$2"
    printf '%s\n' "$BIN/claude"
  else
    install_claude "$2" "claude-code-$2"
    printf '%s\n' "$BIN/claude-$2"
  fi
  exit 0
fi

platform
install_nvim 0.10 "$NVIM010_SUITE" "$NVIM010_WANT"
install_nvim 0.12 "$NVIM012_SUITE" "$NVIM012_WANT"
install_claude "$CLAUDE_CODE_VERSION"
install_gopls
install_stylua
install_lazy
write_env
log "ready: source $CACHE/env"
