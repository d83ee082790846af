#!/usr/bin/env bash
# Makes the screenshots of tests/data/corpus/ from the three real games, with bot2048's own tools:
# scripts/games.sh starts each game (SEED= prepared positions for gnome-2048 and the web game),
# xdotool presses the odd key, `bot2048 read --window T --save F.png` saves the window's frame,
# `bot2048 read --region 0,0,1280,1024 --save F.png` a whole-monitor frame, and
# `bot2048 play --record` the frames of a played game (copied from the recording).
#
#   scripts/make-corpus.sh OUTDIR        (needs scripts/games.sh install; builds bot2048 first)
#
# It writes PNGs only. The `.txt` labels beside them in tests/data/corpus/ were written by hand:
# a prepared position's from its SEED (plus, after a key, the merges worked out by hand and the
# new tile as seen), every other one transcribed by eye from the image; a `?` is a cell that
# cannot be seen. So re-running this script gives new games (new random tiles): the labels of
# the played shots must then be transcribed again. In tests/data/corpus/ the played shots were
# renamed to say what they show (…-played-120-moves, 2048-qt-03-played-946-moves-before-2048,
# 2048-qt-05-greedy-468-moves-game-over), and 2048-qt-07-played-910-moves is frame 910 of the
# 2048-qt-03 recording (kept in $STATE_DIR/rec-2048-qt-03), picked as the frame with 128 and
# the most other values (2048-qt keeps no saved game, so its 128 could not be prepared).
# 2048-qt-08-played-2814-moves-4096 and 2048-qt-09-played-7009-moves-8192 are frames 2814 and
# 7009 of a later `play --record` run on 2048-qt (2026-12-04), the first with a 4096 and the most
# other values, the second with 8192, 4096 and 2048; each label transcribed by eye.
#
# Environment: DISPLAY_NUM (default 120), BOT (default target/release/bot2048),
# GAMES (default "gnome qt web": which games to capture).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/make-corpus.sh OUTDIR}
export DISPLAY_NUM=${DISPLAY_NUM:-120}
export STATE_DIR=${STATE_DIR:-${TMPDIR:-/tmp}/bot2048-corpus-$DISPLAY_NUM}
export WEB_PORT=${WEB_PORT:-$((18000 + DISPLAY_NUM))}
export DISPLAY=":$DISPLAY_NUM"
unset WAYLAND_DISPLAY || true
export XDG_SESSION_TYPE=x11
if [[ -z "${BOT:-}" ]]; then
  cargo build --release --bin bot2048
  BOT="${CARGO_TARGET_DIR:-target}/release/bot2048"
fi
mkdir -p "$out"/{gnome-2048,2048-qt,web-2048}
trap 'scripts/games.sh stop >/dev/null 2>&1 || true' EXIT

ALL_VALUES="2 4 8 16;32 64 128 256;512 1024 2048 4096;8192 16384 32768 65536"
MID_GAME="0 2 4 2;2 0 16 4;2 16 64 8;16 128 256 32"
NEAR_WIN="1024 1024 0 0;0 0 0 0;0 4 0 0;2 0 0 8"       # Left makes 2048
NEAR_END="2 4 2 4;4 2 4 2;8 4 8 4;16 32 64 0"         # Right: any new tile at row 3 col 0 ends it

log() { printf '[corpus] %s\n' "$*" >&2; }
save() { # title file: the window's frame (read's exit status is the reading's, not the save's)
  "$BOT" read --window "$1" --save "$2" --force >/dev/null 2>&1 || true
  [[ -s "$2" ]] || { log "no frame saved for $2"; exit 1; }
  log "saved $2"
}
save_monitor() { # file
  "$BOT" read --region 0,0,1280,1024 --save "$1" --force >/dev/null 2>&1 || true
  [[ -s "$1" ]] || { log "no frame saved for $1"; exit 1; }
  log "saved $1"
}
key() { # title key: activate the window, then an XTEST key (gnome-2048 ignores XSendEvent keys)
  local id; id=$(xdotool search --onlyvisible --name "^$1\$" | head -1)
  xdotool windowactivate --sync "$id" 2>/dev/null || true
  xdotool key "$2"
}
restart() { # game [seed]
  scripts/games.sh stop >/dev/null 2>&1 || true
  SEED=${2:-} scripts/games.sh start "$1" >/dev/null
  sleep 1
}
played() { # title file-prefix moves extra-play-args...: plays, copies the last frame used
  local title=$1 prefix=$2 moves=$3; shift 3
  local rec="$STATE_DIR/rec-$(basename "$prefix")"
  rm -rf "$rec"
  "$BOT" play --window "$title" --max-moves "$moves" --record "$rec" --json --no-failsafe "$@" \
    > "$rec.summary.json" || true
  local last; last=$(ls "$rec/frames" | tail -1)
  cp "$rec/frames/$last" "$prefix-played-$(( 10#${last%.png} ))-moves.png"
  log "saved $prefix-played-$(( 10#${last%.png} ))-moves.png ($(cat "$rec.summary.json"))"
}

GAMES=" ${GAMES:-gnome qt web} "

# --- gnome-2048 (window "GNOME 2048", 610x656) ---
if [[ $GAMES == *" gnome "* ]]; then
g="$out/gnome-2048/gnome-2048"
restart gnome;                    save "GNOME 2048" "$g-01-start.png"
played "GNOME 2048" "$g-02" 120
restart gnome "$MID_GAME";        save "GNOME 2048" "$g-03-seeded-mid-game.png"
restart gnome "$ALL_VALUES";      save "GNOME 2048" "$g-04-seeded-all-values-2-to-65536.png"
restart gnome "$NEAR_WIN";        key "GNOME 2048" Left; sleep 1.5
save "GNOME 2048" "$g-05-seeded-win-left-dialog-on-top.png"
save_monitor "$g-06-monitor-seeded-win-left-dialog.png"
restart gnome "$NEAR_END";        key "GNOME 2048" Right; sleep 1.5
save "GNOME 2048" "$g-07-seeded-near-end-right-game-over.png"
save_monitor "$g-08-monitor-seeded-near-end-right-game-over.png"
fi

# --- 2048-qt (window "2048 Game", 550x740; no saved games: played) ---
if [[ $GAMES == *" qt "* ]]; then
q="$out/2048-qt/2048-qt"
restart qt;                       save "2048 Game" "$q-01-start.png"
played "2048 Game" "$q-02" 60
restart qt
played "2048 Game" "$q-03" 3000 --on-win stop       # up to the You Win dialog
save_monitor "$q-04-monitor-you-win-dialog.png"
restart qt
played "2048 Game" "$q-05" 3000 --solver greedy     # greedy reaches game over sooner
sleep 1
save_monitor "$q-06-monitor-game-over.png"          # 2048-qt showed no Game Over dialog yet
fi

# --- web game in Chromium (window "2048", 600x900) ---
if [[ $GAMES == *" web "* ]]; then
w="$out/web-2048/web-2048"
restart web;                      save "2048" "$w-01-start.png"
played "2048" "$w-02" 120
restart web "$MID_GAME";          save "2048" "$w-03-seeded-mid-game.png"
restart web "$ALL_VALUES";        save "2048" "$w-04-seeded-all-values-2-to-65536.png"
restart web "$NEAR_WIN";          key "2048" Left; sleep 2.5     # the overlay fades in after 1.2 s
save "2048" "$w-05-seeded-win-left-you-win-overlay.png"
restart web "$NEAR_END";          key "2048" Right; sleep 2.5    # "Game over!" fades in too
save "2048" "$w-06-seeded-near-end-right-game-over-overlay.png"
save_monitor "$w-07-monitor-seeded-near-end-right-game-over-overlay.png"
fi
log "done: $out"
