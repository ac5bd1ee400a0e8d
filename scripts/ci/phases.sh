# Phases and their breakdown, sourced by both tiers (.ci/run, scripts/ci/full): `phase NAME CMD…`
# runs CMD and keeps its wall time and the machine's cores it kept busy on average (from
# /proc/stat, everything running counted: background jobs too — where a core idled, work could go
# beside it); the breakdown is printed when the script exits, however it exits.
phases=()
# The machine's busy and idle clock ticks so far (all cores: user, nice, system, irq, softirq and
# steal against idle and iowait).
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
# BUSY0 IDLE0 BUSY1 IDLE1: the cores kept busy on average between the two readings.
cores_busy() { awk -v b="$1" -v i="$2" -v B="$3" -v I="$4" -v n="$(nproc)" 'BEGIN { t = (B - b) + (I - i); printf "%.1f", (t > 0 ? n * (B - b) / t : 0) }'; }
phase_line() { printf '%-34s %4d s  %s of %d cores busy' "$1" "$2" "$3" "$(nproc)"; }
# (CMD runs as the script's own command: under `set -e` a failing step inside it ends the script,
# and the report names the phase that was running.)
phase_running="" phase_start=0 phase_before=""
phase() {
  phase_running=$1 phase_start=$SECONDS phase_before=$(cpu_ticks)
  shift
  "$@"
  phases+=("$(phase_line "$phase_running" $((SECONDS - phase_start)) "$(cores_busy $phase_before $(cpu_ticks))")")
  phase_running=""
}
phase_ticks=$(cpu_ticks)
phase_tier=${phase_tier:-ci}
phase_report() {
  local status=$?
  [ -z "$phase_running" ] || phases+=("$(phase_line "$phase_running" $((SECONDS - phase_start)) "$(cores_busy $phase_before $(cpu_ticks))")  FAILED (status $status)")
  local line
  for line in ${phases[@]+"${phases[@]}"} "$(phase_line total "$SECONDS" "$(cores_busy $phase_ticks $(cpu_ticks))")"; do
    printf '%s: %s\n' "$phase_tier" "$line"
  done
  return "$status"
}
trap phase_report EXIT

# LOG CMD…: runs CMD at the lowest CPU and I/O priority, its output in LOG, its time last in LOG.
background() {
  local log=$1; shift
  local start=$SECONDS status=0
  nice -n 19 ionice -c 3 "$@" > "$log" 2>&1 || status=$?
  echo "$phase_tier: $* took $((SECONDS - start)) s (status $status)" >> "$log"
  return "$status"
}

# NAME LOG: what failed in LOG — the failing tests' lines and any sanitizer report's first lines
# (only the end of CI's output is kept for reading afterwards, so this comes last).
failures() {
  local name=$1 log=$2
  echo "$phase_tier: $name failed; its failing lines ($log):"
  grep -E '✘|error:|[Ff]atal error|WARNING: (ThreadSanitizer|AddressSanitizer)|SUMMARY: |deadly signal|timed out|Test run with' "$log" \
    | grep -v '"errorDescription"' | tail -n 60 || true
}
