# shellcheck shell=bash
# Shared by scripts/*: paths, the JDK, the firebase CLI, emulator ports.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
VENV="$ROOT/functions/venv"
PY="$VENV/bin/python"
PROJECT_ID="demo-cardchat"
export FIRESTORE_EMULATOR_JAR_REAL="/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
export FIRESTORE_EMULATOR_BINARY_PATH="$CACHE/firestore-emulator.jar"
export CARDCHAT_DEMO_EMAIL="demo@cardchat.test"
export CARDCHAT_DEMO_PASSWORD="cardchat-demo"
# Resuming paused triggers re-reads main.py's functions (in a Python process);
# the CLI gives that 10 s, and when it runs out the triggers stay paused with
# no error but a log line. A loaded 2-core machine can take longer.
export FUNCTIONS_DISCOVERY_TIMEOUT=60
mkdir -p "$CACHE"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }

# firebase-tools 15 needs Java >= 21; Temurin lives under /usr/lib/jvm here.
# Without one, tools/firebase-java17 pins firebase-tools 14, which runs on 17.
pick_java() {
  local d best="" fallback=""
  # CARDCHAT_JDK=/path/to/jdk picks one explicitly (and tests the Java 17 path).
  for d in ${CARDCHAT_JDK:-/usr/lib/jvm/temurin-*-jdk-* /usr/lib/jvm/*}; do
    [ -x "$d/bin/java" ] || continue
    local m; m=$(java_major "$d"); [ -n "$m" ] || continue
    if [ "$m" -ge 21 ] && [ -z "$best" ]; then best="$d"; fi
    if [ "$m" -ge 17 ] && [ -z "$fallback" ]; then fallback="$d"; fi
  done
  if [ -n "$best" ]; then
    JAVA_HOME="$best"; FIREBASE="$ROOT/node_modules/.bin/firebase"; JAVA_FALLBACK=0
  elif [ -n "$fallback" ]; then
    JAVA_HOME="$fallback"; FIREBASE="$ROOT/tools/firebase-java17/node_modules/.bin/firebase"; JAVA_FALLBACK=1
  else
    die "no JDK >= 17 under /usr/lib/jvm. Fix: apt-get install -y openjdk-17-jdk-headless (or a Temurin JDK 21+)"
  fi
  export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH" FIREBASE JAVA_FALLBACK
  # Whichever CLI runs the emulators hands each port for a Python worker out once, across every
  # stack on the machine, sends each call to a worker on a connection of its own, and starts each
  # worker as a fork of one that has imported main.py (scripts/worker_ports.cjs,
  # scripts/worker_connections.cjs, scripts/worker_fork.cjs say why). Nested scripts inherit them once.
  local name preload
  for name in worker_ports worker_connections worker_fork; do
    preload="--require \"$ROOT/scripts/$name.cjs\""
    [[ " ${NODE_OPTIONS:-} " == *" $preload "* ]] || export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }$preload"
  done
  # The Firestore emulator's JVM compiles with C1 only and collects with the serial collector: C2's
  # compiler threads and G1's concurrent ones cost more CPU than they give back in a test run or a dev
  # session on two cores (docs/performance.md, "The emulators' JVM").
  local option
  for option in -XX:TieredStopAtLevel=1 -XX:+UseSerialGC; do
    [[ " ${JAVA_TOOL_OPTIONS:-} " == *" $option "* ]] || export JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:+$JAVA_TOOL_OPTIONS }$option"
  done
}

# CARDCHAT_PORT_OFFSET shifts every emulator port, so two stacks (a developer's
# scripts/dev and a scripts/test run) can share one machine.
OFFSET="${CARDCHAT_PORT_OFFSET:-0}"
# Ports that browsers and Node's fetch refuse to connect to (the Fetch spec's
# "bad ports"): an offset that lands on one (8080+2000 = 10080, 5000+1000 =
# 6000) moves up by tens instead (no two emulators' base ports are 10 apart).
UNSAFE_PORTS=" 1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 123
 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995
 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080 "
port() {
  local p=$(( $1 + OFFSET ))
  while [[ "$UNSAFE_PORTS" == *[[:space:]]"$p"[[:space:]]* ]]; do p=$(( p + 10 )); done
  echo "$p"
}
DIST="$ROOT/web/dist"; [ "$OFFSET" = 0 ] || DIST="$ROOT/web/dist-offset-$OFFSET"
# The base ports are written once, in firebase.json's "emulators" block.
read -r AUTH_PORT FIRESTORE_PORT FUNCTIONS_PORT HOSTING_PORT TASKS_PORT < <(python3 -c 'import json, sys
emu = json.load(open(sys.argv[1]))["emulators"]
print(*(emu[name]["port"] for name in ("auth", "firestore", "functions", "hosting", "tasks")))' "$ROOT/firebase.json")
AUTH_PORT=$(port "$AUTH_PORT"); FIRESTORE_PORT=$(port "$FIRESTORE_PORT")
FUNCTIONS_PORT=$(port "$FUNCTIONS_PORT"); HOSTING_PORT=$(port "$HOSTING_PORT"); TASKS_PORT=$(port "$TASKS_PORT")

# The emulators run from a config derived from firebase.json (gitignored):
# ports shifted by the offset, and the hosting CSP pinned to the demo project
# and extended with this stack's emulator origins, which the production policy
# in firebase.json never names.
firebase_config() {
  local out="$ROOT/firebase.offset-$OFFSET.json" base ports=""
  # port() is the one rule for moving a port: python gets its answers as a table.
  for base in $(python3 -c 'import json, sys
for emu in json.load(open(sys.argv[1]))["emulators"].values():
    if isinstance(emu, dict): print(*(emu[k] for k in ("port", "websocketPort") if k in emu))' "$ROOT/firebase.json"); do
    ports+="$base=$(port "$base") "
  done
  OFFSET="$OFFSET" PORTS="$ports" PROJECT="$PROJECT_ID" python3 - "$ROOT/firebase.json" "$out" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "scripts"))
from hosting_config import pin_config
# the production policy, pinned to the demo project as a deploy pins it (scripts/hosting_config.py)
cfg = pin_config(json.load(open(sys.argv[1])), os.environ["PROJECT"]); off = int(os.environ["OFFSET"])
moved = dict(map(int, pair.split("=")) for pair in os.environ["PORTS"].split())
# each stack serves its own build: the SPA is built with its ports baked in
if off:
    cfg["hosting"]["public"] = f"web/dist-offset-{off}"
for name, emu in cfg["emulators"].items():
    if isinstance(emu, dict):
        for key in ("port", "websocketPort"):
            if key in emu:
                emu[key] = moved[emu[key]]
emu = cfg["emulators"]
origin = lambda name: f"http://{emu[name]['host']}:{emu[name]['port']}"
extra = {
    "connect-src": [origin("auth"), origin("firestore"), origin("functions")],
    "frame-src": [origin("auth")],  # the auth emulator's popup iframe
}
for block in cfg["hosting"].get("headers", []):
    for header in block["headers"]:
        if header["key"].lower() != "content-security-policy":
            continue
        directives = [d.strip() for d in header["value"].split(";") if d.strip()]
        for i, d in enumerate(directives):
            name = d.split()[0]
            if name in extra:
                directives[i] = " ".join([d, *extra.pop(name)])
        directives += [" ".join([name, "'self'", *srcs]) for name, srcs in extra.items()]
        header["value"] = "; ".join(directives)
json.dump(cfg, open(sys.argv[2], "w"), indent=2)
PY
  echo "$out"
}

# What the SPA and the test suites need to find the emulators.
export_stack_env() {
  export GCLOUD_PROJECT="$PROJECT_ID"
  export FIRESTORE_EMULATOR_HOST="127.0.0.1:$FIRESTORE_PORT"
  export FIREBASE_AUTH_EMULATOR_HOST="127.0.0.1:$AUTH_PORT"
  export CARDCHAT_FUNCTIONS_HOST="127.0.0.1:$FUNCTIONS_PORT"
  # Answers run as Cloud Tasks (functions/cardchat/repo/answer_tasks.py): the sweeper's re-drives enqueue them here.
  export CLOUD_TASKS_EMULATOR_HOST="127.0.0.1:$TASKS_PORT"
  export CARDCHAT_APP_URL="http://127.0.0.1:$HOSTING_PORT"
  # Seals users' own API keys (functions/cardchat/llm/keycrypt.py). For the emulators only, a fixed and
  # published value ("cardchat emulators only, public!"); a deployment keeps its own as a Firebase secret.
  export CARDCHAT_KEY_ENCRYPTION_KEY="${CARDCHAT_KEY_ENCRYPTION_KEY:-Y2FyZGNoYXQgZW11bGF0b3JzIG9ubHksIHB1YmxpYyE=}"
}

# A stack started from inside another must find its own emulators, never inherit these:
# `"${WITHOUT_STACK[@]}" CARDCHAT_PORT_OFFSET=N cmd ...`.
# shellcheck disable=SC2034  # used by the scripts that source this file
WITHOUT_STACK=(env -u FIRESTORE_EMULATOR_HOST -u FIREBASE_AUTH_EMULATOR_HOST -u FIREBASE_EMULATOR_HUB
  -u GCLOUD_PROJECT -u FUNCTIONS_EMULATOR_HOST -u CLOUD_TASKS_EMULATOR_HOST -u CARDCHAT_FUNCTIONS_HOST
  -u CARDCHAT_APP_URL)

build_spa() {
  say "building the SPA for the emulators"
  VITE_EMULATORS="{\"auth\":\"http://127.0.0.1:$AUTH_PORT\",\"firestore\":\"127.0.0.1:$FIRESTORE_PORT\",\"functions\":\"127.0.0.1:$FUNCTIONS_PORT\"}" \
    VITE_FIREBASE_CONFIG="{\"projectId\":\"$PROJECT_ID\",\"apiKey\":\"demo-key\",\"authDomain\":\"$PROJECT_ID.firebaseapp.com\"}" \
    "$@" npx --no-install vite build --config "$ROOT/web/vite.config.ts" --outDir "$DIST" --emptyOutDir --logLevel warn
}

# Python workers outlive `emulators:exec`; kill the whole process group.
kill_group() {
  local pgid="$1"
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL -- "-$pgid" 2>/dev/null || true
}

# The demo deck is derived from Debian's git-doc; rebuilt when its generator changes.
DECK="$CACHE/demo-deck.json"
build_deck() {
  local want; want=$(cat "$ROOT"/functions/cardchat/admin/demo_deck.py "$ROOT"/functions/cardchat/admin/asciidoc.py 2>/dev/null | sha256sum | cut -c1-16)
  if [ ! -s "$DECK" ] || [ "$(cat "$DECK.stamp" 2>/dev/null)" != "$want" ]; then
    say "deriving the demo deck from the Git manual"
    (cd "$ROOT/functions" && "$PY" -m cardchat demo-deck "$DECK")
    echo "$want" > "$DECK.stamp"
  fi
}

# The deck's vectors, made once by the offline embedder and cached under .cache by text hash and
# model (functions/cardchat/admin/demo_vectors.py): scripts/seed stores them with the cards, so the
# demo workspace is embedded when scripts/dev says ready. Re-run only when the deck changes.
build_demo_vectors() {
  local want; want=$(cat "$DECK.stamp" "$ROOT"/functions/cardchat/embeddings/text.py "$ROOT"/functions/cardchat/embeddings/minilm.py | sha256sum | cut -c1-16)
  [ "$(cat "$CACHE/demo-vectors.stamp" 2>/dev/null)" = "$want" ] && return 0
  local committed
  for committed in "$ROOT"/demo/demo-vectors-*.npz; do  # the deck's vectors as committed: only new texts are embedded
    if [ -f "$committed" ] && [ ! -s "$CACHE/${committed##*/}" ]; then cp "$committed" "$CACHE/"; fi
  done
  say "embedding the demo deck's new texts (cached under $CACHE)"
  (cd "$ROOT/functions" && "$PY" -m cardchat demo-vectors "$DECK" "$CACHE")
  echo "$want" > "$CACHE/demo-vectors.stamp"
}
