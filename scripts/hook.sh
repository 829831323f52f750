# Runs one recall hook the way a harness starts it, and makes sure the harness gets exactly one
# envelope by the hook's deadline even when the machine is too loaded for node to start in time:
#
#   sh /path/to/scripts/hook.sh /path/to/scripts/launch.mjs hook <name>    (hook JSON on stdin)
#
# The hook commands start it for the hooks that fire in bursts with a short deadline (the `keeper`
# column of hooks/hook-table.ts: subagent-start, pre-tool-use); the others run node on launch.mjs
# directly, and a name this script does not keep (a command written by an older install) runs node
# as they do.
#
# On a machine with a load average of 50 on 2 cores node alone needs seconds of wall time to start
# (it costs about 70 ms of CPU before it runs a line of recall), so a hook answering from node
# cannot keep a 5 s deadline. This shell costs about a millisecond: it starts node and a timer, and
# whichever comes first answers. Exactly one envelope is printed: only this script writes to the
# harness; node writes its envelope to a private temp file and signals (SIGUSR2) that it is there,
# and when the timer fires first node is killed and its file read only for a complete line.
#
# Plain POSIX sh on purpose (dash, bash, busybox): no process beyond node, the timer's sleep,
# mktemp, cat and rm. The hook names, deadline settings and defaults are those of the hook table's
# rows with a keeper (a spec compares them); the envelope is emptyEnvelope's of sinks/hook-envelope.ts.

name=$3
node=${RECALL_NODE:-node}

# Node reads the file NODE_EXTRA_CA_CERTS names as it starts (a system bundle: about 40 ms, twice
# what node's own start costs), and a hook makes no TLS connection. The hook's node starts without
# it; the thin client hands it back to a recall server it starts (client/start-server.ts). (The
# commands of the other hooks move it themselves: harness-config.ts hookCommand.)
if [ -n "${NODE_EXTRA_CA_CERTS-}" ]; then
  RECALL_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export RECALL_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi

# Harness limit (seconds) the hook is registered with, the deadline setting, its default, the event.
case $name in
  subagent-start) limit=10 setting=${REFLECT_SUBAGENT_RECALL_TIMEOUT-} default=5 event=SubagentStart ;;
  pre-tool-use) limit=10 setting=${RECALL_PRE_TOOL_TIMEOUT-} default=2 event=PreToolUse ;;
  *) exec "$node" "$@" ;;
esac
[ "$2" = hook ] || exec "$node" "$@"

# The deadline in ms, as io/hook-input.ts hookDeadline reads it: a plain decimal number of seconds in
# 0.05..3600, else the default. A form this script does not read ("1e1", " 5") or a recall.toml
# that may set it (the environment wins over recall.toml, so only when the variable is unset) leaves
# the deadline to node: the timer then only makes sure the harness gets an envelope before its limit.
deadline_ms() {
  case $1 in '' | *[!0-9.]* | *.*.* | .* | *.) return 1 ;; esac
  # Before the loops below, which strip one zero at a time: a long string is no deadline.
  [ ${#1} -le 12 ] || return 1
  whole=${1%%.*}
  frac=${1#"$whole"}
  frac=${frac#.}000
  frac=${frac%"${frac#???}"}
  while :; do case $whole in 0?*) whole=${whole#0} ;; *) break ;; esac; done
  while :; do case $frac in 0?*) frac=${frac#0} ;; *) break ;; esac; done
  [ ${#whole} -le 4 ] || return 1
  ms=$((whole * 1000 + frac))
  [ "$ms" -ge 50 ] && [ "$ms" -le 3600000 ] || return 1
  echo "$ms"
}
home=${HOME:-~}
# dash leaves `~` as it is when HOME is unset: then the state dir is unknown here (node finds it).
case $home in /*) ;; *) home= ;; esac
# The state dir as core/state-dir.ts finds it (a relative setting is taken from HOME).
case ${REFLECT_STATE_DIR-} in
  '') state=$home/.reflect ;;
  /*) state=$REFLECT_STATE_DIR ;;
  '~') state=$home ;;
  '~/'*) state=$home/${REFLECT_STATE_DIR#'~/'} ;;
  *) state=$home/$REFLECT_STATE_DIR ;;
esac
config=${RECALL_CONFIG-}
case $config in '~/'*) config=$home/${config#'~/'} ;; esac
if [ -n "$setting" ]; then
  ms=$(deadline_ms "$setting") || ms=
elif [ -z "$home" ] || [ -n "$config" ] || [ -e "$state/recall.toml" ] || [ -e "${XDG_CONFIG_HOME:-$home/.config}/recall/recall.toml" ]; then
  ms=
else
  ms=$((default * 1000))
fi
# When this script answers itself, in ms from the spawn: before the deadline by 30% of it (at
# least 100 ms, at most 2 s), since on a loaded machine waking up to print takes time too (up to
# 1.6 s was measured at a load of 57 on 2 cores); node is told (RECALL_HOOK_ANSWER_BY) and gives up
# before it. Without a deadline it can read, 2 s before the harness's limit.
if [ -n "$ms" ]; then
  margin=$((ms * 3 / 10))
  [ "$margin" -ge 100 ] || margin=100
  [ "$margin" -le 2000 ] || margin=2000
  fire=$((ms - margin))
else
  fire=$((limit * 1000 - 2000))
fi
[ "$fire" -gt 0 ] || fire=1
# A deadline set past the harness's limit still gets its envelope to the harness before that limit.
[ "$fire" -le $((limit * 1000 - 2000)) ] || fire=$((limit * 1000 - 2000))

# Time since the spawn (ms), from the kernel's record of this process's start (Linux; 0 elsewhere):
# on a loaded machine the shell itself may start late. Builtins only (read, set).
since_spawn() {
  elapsed=0
  { read -r up _ </proc/uptime && read -r stat </proc/$$/stat; } 2>/dev/null || return 0
  set -- ${stat##*) }
  [ $# -ge 20 ] || return 0
  shift 19
  case $up in *.??) up=${up%.*}${up#*.} ;; *) return 0 ;; esac
  case $1 in '' | *[!0-9]*) return 0 ;; esac
  elapsed=$(((up - $1) * 10))
  [ "$elapsed" -ge 0 ] || elapsed=0
}
case ${REFLECT_HARNESS-} in
  # (Copilot's prompt hook would answer `{}`; that hook has no keeper.)
  [Cc][Oo][Pp][Ii][Ll][Oo][Tt]) empty='{"additionalContext":""}' ;;
  *) empty='{"hookSpecificOutput":{"hookEventName":"'$event'","additionalContext":""}}' ;;
esac

# The timer first: the deadline counts from the spawn, and on a loaded machine even mktemp takes
# time. Its signal, like node's "written", ends the `wait` below early (a trapped signal does, in
# every POSIX shell). Killed when node answers first, it leaves its sleep to end by itself.
fired=
ready=
trap 'fired=1' USR1
trap 'ready=1' USR2
trap '' PIPE
(
  # The wait is worked out here, just before the sleep starts, from the clock: on a loaded machine
  # this subshell itself may run long after the shell forked it, and a wait worked out before
  # would then end that much past the deadline. Builtins only: a command substitution ($(...))
  # would fork once more.
  since_spawn
  wait_ms=$((fire - elapsed))
  [ "$wait_ms" -gt 0 ] || wait_ms=1
  thousandths=$((wait_ms % 1000))
  case $thousandths in ?) thousandths=00$thousandths ;; ??) thousandths=0$thousandths ;; esac
  # POSIX sleep takes whole seconds only: where fractions are refused, the next whole second.
  { sleep "$((wait_ms / 1000)).$thousandths" 2>/dev/null || sleep $(((wait_ms + 999) / 1000)); } && kill -USR1 $$
) </dev/null >/dev/null 2>&1 &
timer=$!
# No private temp folder (a full or read-only /tmp): node alone, as without this script (the timer
# stopped first: node would take its signal for a debugger's).
if ! dir=$(mktemp -d "${TMPDIR:-/tmp}/recall-hook.XXXXXX" 2>/dev/null); then
  kill "$timer" 2>/dev/null
  trap - USR1 USR2
  exec "$node" "$@"
fi
out=$dir/out
# Killed by the harness (its limit, a cancelled turn): no folder left behind, no timer left to
# signal a pid that may by then be another process's.
trap 'kill "$timer" 2>/dev/null; rm -rf "$dir"; exit 0' TERM INT HUP
# Node writes its envelope to a file in that folder and says so (SIGUSR2, client.ts tellLauncher);
# this script alone writes to the harness, so exactly one envelope reaches it. Node's stderr too
# goes to a file, handed on below: nothing of node's holds the harness's pipes open after the answer.
# (An asynchronous command's stdin is /dev/null in a shell without job control: node gets the
# harness's through fd 3.)
# A closed stdin (no harness does that, a careless script may) is an empty one: `exec 3<&0` failing
# would end a POSIX shell here, with no envelope.
{ command exec 3<&0; } 2>/dev/null || exec 3</dev/null
RECALL_HOOK_LAUNCHER=$$ RECALL_HOOK_ANSWER_BY=$fire "$node" "$@" <&3 3<&- >"$out" 2>"$dir/err" &
pid=$!
exec 3<&-
status=0
[ -n "$fired$ready" ] || {
  wait "$pid"
  status=$?
}
kill "$timer" 2>/dev/null
late=
if { [ -n "$ready" ] || { [ -z "$fired" ] && [ "$status" -eq 0 ]; }; } && [ -s "$out" ]; then
  # Node wrote its envelope (and said so, or ended well): hand it on. Node, if still running, only
  # writes its log now and exits by its deadline.
  cat "$out"
else
  # The timer fired first, or node ended (or signalled) without an answer: it could not start, or
  # died. A complete line it wrote is its envelope; else "nothing to add".
  if [ -n "$fired" ]; then
    kill -9 "$pid" 2>/dev/null
    # bash reports a job killed by a signal on stderr ("Killed ..."); dash has no disown, nor the report.
    [ -z "${BASH_VERSION-}" ] || disown "$pid" 2>/dev/null
    late=1
  fi
  # (Node, killed, may not even have opened its file yet.)
  if IFS= read -r line 2>/dev/null <"$out"; then printf '%s\n' "$line"; else printf '%s\n' "$empty"; fi
fi
[ -s "$dir/err" ] && cat "$dir/err" >&2
# The answer is out: the rest (removing the folder, the log line) runs on in the background, so
# that the harness, which waits for this process to end, is not kept waiting by it.
(
  rm -rf "$dir"
  # The hook's log records that this script answered for a node too slow to start (as client.ts
  # logs its own give-up), in the state dir node uses, only when that dir is the user's.
  if [ -n "$late" ] && [ -d "$state/logs" ] && [ -O "$state/logs" ] && [ ! -h "$state/logs" ]; then
    printf '[%s] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.000Z 2>/dev/null)" \
      "node gave no answer by ${fire} ms after the spawn (a loaded machine starting it slowly); the launcher answered, no context given" \
      >>"$state/logs/$name.log"
  fi
) </dev/null >/dev/null 2>&1 &
exit 0
